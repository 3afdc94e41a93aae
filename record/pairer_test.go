package record

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A Pairer hands out each exchange as soon as it is answered, in send order, while
// the events keep coming: what a streamed replay holds is what is pending. A
// subscriptions/listen, pending for the whole session, does not hold the others back.
func TestPairerHandsOutAnsweredExchangesAsTheyCome(t *testing.T) {
	var p Pairer
	i := 0
	add := func(dir, msg string) {
		p.Add(i, &Event{Kind: KindMessage, Dir: dir, Msg: json.RawMessage(msg), Line: i + 2})
		i++
		for range repairWindow { // what follows an event in a file pushes it through the repair window
			p.Add(i, &Event{Kind: KindStderr, Text: "x"})
			i++
		}
	}
	next := func() string {
		x := p.Next()
		if x == nil {
			return ""
		}
		return x.Method + " " + x.ID
	}
	add(Send, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	if got := next(); got != "" {
		t.Fatalf("an unanswered initialize was handed out: %q", got)
	}
	add(Recv, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}`)
	add(Send, `{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{}}`)
	add(Send, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}`)
	add(Recv, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`)
	add(Recv, `{"jsonrpc":"2.0","id":3,"result":{}}`)
	var got []string
	for s := next(); s != ""; s = next() {
		got = append(got, s)
	}
	if want := "initialize 1,subscriptions/listen 2,tools/call 3"; strings.Join(got, ",") != want {
		t.Fatalf("handed out before the end: %v, want %s", got, want)
	}
	for n := range 1000 {
		add(Send, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo"}}`, n+10))
		add(Recv, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, n+10))
		if x := p.Next(); x == nil || x.ID != fmt.Sprint(n+10) || x.Response == nil {
			t.Fatalf("call %d not handed out once answered: %+v", n+10, x)
		}
		if len(p.queue) != 0 {
			t.Fatalf("%d exchanges held after call %d was answered", len(p.queue), n+10)
		}
	}
}

// Reader reads what Read reads, event by event, with the same warnings.
func TestReaderReadsWhatReadReads(t *testing.T) {
	file := string(sample(t, nil)) + "not json\n" + `{"t":1,"dir":"recv","msg":{"jsonrpc":"2.0","id":9`
	rec, err := Read(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var events []Event
	for ev, err := r.Next(); err == nil; ev, err = r.Next() {
		events = append(events, *ev)
	}
	a, _ := json.Marshal(events)
	b, _ := json.Marshal(rec.Events)
	if string(a) != string(b) || fmt.Sprint(r.Warnings) != fmt.Sprint(rec.Warnings) || r.Complete != rec.Complete {
		t.Fatalf("Reader: %v %v %v\nRead: %v %v %v", events, r.Warnings, r.Complete, rec.Events, rec.Warnings, rec.Complete)
	}
	if len(rec.Warnings) != 2 || len(events) == 0 {
		t.Fatalf("the sample should have events and two warnings (not an event, torn): %v", rec.Warnings)
	}
}
