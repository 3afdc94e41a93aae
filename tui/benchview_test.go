package tui

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
)

// benchHarness is the bundled host on screen, with the tools/call requests sent to
// it counted on a tap of the test's own.
func benchHarness(t *testing.T) (*harness, *atomic.Int64) {
	var calls atomic.Int64
	tap := &wire.Tap{}
	tap.Listen(func(e wire.Event) {
		if e.Kind == wire.KindMessage && e.Dir == wire.Send && e.Method == "tools/call" {
			calls.Add(1)
		}
	})
	h := newHarnessWith(t, Options{Target: hostTarget(t), Name: "bundled host", Theme: "dark", Client: client.Options{Tap: tap}}, 140, 45)
	h.until("the tool list", func(m *model) bool { return len(m.list.tools) > 0 })
	return h, &calls
}

// ctrl+b in a tool's form asks, naming the tool and the server, then benches it with
// what was typed: the Bench view shows the calls counting and the histogram while it
// runs, and the whole report at the end.
func TestBenchKeyRunsAShortBenchLive(t *testing.T) {
	h, sent := benchHarness(t)
	h.selectTool("slow")
	h.press("enter") // the form has the keyboard
	h.m.form.SetValue([]byte(`{"steps":1,"delayMs":50}`))
	h.press("ctrl+b")
	q := h.screen()
	for _, want := range []string{"Bench slow on ", "200 calls, 4 at a time", `"delayMs":50`, "y/n"} {
		if !strings.Contains(q, want) {
			t.Fatalf("the question lacks %q:\n%s", want, q)
		}
	}
	if sent.Load() != 0 {
		t.Fatalf("%d calls sent before the answer", sent.Load())
	}
	h.press("y")
	// 210 calls of 50 ms, four at a time: the run lasts seconds, and the screen shows
	// it as it goes.
	h.until("the bench under way", func(m *model) bool {
		return m.tab == tabBench && m.bench.running && m.bench.res != nil && m.bench.res.Calls > 0
	})
	h.contains("of 200 calls", "latency (log scale; ◂ p99)", "│")
	h.until("the bench's end", func(m *model) bool { return !m.bench.running })
	h.contains("Bench", "done · with", "200 in ", "200 ok, 0 failed", "first byte", "p99 ", "◂", "calls/s over the run")
	if n := sent.Load(); n != 210 {
		t.Errorf("%d tools/call sent, want 200 and 10 of warm-up", n)
	}
}

// b on a tool that is not marked read-only says so, naming it and its server; no
// refuses it (nothing is sent), yes benches it.
func TestBenchKeyAsksBeforeAToolThatWrites(t *testing.T) {
	h, sent := benchHarness(t)
	h.selectTool("random_id")
	h.press("b")
	h.contains("random_id on ", "is not marked read-only", "calls it 210 times", "Bench it anyway")
	h.press("n")
	h.contains("bench not started")
	if sent.Load() != 0 || h.m.bench.tool != "" {
		t.Fatalf("refused, yet %d calls were sent (bench of %q)", sent.Load(), h.m.bench.tool)
	}
	h.press("b")
	h.press("y")
	h.until("the bench's end", func(m *model) bool { return m.bench.res != nil && !m.bench.running })
	if r := h.m.bench.res; r.Calls != 200 || r.OK != 200 || sent.Load() != 210 {
		t.Errorf("%d calls, %d ok, %d sent; want 200 ok of 210 sent", r.Calls, r.OK, sent.Load())
	}
	h.contains("200 ok, 0 failed")
}
