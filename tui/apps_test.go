package tui

import (
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/target"
)

// A tool with an MCP Apps view (the official ext-apps helpers' server) wears an APP
// badge in the list, and its Tool view names the view's ui:// resource and who calls
// the tool; a tool without a view wears none.
func TestAppToolBadgeAndDetail(t *testing.T) {
	t.Parallel()
	h := newHarness(t, target.Target{Argv: testutil.NodeStdio(t, "apps-server.mjs")}, 120, 30)
	h.until("the tools", func(m *model) bool { return len(m.srv.tools()) == 4 })
	for _, tc := range []struct {
		tool string
		app  bool
	}{{"weather", true}, {"broken_app", true}, {"plain", false}} {
		row := screenLine(h, "  "+tc.tool+" ")
		if row == "" {
			row = screenLine(h, "› "+tc.tool+" ")
		}
		if got := strings.Contains(row, "APP"); got != tc.app {
			t.Errorf("the row of %s: %q (APP badge: %v, want %v)\n%s", tc.tool, row, got, tc.app, h.screen())
		}
	}
	h.selectTool("weather")
	h.contains("App view  ui://weather/view.html", "visibility: model, app; its HTML is a resource")
}
