package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// Issue 19, item 4: a server that went idle (--idle-disconnect) before Resources,
// Prompts or the Servers tab's counts were first shown is reconnected by showing
// them, as a call reconnects it: they list what it offers instead of "No connected
// server offers resources" or counts that never come.
func TestEndToEndIdleServerListsWhenAViewOpens(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	x := newTmux(t, 140, 40, fmt.Sprintf("sh -c '%s --idle-disconnect 1s; echo mcpscope-exited:$?; sleep 30'", bin))
	x.waitFor("echo")
	idle := func() { x.waitFor("idle (the next call reconnects)") }

	idle()
	x.keys("8")
	x.waitUntil("the resources listed", func(s string) bool {
		return strings.Contains(s, "readme") && !strings.Contains(s, "No connected server")
	})

	idle()
	x.keys("9")
	x.waitUntil("the prompts listed", func(s string) bool {
		return strings.Contains(s, "summarize") && !strings.Contains(s, "No connected server")
	})

	idle()
	x.keys("7")
	counted := regexp.MustCompile(`resources \d+  prompts \d+`)
	x.waitUntil("the server's counts", func(s string) bool { return counted.MatchString(s) })

	x.keys("q")
	x.waitFor("mcpscope-exited:0")
}
