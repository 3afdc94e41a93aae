package tui

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/shquote"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// mcpscope attach in a real terminal: a live tap's session (a real session of the
// bundled host, fed through the tap's Publisher in steps) shows the host's call while
// it runs and its answer when it comes, marked as someone else's and read-only; when
// the tap finishes the screen says so, and quitting leaves nothing running.
func TestEndToEndAttachShowsALiveCall(t *testing.T) {
	runtime := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime) // the test's Publisher and the binary share the registry
	bin := testutil.Mcpscope(t)
	feed := newTapFeed(t, "demo", []string{bin, "host"}, "typed in the host")
	feed.through(t, `"tools/list"`)

	x := newTmux(t, 160, 40, fmt.Sprintf("sh -c 'XDG_RUNTIME_DIR=%s %s attach; echo mcpscope-exited:$?; sleep 30'", shquote.Quote(runtime), bin))
	x.waitFor("⇄ tap demo")
	x.waitFor("someone else's session, read-only · live")
	x.keys("3")
	x.waitFor("tap:demo │ tools/list")

	feed.through(t, `"tools/call"`)
	x.keys("2")
	x.waitFor("echo running")
	x.waitFor("the host's call through tap:demo: read-only")

	feed.through(t, `"typed in the host"}]`)
	x.waitFor("typed in the host")

	feed.through(t, "")
	feed.pub.Close()
	x.waitFor("read-only · finished")

	// Watching started nothing: no process under mcpscope.
	shell := x.panePID()
	for _, pid := range descendants(shell) {
		if b := procCmdline(pid); strings.Contains(b, " host") {
			t.Errorf("a server process runs under the watching workbench: %d %s", pid, b)
		}
	}
	x.keys("q")
	x.waitFor("mcpscope-exited:0")
}

// procCmdline is a process's command line, its words joined by spaces.
func procCmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.ReplaceAll(string(b), "\x00", " ")
}
