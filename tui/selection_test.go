package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// Issue 19: never the wrong tool, the wrong server or the wrong arguments. A call
// goes to the (server, tool, schema) its form was built for; nothing else (a row
// index, a refresh, a restart) decides where it goes.

// twoHosts starts the screen on two bundled hosts, a and b, with both tool lists in.
func twoHosts(t *testing.T) *harness {
	t.Helper()
	opts := Options{Theme: "dark", Servers: []workbench.Spec{
		{Name: "a", Target: hostTarget(t)}, {Name: "b", Target: hostTarget(t)},
	}}
	h := newHarnessWith(t, opts, 120, 40)
	h.until("both servers' tools", func(m *model) bool {
		_, a := m.toolByName("a", "echo")
		_, b := m.toolByName("b", "slow")
		return a && b && m.server("a").state() == stateReady && m.server("b").state() == stateReady
	})
	return h
}

// Item 1, the ctrl+r variant: restarting a while its echo form holds text keeps the
// selection and the form on a/echo; enter while a is down says so and sends nothing;
// once a is back the call goes to a/echo.
func TestRestartKeepsTheSelectionAndTheFormOwner(t *testing.T) {
	h := twoHosts(t)
	// The user's own choice, with the arrows: a/echo, the sixth of a's tools (add,
	// ask, audio, big, bump, echo).
	h.press("down", "down", "down", "down", "down")
	if s, n := h.m.list.selectedKey(); s != "a" || n != "echo" {
		t.Fatalf("selected %s/%s, want a/echo", s, n)
	}
	h.press("enter")
	h.typeText("hi there")
	if h.m.formSrv != "a" || h.m.formTool != "echo" {
		t.Fatalf("the form is %s/%s's", h.m.formSrv, h.m.formTool)
	}

	h.press("ctrl+r")
	if q := questionOf(h.m); q == nil || !strings.Contains(q.shown(), "Restart a?") {
		t.Fatalf("ctrl+r asked %v", questionOf(h.m))
	}
	h.press("y")
	h.until("a restarting", func(m *model) bool { return m.server("a").state() == stateConnecting })
	if s, n := h.m.list.selectedKey(); s != "a" || n != "echo" {
		t.Errorf("while a restarts the selection is %s/%s, want a/echo", s, n)
	}
	if h.m.formSrv != "a" || h.m.formTool != "echo" {
		t.Errorf("while a restarts the form is %s/%s's", h.m.formSrv, h.m.formTool)
	}
	h.contains("a/echo", "hi there")
	h.press("enter")
	if len(h.m.calls) != 0 {
		t.Fatalf("enter while a restarts sent %s/%s %s", h.m.calls[0].server, h.m.calls[0].tool.Name, h.m.calls[0].args)
	}
	if !strings.Contains(h.m.notice, "a is connecting") {
		t.Errorf("enter while a restarts said %q", h.m.notice)
	}

	h.until("a back", func(m *model) bool { return m.server("a").state() == stateReady && len(m.server("a").tools()) > 0 })
	if s, n := h.m.list.selectedKey(); s != "a" || n != "echo" {
		t.Errorf("after the restart the selection is %s/%s, want a/echo", s, n)
	}
	if v, _ := h.m.form.Value(); h.m.formSrv != "a" || string(v) != `{"text":"hi there"}` {
		t.Fatalf("after the restart the form is %s/%s's holding %s", h.m.formSrv, h.m.formTool, v)
	}
	h.press("enter")
	h.until("the call's answer", func(m *model) bool { return len(m.calls) == 1 && !m.calls[0].running })
	if o := h.m.calls[0]; o.server != "a" || o.tool.Name != "echo" || string(o.args) != `{"text":"hi there"}` {
		t.Errorf("the call went to %s/%s with %s", o.server, o.tool.Name, o.args)
	}
}

// Item 6: esc that clears the filter keeps the selected tool selected, from the
// filter field and from the list.
func TestClearingTheFilterKeepsTheSelection(t *testing.T) {
	h := newHarness(t, hostTarget(t), 120, 40)
	h.until("the tools", func(m *model) bool { _, ok := m.toolByName("main", "slow"); return ok })
	for _, keys := range [][]string{{"esc"}, {"enter", "esc"}} {
		h.press("/")
		h.typeText("slow")
		if t0, _ := h.m.list.selected(); t0.Name != "slow" {
			t.Fatalf("the filter selected %q", t0.Name)
		}
		h.press(keys...)
		if h.m.list.filter != "" {
			t.Fatalf("%v left the filter %q", keys, h.m.list.filter)
		}
		if t0, _ := h.m.list.selected(); t0.Name != "slow" || h.m.formTool != "slow" {
			t.Errorf("after / slow %v the selection is %q (form of %q), want slow", keys, t0.Name, h.m.formTool)
		}
		if !strings.Contains(h.screen(), "› slow") {
			t.Errorf("after / slow %v the screen shows:\n%s", keys, h.screen())
		}
	}
}

// findTools is a tool file with one tool, find, of the given input schema.
func findTools(schema string) string {
	return `{"tools":[{"name":"find","description":"finds","inputSchema":` + schema + `,"run":["/bin/echo","found"]}]}`
}

// Item 3: the server's tools change (the bundled host reloads its tool file and sends
// tools/list_changed): q became an integer and n became required. The open form is
// rebuilt from the new schema, says what it dropped, and enter refuses what no
// longer fits instead of sending {"q":"hello"}.
func TestSchemaChangeRebuildsTheForm(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tools.json")
	v1 := `{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer"}}}`
	v2 := `{"type":"object","properties":{"q":{"type":"integer"},"n":{"type":"integer"}},"required":["n"]}`
	if err := os.WriteFile(file, []byte(findTools(v1)), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, target.Target{Argv: []string{testutil.Mcpscope(t), "host", "--tools", file}}, 120, 40)
	h.until("find", func(m *model) bool { _, ok := m.toolByName("main", "find"); return ok })
	h.press("enter")
	h.typeText("hello")
	if v, _ := h.m.form.Value(); string(v) != `{"q":"hello"}` {
		t.Fatalf("typed %s", v)
	}
	editLikeAnEditor(t, file, findTools(v2))
	h.until("the new schema", func(m *model) bool {
		tl, _ := m.toolByName("main", "find")
		return strings.Contains(string(tl.InputSchema), `"required"`)
	})
	h.contains(`schema changed: q is now integer ("hello" dropped); n is now required`)
	if v, _ := h.m.form.Value(); strings.Contains(string(v), "hello") {
		t.Errorf("the rebuilt form holds %s", v)
	}
	h.press("enter")
	if len(h.m.calls) != 0 {
		t.Fatalf("enter sent %s", h.m.calls[0].args)
	}
	if !strings.Contains(h.m.notice, "argument error") || !strings.Contains(h.m.notice, "alt+enter") {
		t.Errorf("enter said %q", h.m.notice)
	}
	h.contains("q       integer", "n*     integer", "✗ required")
}
