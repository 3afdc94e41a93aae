package tui

import (
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// A config entry mcpscope cannot use is on the Servers view (7) with why, and
// ":add NAME" says why it cannot be added; before, only the start's notice said the
// first one, and the Servers view did not list it at all.
func TestUnusableConfigEntryIsOnTheServersView(t *testing.T) {
	target := hostTarget(t)
	const why = `broken (.mcp.json:3): needs ${env:TOKEN}, which has no value`
	h := newHarnessWith(t, Options{
		Servers: []workbench.Spec{{Name: "a", Target: target}, {Name: "b", Target: target}},
		Refused: []Refused{{Name: "broken", Why: why}},
		Theme:   "dark",
	}, 160, 40)
	h.until("the tools", func(m *model) bool { return len(m.list.tools) > 0 })
	h.press("7")
	h.contains("broken", "not in the session", "needs ${env:TOKEN}, which has no value")
	h.press(":")
	h.typeText("add broken")
	h.press("enter")
	h.until("the answer to :add broken", func(m *model) bool { return m.notice != "" && !strings.HasPrefix(m.notice, "config entry left out") })
	if !strings.Contains(h.m.notice, "cannot add broken: ") || !strings.Contains(h.m.notice, "needs ${env:TOKEN}") {
		t.Errorf(":add broken said %q", h.m.notice)
	}
}

// A server that fails before it lists any tool has its header in the tool list, with
// its state and error: before, it was missing from the list, as if not in the session.
func TestServerFailedBeforeListingShowsItsHeader(t *testing.T) {
	h := newHarnessWith(t, Options{
		Servers: []workbench.Spec{
			{Name: "good", Target: hostTarget(t)},
			{Name: "dead", Target: target.Target{Argv: []string{"/nonexistent/mcp-server"}}},
		},
		Theme: "dark",
	}, 140, 40)
	h.until("good's tools and dead's failure", func(m *model) bool {
		s := m.server("dead")
		return len(m.list.tools) > 0 && s != nil && s.state() == stateFailed
	})
	h.contains("▾ good", "▾ dead failed", "nonexistent")
}
