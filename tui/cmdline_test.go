package tui

import (
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/workbench"
)

// Issue 10 bad input on the command line: each mistake gets one clear message, and
// the session's server goes on.
func TestCommandLineBadInput(t *testing.T) {
	target := hostTarget(t)
	h := newHarnessWith(t, Options{
		Servers:    []workbench.Spec{{Name: "a", Target: target}},
		Configured: []workbench.Spec{{Name: "extra", Target: target, Source: workbench.SourceConfig}},
		Theme:      "dark",
	}, 140, 40)
	h.until("a's tools", func(m *model) bool { return len(m.list.tools) > 0 })
	run := func(line, want string) {
		t.Helper()
		h.press(":")
		h.typeText(line)
		h.press("enter")
		h.until("the message for "+line, func(m *model) bool { return strings.Contains(m.notice, want) })
	}
	run("add x/y -- true", `has a "/"`)
	run("add a -- true", `already a server named "a"`)
	run("add nope", `no configured server is named "nope"; configured: extra`)
	run("add b c", "give a URL, or a command after --")
	run("remove a", "it is the only server of the session")
	run("restart zz", `no server "zz" in the session; it has: a`)
	run("frobnicate a", `unknown command "frobnicate"`)
	// A command that cannot start: its row says failed, a stays connected.
	run("add bad -- /nonexistent/mcp-server", "bad failed")
	if s := h.m.server("a"); s == nil || s.state() != stateReady {
		t.Errorf("a is not connected after the bad add")
	}
	h.press("7")
	h.contains("✗ failed")
	// Tab completes a configured name; nothing is written anywhere.
	h.press(":")
	h.typeText("add ex")
	h.press("tab")
	if cmdOf(h.m) == nil || cmdOf(h.m).text != "add extra " {
		t.Fatalf("tab completed to %+v", cmdOf(h.m))
	}
	h.press("enter")
	h.until("extra's tools", func(m *model) bool {
		s := m.server("extra")
		return s != nil && len(s.tools()) > 0
	})
	h.press("tab")
	h.contains("▾ extra", "extra/echo")
}
