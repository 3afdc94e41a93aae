// Package sse reads Server-Sent Events (text/event-stream) as the HTML standard
// defines them. It is the one reader of event streams in mcpscope: the client's HTTP
// transport (client/wire) and the tap's reverse proxy (tap/proxy) both use it, so a
// stream reads the same through either.
//
// It comes in two parts, because both users must keep the bytes they are given
// exactly as they came (the proxy forwards them unchanged, the tap records them):
//
//   - Splitter finds where each event ends in a stream that arrives in pieces,
//     without holding any bytes itself; the caller keeps the event's bytes.
//   - Parse reads the fields of one event's bytes.
//
// Encode writes an event back out in the one plain form every reader accepts.
//
// The rules kept (https://html.spec.whatwg.org/multipage/server-sent-events.html):
// a line ends at CRLF, LF or CR; a blank line ends an event; a line starting with
// ":" is a comment; "field: value" loses one space after the colon, and a line
// without a colon is a field with an empty value; data lines join with LF; an id
// holding NUL is ignored; a retry that is not all digits is ignored; unknown fields
// are ignored. An event cut off by the end of the stream is the caller's to judge:
// the standard drops it, but Splitter.MidLine says whether its last line was
// whole, which is what a caller needs to pass on a server's last event that lacks
// only the final blank line.
package sse

import (
	"bytes"
	"fmt"
)

// Event is one server-sent event.
type Event struct {
	ID    string // the id field; "" when absent
	Type  string // the event field; "" means "message"
	Retry string // the retry field, in milliseconds, as sent (digits only)
	// Data is the data lines joined with LF. When the event had one data line, it
	// is that line within the block given to Parse, not a copy: a 100 MiB result is
	// not copied again. A caller that reuses the block's memory must copy it.
	Data    []byte
	HasData bool // a data field was present (Data may still be empty)
}

// TooLargeError says an event grew past Splitter.Max before it ended.
type TooLargeError struct {
	Size  int // the event's bytes so far
	Limit int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("a server-sent event is over the limit of %d bytes (%d bytes of it came without its end)", e.Limit, e.Size)
}

// Splitter finds the ends of events in a stream read in pieces of any size: a line
// end split across two pieces (CR, then LF) is one line end. It keeps no bytes.
type Splitter struct {
	// Max is the largest an event may be, in bytes, counting its line ends; 0 means
	// no limit. A bigger event makes Next return a *TooLargeError.
	Max int

	size    int  // bytes of the current event so far
	lineLen int  // bytes of the current line so far, not counting its end
	cr      bool // the last byte was a CR: an LF right after it ends no further line
}

// Next reads b, the next bytes of the stream, as far as the end of the current
// event. It returns how many bytes of b belong to the current event, and whether
// the event ended there (with its blank line, which is in those bytes). A piece
// that ends with no event in it (blank lines, comments, the LF of a CRLF whose CR
// ended the last event) is an end too: Parse says it holds no event. With end
// false, all of b belongs to the event and it goes on in the next piece. Call Next
// again with the rest of b for the events after it. After an error the Splitter
// must not be used again.
func (s *Splitter) Next(b []byte) (n int, end bool, err error) {
	i := 0
	for i < len(b) {
		c := b[i]
		if s.cr {
			s.cr = false
			if c == '\n' { // the LF of a CRLF: the line already ended at the CR
				i++
				if s.size == 0 {
					// The CR ended an event: its LF is a piece of its own that ends
					// nothing, rather than the start of the next event's bytes.
					return i, true, nil
				}
				s.size++
				if err := s.check(); err != nil {
					return i, false, err
				}
				continue
			}
		}
		if c != '\r' && c != '\n' {
			// The rest of the line at once: a 100 MiB data line is searched for its
			// end, not walked byte by byte.
			j := indexEOL(b[i:])
			if j < 0 {
				j = len(b) - i
			}
			i += j
			s.size += j
			s.lineLen += j
			if err := s.check(); err != nil {
				return i, false, err
			}
			continue
		}
		i++
		s.size++
		if err := s.check(); err != nil {
			return i, false, err
		}
		s.cr = c == '\r'
		if s.lineLen == 0 {
			s.size = 0
			return i, true, nil
		}
		s.lineLen = 0
	}
	return len(b), false, nil
}

func (s *Splitter) check() error {
	if s.Max > 0 && s.size > s.Max {
		return &TooLargeError{Size: s.size, Limit: s.Max}
	}
	return nil
}

// Size is how many bytes of the current, unfinished event have been read.
func (s *Splitter) Size() int { return s.size }

// MidLine says whether the stream so far ends in the middle of a line (its last
// line has no line end yet).
func (s *Splitter) MidLine() bool { return s.lineLen > 0 }

// indexEOL is the index of the first CR or LF in b, or -1.
func indexEOL(b []byte) int {
	lf := bytes.IndexByte(b, '\n')
	before := b
	if lf >= 0 {
		before = b[:lf]
	}
	if cr := bytes.IndexByte(before, '\r'); cr >= 0 {
		return cr
	}
	return lf
}

// Parse reads the fields of one event: block is the event's bytes as Splitter
// delimits them (blank lines in it are skipped, so the LF of a CRLF whose CR ended
// the previous event does no harm). ok is false when the block has no field at all
// (comments only: a keep-alive).
func Parse(block []byte) (ev Event, ok bool) {
	joined := false // ev.Data is a buffer of its own, not a line of block
	for len(block) > 0 {
		var line []byte
		if i := indexEOL(block); i < 0 {
			line, block = block, nil
		} else {
			line = block[:i]
			if block[i] == '\r' && i+1 < len(block) && block[i+1] == '\n' {
				i++
			}
			block = block[i+1:]
		}
		if len(line) == 0 || line[0] == ':' {
			continue
		}
		field, value, found := bytes.Cut(line, []byte(":"))
		if found {
			value = bytes.TrimPrefix(value, []byte(" "))
		} else {
			value = line[len(line):] // empty, and not nil: a data field was there
		}
		ok = true
		switch string(field) {
		case "data":
			switch {
			case !ev.HasData:
				ev.Data = value
			case !joined:
				ev.Data = append(append(append(make([]byte, 0, len(ev.Data)+1+len(value)), ev.Data...), '\n'), value...)
				joined = true
			default:
				ev.Data = append(append(ev.Data, '\n'), value...)
			}
			ev.HasData = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				ev.ID = string(value)
			}
		case "event":
			ev.Type = string(value)
		case "retry":
			if digits(value) {
				ev.Retry = string(value)
			}
		}
	}
	return ev, ok
}

func digits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Encode writes ev as an event block in the plainest form: LF line ends, "field:
// value" with one space, one data line per line of Data (none when !HasData), and
// the blank line that ends it. A field or data line cannot inject lines of its
// own: a field is cut at a CR or LF, and Data splits at each.
func Encode(ev Event) []byte {
	return Append(make([]byte, 0, len(ev.ID)+len(ev.Type)+len(ev.Retry)+len(ev.Data)+32), ev)
}

// Append is Encode appending to out.
func Append(out []byte, ev Event) []byte {
	field := func(name, value string) {
		if i := indexEOL([]byte(value)); i >= 0 {
			value = value[:i]
		}
		out = append(append(append(append(out, name...), ": "...), value...), '\n')
	}
	if ev.ID != "" {
		field("id", ev.ID)
	}
	if ev.Type != "" {
		field("event", ev.Type)
	}
	if ev.Retry != "" {
		field("retry", ev.Retry)
	}
	if ev.HasData {
		data := ev.Data
		for {
			i := indexEOL(data)
			if i < 0 {
				out = append(append(append(out, "data: "...), data...), '\n')
				break
			}
			out = append(append(append(out, "data: "...), data[:i]...), '\n')
			if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
			data = data[i+1:]
		}
	}
	return append(out, '\n')
}
