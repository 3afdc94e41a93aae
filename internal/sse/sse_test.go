package sse

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// read runs a stream through a Splitter in the given pieces and parses each event
// as it ends: the events that dispatch something, and what is left at the end.
func read(t *testing.T, max int, pieces []string) (events []Event, rest string, midLine bool, err error) {
	t.Helper()
	s := &Splitter{Max: max}
	var block []byte
	for _, p := range pieces {
		b := []byte(p)
		for len(b) > 0 {
			n, end, err := s.Next(b)
			block = append(block, b[:n]...)
			if err != nil {
				return events, string(block), s.MidLine(), err
			}
			b = b[n:]
			if !end {
				if len(b) != 0 {
					t.Fatalf("Next left %q unread without an event end", b)
				}
				break
			}
			if ev, ok := Parse(block); ok {
				events = append(events, ev)
			}
			block = nil
		}
	}
	if s.Size() != len(block) {
		t.Errorf("Size() = %d, but %d bytes of an unfinished event were read", s.Size(), len(block))
	}
	return events, string(block), s.MidLine(), nil
}

// splits is every way the test reads a stream: whole, a byte at a time, and cut
// in two at each place (a CR and its LF in different pieces among them).
func splits(stream string) [][]string {
	out := [][]string{{stream}}
	bytewise := make([]string, len(stream))
	for i := range stream {
		bytewise[i] = stream[i : i+1]
	}
	out = append(out, bytewise)
	for i := 1; i < len(stream); i++ {
		out = append(out, []string{stream[:i], stream[i:]})
	}
	return out
}

func data(s string) Event { return Event{Data: []byte(s), HasData: true} }

func TestSpecRules(t *testing.T) {
	for _, c := range []struct {
		name    string
		stream  string
		max     int
		want    []Event
		rest    string // bytes of an unfinished event at the end
		midLine bool
		err     bool
	}{
		{name: "LF", stream: "data: a\n\n", want: []Event{data("a")}},
		{name: "CRLF", stream: "data: a\r\n\r\n", want: []Event{data("a")}},
		{name: "CR", stream: "data: a\r\r", want: []Event{data("a")}},
		{name: "line ends mixed in one event", stream: "data: a\r\ndata: b\rdata: c\n\r\n", want: []Event{data("a\nb\nc")}},
		{name: "the LF after a CR that ended an event starts no event", stream: "data: a\r\r\ndata: b\n\n", want: []Event{data("a"), data("b")}},
		{name: "multi-line data joins with LF", stream: "data: {\"a\":\ndata: 1}\n\n", want: []Event{data("{\"a\":\n1}")}},
		{name: "empty data line", stream: "data\ndata\n\n", want: []Event{data("\n")}},
		{name: "a comment is skipped", stream: ": hello\ndata: a\n: world\n\n", want: []Event{data("a")}},
		{name: "comments only: a keep-alive, no event", stream: ": ping\n\n:\n\n", want: nil},
		{name: "blank lines alone: no event", stream: "\n\r\n\r", want: nil},
		{name: "one space after the colon goes, not two", stream: "data:a\n\ndata:  b\n\n", want: []Event{data("a"), data(" b")}},
		{name: "a line without a colon is a field with no value", stream: "data\n\n", want: []Event{data("")}},
		{name: "id, event and retry", stream: "id: 7\nevent: endpoint\nretry: 150\ndata: /messages?s=1\n\n",
			want: []Event{{ID: "7", Type: "endpoint", Retry: "150", Data: []byte("/messages?s=1"), HasData: true}}},
		{name: "priming event: id and retry, empty data", stream: "id: e1\nretry: 150\ndata: \n\n", want: []Event{{ID: "e1", Retry: "150", Data: []byte{}, HasData: true}}},
		{name: "an event without data", stream: "id: 9\n\n", want: []Event{{ID: "9"}}},
		{name: "a retry that is not all digits is ignored", stream: "retry: 1.5\ndata: a\n\nretry: soon\ndata: b\n\n", want: []Event{data("a"), data("b")}},
		{name: "an id holding NUL is ignored", stream: "id: a\x00b\ndata: a\n\n", want: []Event{data("a")}},
		{name: "unknown fields are ignored", stream: "foo: bar\ndata: a\nDATA: b\n\n", want: []Event{data("a")}},
		{name: "events in a row", stream: "data: 1\n\ndata: 2\r\n\r\ndata: 3\r\r", want: []Event{data("1"), data("2"), data("3")}},
		{name: "the end of the stream without the final blank line", stream: "data: 1\n\ndata: 2\n",
			want: []Event{data("1")}, rest: "data: 2\n"},
		{name: "the end of the stream in the middle of a line", stream: "data: 1\n\ndata: {\"x\"", want: []Event{data("1")}, rest: "data: {\"x\"", midLine: true},
		{name: "an event as big as the limit", stream: "data: ab\n\ndata: cd\n\n", max: 10, want: []Event{data("ab"), data("cd")}},
		{name: "an event over the limit", stream: "data: ab\n\ndata: 0123456789\n\n", max: 10, want: []Event{data("ab")}, err: true},
		{name: "a line over the limit with no line end yet", stream: "data: " + strings.Repeat("x", 64), max: 10, err: true},
	} {
		for _, pieces := range splits(c.stream) {
			events, rest, midLine, err := read(t, c.max, pieces)
			if c.err {
				var tle *TooLargeError
				if !errors.As(err, &tle) || tle.Limit != c.max || tle.Size <= c.max || !strings.Contains(err.Error(), "over the limit of 10 bytes") {
					t.Errorf("%s, read as %q: err = %v, want a *TooLargeError", c.name, pieces, err)
				}
				if !reflect.DeepEqual(events, c.want) {
					t.Errorf("%s, read as %q: events before the error = %+v, want %+v", c.name, pieces, events, c.want)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s, read as %q: %v", c.name, pieces, err)
				continue
			}
			if !reflect.DeepEqual(events, c.want) || rest != c.rest || midLine != c.midLine {
				t.Errorf("%s, read as %q:\n got %+v, rest %q, mid-line %v\nwant %+v, rest %q, mid-line %v", c.name, pieces, events, rest, midLine, c.want, c.rest, c.midLine)
			}
		}
	}
}

// One data line is the line itself, not a copy: a 100 MiB result is not copied.
func TestOneDataLineIsNotCopied(t *testing.T) {
	block := []byte("id: 1\ndata: {\"big\":1}\n\n")
	ev, _ := Parse(block)
	if &ev.Data[0] != &block[len("id: 1\ndata: ")] {
		t.Error("the data of a one-line event was copied")
	}
	// Several lines are joined in a buffer of their own, never in the block.
	block = []byte("data: a\ndata: b\n\n")
	ev, _ = Parse(block)
	if string(ev.Data) != "a\nb" || string(block) != "data: a\ndata: b\n\n" {
		t.Errorf("data %q, block after %q", ev.Data, block)
	}
}

func TestEncode(t *testing.T) {
	for _, c := range []struct {
		ev   Event
		want string
	}{
		{data("a"), "data: a\n\n"},
		{data("a\nb"), "data: a\ndata: b\n\n"},
		{data(""), "data: \n\n"},
		{Event{ID: "7", Type: "endpoint", Retry: "150", Data: []byte("/m"), HasData: true}, "id: 7\nevent: endpoint\nretry: 150\ndata: /m\n\n"},
		{Event{ID: "e1"}, "id: e1\n\n"},
		// Nothing in a field makes a line of its own.
		{Event{ID: "1\ndata: injected", Data: []byte("a\r\nb\rc"), HasData: true}, "id: 1\ndata: a\ndata: b\ndata: c\n\n"},
	} {
		got := string(Encode(c.ev))
		if got != c.want {
			t.Errorf("Encode(%+v) = %q, want %q", c.ev, got, c.want)
		}
		// What Encode writes reads back as the event (with its fields cut at a line end).
		back, _ := Parse([]byte(got))
		if again := string(Encode(back)); again != got {
			t.Errorf("Encode(Parse(%q)) = %q", got, again)
		}
	}
}
