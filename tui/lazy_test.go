package tui

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
)

// The lines wrapped on demand are the lines wrapHard makes, from any starting line.
func TestWrappedMatchesWrapHard(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		switch i % 7 {
		case 0:
			b.WriteString("\n")
		case 1:
			b.WriteString(strings.Repeat("ab", i%97) + "\r\n")
		case 2:
			b.WriteString(strings.Repeat("é日x", i%41) + "\n")
		default:
			fmt.Fprintf(&b, "line %d %s\n", i, strings.Repeat("word ", i%23))
		}
	}
	b.WriteString("no newline at the end " + strings.Repeat("z", 300))
	text := b.String()
	for _, width := range []int{1, 7, 80} {
		want := wrapHard(text, width)
		w := newWrapped(text, width)
		if got := w.Count(math.MaxInt); got != len(want) {
			t.Fatalf("width %d: %d lines, wrapHard makes %d", width, got, len(want))
		}
		for _, from := range []int{0, 1, 255, 256, 257, 1000, len(want) - 3} {
			got := newWrapped(text, width).Lines(from, from+5)
			if strings.Join(got, "\n") != strings.Join(want[from:min(from+5, len(want))], "\n") {
				t.Fatalf("width %d from %d: %q, want %q", width, from, got, want[from:min(from+5, len(want))])
			}
		}
		if strings.Join(w.Lines(0, math.MaxInt), "\n") != strings.Join(want, "\n") {
			t.Fatalf("width %d: all lines differ", width)
		}
	}
}

// Issue 14 item 5: a result of 100 MiB of text opens at the cost of one screen: the
// view wraps only the lines it shows, and still reaches the last line on G.
func TestHugeResultRendersWhatIsVisible(t *testing.T) {
	line := strings.Repeat("0123456789", 10) + "\n"
	text := strings.Repeat(line, (100<<20)/len(line)) + "THE LAST LINE"
	m := newModel(Options{Theme: "dark"})
	defer m.closeSpools()
	m.width, m.height = 120, 40
	setReady(m.srv)
	r := &client.CallResult{Content: []client.Content{{Type: "text", Text: text}}}
	m.current = &outcome{id: 1, tool: client.Tool{Name: "big"}, result: r}
	m.calls = []*outcome{m.current}
	m.tab, m.focus = tabResult, paneRight
	s := m.render()
	if !strings.Contains(s, "0123456789") {
		t.Fatalf("first screen:\n%s", s)
	}
	d := m.result.src.(*doc)
	var w *wrapped
	for _, p := range d.parts {
		if x, ok := p.(*wrapped); ok {
			w = x
		}
	}
	if w == nil {
		t.Fatal("the big text was not wrapped on demand")
	}
	if w.n > 1000 {
		t.Errorf("the first screen wrapped %d lines of the text", w.n)
	}
	m.Update(keyMsg("G"))
	if s := m.render(); !strings.Contains(s, "THE LAST LINE") {
		t.Errorf("G does not show the last line:\n%s", s)
	}
	// A redraw of the result (here a resize to the same size) keeps what was wrapped.
	scanned := w.n
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if s := m.render(); !strings.Contains(s, "THE LAST LINE") {
		t.Errorf("after a redraw the view moved:\n%s", s)
	}
	for _, p := range m.result.src.(*doc).parts {
		if x, ok := p.(*wrapped); ok && (x != w || x.n != scanned) {
			t.Error("a redraw wrapped the text again")
		}
	}
	m.Update(keyMsg("g"))
	if s := m.render(); !strings.Contains(s, "── [1] text") {
		t.Errorf("g does not return to the top:\n%s", s)
	}
}

// A spilled traffic entry reads back as it was.
func TestTrafficCodecRoundTrip(t *testing.T) {
	at := time.Unix(1700000000, 123456789)
	for _, en := range []trafficEntry{
		{e: wire.Event{Time: at, Kind: wire.KindMessage, Dir: wire.Recv, Data: []byte(`{"jsonrpc":"2.0"}`), Framing: "ndjson", Size: 17}, summary: "result for #1"},
		{e: wire.Event{Time: at, Kind: wire.KindMessage, Dir: wire.Recv, Data: []byte(`{}`), Size: 2,
			Head: wire.Head{Shape: wire.ShapeError, ID: `"a"`, Method: "", Name: "n", ErrorCode: -32042}}, summary: `error -32042 for #"a"`},
		{e: wire.Event{Time: at, Kind: wire.KindMessage, Dir: wire.Send, Data: []byte(`{}`), Size: 2,
			Head: wire.Head{Shape: wire.ShapeRequest, ID: "4", Method: "tools/call", Name: "big"}}, summary: "tools/call #4 big"},
		{e: wire.Event{Time: at, Kind: wire.KindClosed, Text: "server exited", Exit: &wire.Exit{Code: -1, Signal: "killed"}}, summary: "closed"},
		{e: wire.Event{Time: at, Kind: wire.KindHTTP, HTTP: &wire.HTTPInfo{Exchange: 3, Method: "POST", URL: "http://x/mcp", Status: 200, Header: map[string][]string{"A": {"b"}}}}, summary: "POST"},
		{},
	} {
		b, err := trafficCodec.Encode(en)
		if err != nil {
			t.Fatal(err)
		}
		got, err := trafficCodec.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if !got.e.Time.Equal(en.e.Time) && !en.e.Time.IsZero() {
			t.Errorf("time %v, want %v", got.e.Time, en.e.Time)
		}
		got.e.Time, en.e.Time = time.Time{}, time.Time{}
		if !reflect.DeepEqual(got, en) {
			t.Errorf("got %+v\nwant %+v", got, en)
		}
		if _, err := trafficCodec.Decode(b[:len(b)/2]); err == nil && len(b) > 2 {
			t.Errorf("a cut entry decoded")
		}
	}
}
