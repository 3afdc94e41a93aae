package tui

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/target"
)

var sizes = []struct{ w, h int }{{80, 24}, {120, 40}}

// ready connects a harness to the bundled host (given the host's flags) and waits for
// the tool list and for every wire event of the connect (the answer to tools/list
// among them) to be in the model, so that a screen taken next does not depend on when
// a batch arrived.
func ready(t *testing.T, w, h int, hostFlags ...string) *harness {
	hs := newHarness(t, hostTarget(t, hostFlags...), w, h)
	hs.until("the tool list and the connect's traffic", func(m *model) bool {
		return len(m.list.tools) > 0 && hs.caughtUp(m) &&
			// In the 2026 era the workbench subscribes to list changes; the server's
			// acknowledgement comes when it comes, so wait for it too.
			(m.srv.info().Era != client.EraModern || sawMethod(m, "notifications/subscriptions/acknowledged"))
	})
	return hs
}

// sawMethod reports whether Traffic holds a message with this method.
func sawMethod(m *model, method string) bool {
	for i := 0; i < m.traffic.entries.Len(); i++ {
		e := m.traffic.entries.At(i)
		if e.summary == method || strings.HasPrefix(e.summary, method+" ") {
			return true
		}
	}
	return false
}

// selectTool filters the list down to one tool by name, as a user types it.
func (h *harness) selectTool(name string) {
	if h.m.focus != paneList {
		h.press("tab") // back to the list, as a user would
	}
	h.press("/")
	h.typeText(name)
	h.press("enter")
	// The fuzzy ranking may put another match first; pick the exact one (server/tool
	// when there are several servers).
	server, tool, ok := strings.Cut(name, "/")
	if !ok {
		server, tool = h.m.srv.name, name
	}
	h.m.selectTool(server, tool)
}

func TestScreens(t *testing.T) {
	for _, sz := range sizes {
		sz := sz
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			t.Parallel()
			t.Run("tools", func(t *testing.T) {
				h := ready(t, sz.w, sz.h)
				h.contains("Tools 22", "pretend_delete", "DESTR", "modern 2026-07-28", "connected")
				golden.RequireEqual(t, h.screen())
			})
			t.Run("filter", func(t *testing.T) {
				h := ready(t, sz.w, sz.h)
				h.press("/")
				h.typeText("pret")
				h.contains("/pret", "pretend_delete", "pretend_search")
				if strings.Contains(h.screen(), "random_id") {
					t.Error("the filter kept a tool that does not match")
				}
				golden.RequireEqual(t, h.screen())
			})
			t.Run("result", func(t *testing.T) {
				h := ready(t, sz.w, sz.h)
				h.selectTool("add")
				h.press("enter") // open the form
				h.m.form.SetValue([]byte(`{"a":2,"b":40}`))
				h.press("enter") // call
				h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && !m.current.checking })
				h.contains("structuredContent", "✓ matches outputSchema", "42")
				golden.RequireEqual(t, h.screen())
			})
			t.Run("traffic", func(t *testing.T) {
				// No golden: the server's notifications and the answers to concurrent
				// requests may interleave either way on the wire.
				h := ready(t, sz.w, sz.h)
				h.press("3")
				h.contains("server/discover #1", "→", "←", "tools/list #", "result for #1", "d cycles")
				// Open the first frame: which frame is the newest depends on when the
				// server's subscription acknowledgement came.
				h.press("g", "enter")
				h.contains("server/discover #1", "esc closes", `"jsonrpc": "2.0"`)
			})
			t.Run("form", func(t *testing.T) {
				h := ready(t, sz.w, sz.h)
				h.selectTool("rich_form")
				h.press("enter")
				h.contains("Arguments", "count")
				golden.RequireEqual(t, h.screen())
			})
			t.Run("history", func(t *testing.T) {
				h := ready(t, sz.w, sz.h)
				h.selectTool("echo")
				h.press("enter")
				h.m.form.SetValue([]byte(`{"text":"one"}`))
				h.press("enter")
				h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && !m.current.checking })
				h.press("tab", "6")
				h.contains(`{"text":"one"}`, "enter re-runs")
				golden.RequireEqual(t, h.screen())
			})
			t.Run("logs", func(t *testing.T) {
				h := ready(t, sz.w, sz.h)
				h.selectTool("log")
				h.press("enter", "enter")
				h.until("eight log messages and the result", func(m *model) bool {
					return m.logs.len() >= 8 && m.current != nil && !m.current.running
				})
				h.press("tab", "4")
				h.contains("debug", "emergency")
				golden.RequireEqual(t, h.screen())
			})
			t.Run("stderr", func(t *testing.T) {
				h := ready(t, sz.w, sz.h)
				h.press("5")
				h.contains("nothing to stderr")
				golden.RequireEqual(t, h.screen())
			})
			t.Run("help", func(t *testing.T) {
				h := ready(t, sz.w, sz.h)
				h.press("?")
				h.contains("Keys", "quit", "filter")
				golden.RequireEqual(t, h.screen())
			})
		})
	}
}

func TestToolErrorIsNotAProtocolError(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("fail")
	h.press("enter", "enter")
	h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && !m.current.checking })
	h.contains("Tool error (isError: true)")
	if strings.Contains(h.screen(), "JSON-RPC error") {
		t.Error("a tool error is shown as a JSON-RPC error")
	}
}

// bad_output is one of the host's deliberate protocol faults, served with --faults
// only: its structuredContent gives count as a string where its outputSchema says
// integer.
func TestStructuredContentViolationsAreShown(t *testing.T) {
	h := ready(t, 120, 40, "--faults")
	h.selectTool("bad_output")
	h.press("enter", "enter")
	h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && !m.current.checking })
	h.contains("outputSchema violation", "✗ /count")
}

func TestProgressAndCancel(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("slow")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"steps":200,"delayMs":50}`))
	h.press("enter")
	h.until("progress", func(m *model) bool { return m.current != nil && m.current.progress != nil })
	h.contains("running", "x cancels", "step")
	h.press("x")
	h.until("the cancel", func(m *model) bool { return !m.current.running })
	// The host stops at once and may still answer: that answer is shown as late.
	if s := h.screen(); !strings.Contains(s, "Cancelled: notifications/cancelled was sent") && !strings.Contains(s, "late: arrived after you cancelled") {
		t.Errorf("the cancel is not shown:\n%s", s)
	}
	if !h.m.current.cancelled {
		t.Error("the call is not marked cancelled")
	}
	h.press("3")
	h.until("notifications/cancelled on the wire", func(m *model) bool {
		return strings.Contains(h.screen(), "notifications/cancelled")
	})
}

func TestDestructiveToolsAskFirst(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("pretend_delete")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"path":"/tmp/x"}`))
	h.press("enter")
	h.contains("pretend_delete is destructive. Call it with {\"path\":\"/tmp/x\"}? y/n")
	h.press("n")
	if len(h.m.calls) != 0 {
		t.Fatal("the call was sent although the user said no")
	}
	h.press("enter", "y")
	h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && !m.current.checking })
	if h.m.current.tool.Name != "pretend_delete" {
		t.Errorf("called %s", h.m.current.tool.Name)
	}
}

func TestHistoryRerun(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("echo")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"text":"once"}`))
	h.press("enter")
	h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && !m.current.checking })
	h.press("tab") // back to the list side
	h.press("6")
	h.contains("echo", `{"text":"once"}`)
	h.press("enter")
	h.until("the re-run", func(m *model) bool { return len(m.calls) == 2 && !m.calls[1].running })
	if string(h.m.calls[1].args) != `{"text":"once"}` {
		t.Errorf("re-run sent %s", h.m.calls[1].args)
	}
}

func TestLogsView(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("log")
	h.press("enter", "enter")
	h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && !m.current.checking })
	h.until("log messages", func(m *model) bool { return m.logs.len() >= 8 })
	h.press("tab", "4")
	h.contains("debug", "emergency")
}

func TestConnectFailureShowsStderrAndRetries(t *testing.T) {
	h := newHarness(t, target.Target{Argv: testutil.FakeServer(t, "exit-at-once")}, 100, 30)
	h.until("the failure", func(m *model) bool { return m.srv.state() == stateFailed })
	h.contains("Could not connect", "missing configuration FOO_TOKEN", "ctrl+r restarts")
	h.press("ctrl+r")
	h.until("the second failure", func(m *model) bool { return m.srv.state() == stateFailed && m.srv.gen() == 2 })
}

func TestServerDeathIsReportedAndRestartKeepsHistory(t *testing.T) {
	h := newHarness(t, target.Target{Argv: testutil.FakeServer(t, "ndjson")}, 100, 30)
	h.until("the tools", func(m *model) bool { return len(m.list.tools) > 0 })
	h.selectTool("crash")
	h.press("enter", "enter")
	h.until("the death", func(m *model) bool { return m.srv.state() == stateDied })
	h.contains("The server stopped", "exited with code 3", "ctrl+r")
	h.press("ctrl+r")
	h.until("the restart", func(m *model) bool { return m.srv.state() == stateReady })
	if len(h.m.calls) != 1 {
		t.Errorf("history lost: %d calls", len(h.m.calls))
	}
}

func TestReadLinkedResources(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("resource_links")
	h.press("enter", "enter")
	h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && !m.current.checking })
	h.contains("resource_link", "o reads the linked resource")
	h.press("o")
	h.until("the linked resources", func(m *model) bool { return len(m.current.linked) > 0 })
	for _, l := range h.m.current.linked {
		if l.err != nil {
			t.Errorf("reading %s: %v", l.uri, l.err)
		}
	}
	h.contains("── read mcpscope://")
}

// The server asks for input mid-call: elicitation/create in the 2025 era,
// input_required in 2026-07-28. Both open a form built from the requested schema.
func TestElicitationInBothEras(t *testing.T) {
	for _, protocol := range []string{"", "2025-11-25"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			h := newHarness(t, hostTarget(t), 120, 40)
			if protocol != "" {
				h.m.opts.Client.Protocol = protocol
				h.run(h.m.connect())
			}
			h.until("the tools", func(m *model) bool { return len(m.list.tools) > 0 && m.srv.state() == stateReady })
			h.selectTool("ask")
			h.press("enter", "enter")
			h.until("the question", func(m *model) bool { return elicitOf(m) != nil })
			h.contains("The server asks for input", "enter accepts")
			if err := elicitOf(h.m).form.SetValue([]byte(`{"name":"Ada","colour":"green"}`)); err != nil {
				t.Fatal(err)
			}
			h.press("enter")
			h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && !m.current.checking })
			h.contains("Ada")
		})
	}
}

// mcpscope open: a recording's calls in History and its traffic, with the recording
// served as a mock so its tools can be browsed.
func TestOpenRecording(t *testing.T) {
	file := filepath.Join(testutil.Root(), "testdata", "host-demo.jsonl")
	rec, err := record.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, Options{
		Target: target.Target{Argv: []string{testutil.Mcpscope(t), "serve", file}},
		Name:   "recording", Theme: "dark", Browse: rec,
	}, 120, 40)
	h.until("the mock's tools", func(m *model) bool { return len(m.list.tools) > 0 })
	if len(h.m.calls) < 10 {
		t.Fatalf("%d recorded calls in History", len(h.m.calls))
	}
	h.press("6")
	h.contains("rich_form", "tool error", "toggle_tool")
	h.press("3")
	h.contains("tools/call #", "notifications/progress")
	// A recorded call runs again against the mock and gets the recorded answer.
	h.selectTool("echo")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"text":"hello"}`))
	h.press("enter")
	h.until("the mock's answer", func(m *model) bool { return m.current != nil && !m.current.running && m.current.tool.Name == "echo" })
	if h.m.current.err != nil {
		t.Errorf("mock answer: %v", h.m.current.err)
	}
}
