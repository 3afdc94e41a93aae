package tui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
)

// call fills the named tool's form with args and calls it, answering y when asked.
func (h *harness) call(tool, args string) {
	h.t.Helper()
	h.selectTool(tool)
	h.press("enter")
	if err := h.m.form.SetValue([]byte(args)); err != nil {
		h.t.Fatal(err)
	}
	n := len(h.m.calls)
	h.press("enter")
	if h.m.ask != nil {
		h.press("y")
	}
	h.until(tool+"'s result", func(m *model) bool { return len(m.calls) == n+1 && !m.calls[n].running })
}

// Issue 9, item 1: a History entry re-runs its own tool even when the list's filter
// hides it and another tool is selected.
func TestHistoryRerunsItsOwnToolUnderAFilter(t *testing.T) {
	h := ready(t, 120, 40)
	h.call("echo", `{"text":"weather"}`)
	h.call("pretend_delete", `{"path":"/tmp/x"}`)
	h.press("tab") // the list
	h.press("/")
	h.typeText("pretend_del")
	h.press("enter")
	if sel, _ := h.m.list.selected(); sel.Name != "pretend_delete" {
		t.Fatalf("selected %s", sel.Name)
	}
	h.press("6", "down") // History, the older row: echo
	h.contains("› HH:MM:SS  ok  echo")
	h.press("enter")
	h.until("the re-run", func(m *model) bool { return len(m.calls) == 3 && !m.calls[2].running })
	if got := h.m.calls[2]; got.tool.Name != "echo" || string(got.args) != `{"text":"weather"}` {
		t.Errorf("History re-ran %s with %s", got.tool.Name, got.args)
	}
	// e opens the entry's own tool with its arguments, even though the filter hid it.
	h.press("6", "down", "down")
	h.press("e")
	if h.m.formTool != "echo" {
		t.Errorf("e opened the form of %q", h.m.formTool)
	}
	if v, _ := h.m.form.Value(); string(v) != `{"text":"weather"}` {
		t.Errorf("e loaded %s", v)
	}
}

// Item 1: a tool that is gone is said to be gone, and nothing is called.
func TestHistoryRerunOfAToolThatIsGone(t *testing.T) {
	h := ready(t, 120, 40)
	h.call("echo", `{"text":"x"}`)
	var keep []client.Tool
	for _, tl := range h.m.list.tools {
		if tl.Name != "echo" {
			keep = append(keep, tl)
		}
	}
	h.m.list.setTools(keep) // as after a list_changed that dropped it
	h.press("tab", "6", "enter")
	h.contains("echo is not in the server's tool list any more; nothing was called")
	if len(h.m.calls) != 1 {
		t.Errorf("%d calls", len(h.m.calls))
	}
}

// Item 2: re-running a destructive tool from History asks first, as the form does.
func TestHistoryRerunOfADestructiveToolAsks(t *testing.T) {
	h := ready(t, 120, 40)
	h.call("pretend_delete", `{"path":"/tmp/x"}`)
	h.press("tab", "6", "enter")
	h.contains(`pretend_delete is destructive. Call it with {"path":"/tmp/x"}? y/n`)
	if len(h.m.calls) != 1 {
		t.Fatal("History re-ran a destructive tool without asking")
	}
	h.press("n")
	h.contains("call not sent")
	h.press("enter", "y")
	h.until("the confirmed re-run", func(m *model) bool { return len(m.calls) == 2 && !m.calls[1].running })
}

// Item 6: after scrolling one result, the next opens at its top.
func TestNewResultOpensAtItsTop(t *testing.T) {
	h := ready(t, 120, 40)
	h.call("echo", `{"text":"short"}`)
	h.press("j") // on a short result
	h.call("echo", `{"text":"`+strings.Repeat("line ", 10)+`"}`)
	long := strings.Repeat(`line\n`, 200)
	h.call("echo", `{"text":"first `+long+`"}`)
	h.contains("first line")
}

// Item 7: esc in the tool list clears the filter, as its hint says, and leaves a
// running call alone; x in the Result view cancels it.
func TestEscClearsTheFilterAndXCancels(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("slow")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"steps":200,"delayMs":50}`))
	h.press("enter")
	h.until("progress", func(m *model) bool { return m.current != nil && m.current.progress != nil })
	h.press("tab") // to the list, its filter still /slow
	h.contains("(esc clears)")
	h.press("esc")
	if h.m.list.filter != "" {
		t.Errorf("esc left the filter %q", h.m.list.filter)
	}
	if !h.m.current.running || h.m.current.cancelled {
		t.Fatal("esc in the tool list cancelled the call")
	}
	h.press("2")
	h.contains("x cancels")
	h.press("x")
	h.until("the cancel", func(m *model) bool { return !m.current.running })
	if s := h.screen(); strings.Contains(s, "context canceled") {
		t.Errorf("the raw context error is shown:\n%s", s)
	}
}

// Item 7: a call that has run for a while is cancelled only after a y.
func TestCancellingALongCallAsks(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("slow")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"steps":200,"delayMs":50}`))
	h.press("enter")
	h.until("progress", func(m *model) bool { return m.current != nil && m.current.progress != nil })
	h.m.current.started = h.m.current.started.Add(-time.Minute) // as if it ran a minute
	h.press("x")
	h.contains("Cancel slow? It has run for")
	h.press("n")
	if h.m.current.cancelled {
		t.Fatal("cancelled although the user said no")
	}
	h.press("x", "y")
	h.until("the cancel", func(m *model) bool { return !m.current.running && m.current.cancelled })
}

// Smaller: q during a running call asks first.
func TestQuitDuringACallAsks(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("slow")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"steps":200,"delayMs":50}`))
	h.press("enter")
	h.until("progress", func(m *model) bool { return m.current != nil && m.current.progress != nil })
	_, cmd := h.m.Update(keyMsg("q"))
	if cmd != nil {
		t.Fatal("q quit at once during a running call")
	}
	h.contains("1 call(s) still running. Quit anyway")
	_, cmd = h.m.Update(keyMsg("y"))
	if cmd == nil {
		t.Fatal("y did not quit")
	}
}

// Item 10: after a failed start, Traffic and Stderr can be reached, and the failure
// shows the first stderr lines as well as the last.
func TestFailedStartKeepsTheDiagnostics(t *testing.T) {
	h := newHarness(t, client.Target{Argv: testutil.FakeServer(t, "exit-at-once")}, 100, 30)
	h.until("the failure", func(m *model) bool { return m.srv.state == stateFailed })
	h.contains("Could not connect", "missing configuration FOO_TOKEN", "1 Tool", "5 Stderr")
	h.press("5")
	h.until("stderr in its tab", func(m *model) bool { return strings.Contains(h.screen(), "FOO_TOKEN") })
	h.press("3")
	h.contains("events")
	if err := h.m.exitError(); err == nil || !strings.Contains(err.Error(), "could not connect") {
		t.Errorf("quitting after a failed start gives %v, want an error (exit 1)", err)
	}
}

// Item 10: a cause printed first survives a long trace after it.
func TestFailureShowsTheFirstAndLastStderrLines(t *testing.T) {
	h := newHarness(t, client.Target{Argv: testutil.FakeServer(t, "exit-verbose")}, 100, 30)
	h.until("the failure", func(m *model) bool { return m.srv.state == stateFailed })
	h.until("the stderr lines", func(m *model) bool { return len(m.stderr) >= 62 })
	h.contains("the cause: cannot open database notes.db", "fakemcp: giving up", "more lines (5 shows them all)")
}

// Item 11: mcpscope open says it shows a recording, in the status bar and on every
// answer that came from it (recorded calls, and new calls the mock answers).
func TestOpenMarksTheRecording(t *testing.T) {
	file := filepath.Join(testutil.Root(), "testdata", "host-demo.jsonl")
	rec, err := record.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, Options{
		Target: client.Target{Argv: []string{testutil.Mcpscope(t), "serve", file}},
		Name:   "recording", Theme: "dark", Browse: rec,
	}, 140, 40)
	h.until("the mock's tools", func(m *model) bool { return len(m.list.tools) > 0 })
	h.contains("▶ RECORDING, answers are recorded")
	h.press("2")
	h.contains("▶ recorded: this call and its answer come from the recording")
	h.call("echo", `{"text":"hello"}`)
	h.contains("▶ answered from the recording")
	h.press("6")
	h.contains("▶ ok")
}

// Item 9: an HTTP session whose server died says disconnected (and offers ctrl+r),
// over Streamable HTTP (fastmcp) and legacy SSE (server-everything).
func TestHTTPStatusFollowsTheTransport(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(testing.TB) *testutil.NodeServer
		path  string
	}{
		{"streamable fastmcp", testutil.FastMCPHTTP, "/mcp"},
		{"legacy sse everything", func(t testing.TB) *testutil.NodeServer { return testutil.EverythingHTTP(t, "sse") }, "/sse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.start(t)
			h := newHarness(t, client.Target{URL: "http://" + srv.Addr + tc.path}, 120, 40)
			h.until("the tools", func(m *model) bool { return len(m.list.tools) > 0 && m.srv.state == stateReady })
			h.contains("connected")
			srv.Kill()
			h.until("disconnected", func(m *model) bool { return m.srv.state == stateLost })
			h.contains("disconnected (ctrl+r reconnects)", "Disconnected", "ctrl+r restarts")
		})
	}
}
