package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// A config entry the workbench cannot use (here a name with "__", which
// config.CheckName refuses) is said, with its file, line and the rule, instead of
// being left out silently: at the start (still there once the server connected), and
// again by :add NAME.
func TestEndToEndRefusedConfigEntryIsSaid(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"mcpServers": {
  "good": {"command": %q, "args": ["host"]},
  "mcp__x__y": {"command": %q, "args": ["host"]}
}}`, bin, bin)), 0o600); err != nil {
		t.Fatal(err)
	}
	x := newTmux(t, 160, 40, fmt.Sprintf("sh -c '%s --config %s good; echo mcpscope-exited:$?; sleep 30'", bin, cfg))
	x.waitUntil("the tools and the refusal", func(s string) bool {
		return strings.Contains(s, "pretend_delete") && strings.Contains(s, `mcp.json:3: server name "mcp__x__y" has "__"`)
	})
	x.keys(":")
	x.typeText("add mcp__x__y")
	x.keys("Enter")
	x.waitFor(`mcp.json:3: server name "mcp__x__y" has "__"; a server name is`)
	x.keys("q")
	x.waitFor("mcpscope-exited:0")
}
