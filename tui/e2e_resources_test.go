package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// In a real terminal, on the bundled host: open Resources (8), read a Markdown
// resource, fill the colours template with completion (te → teal, picked from the
// pick list with ↓ and enter, as in a prompt's form), read the expanded URI.
func TestE2EResourcesHost(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	x := newTmux(t, 120, 40, fmt.Sprintf("sh -c '%s; echo mcpscope-exited:$?; sleep 30'", bin))
	x.waitFor("connected")
	x.keys("8")
	x.waitFor("About the demo host")
	x.keys("/")
	x.typeText("readme")
	x.keys("Enter", "Enter")
	s := x.waitFor("mcpscope bundled host")
	if strings.Contains(s, "# mcpscope bundled host") {
		t.Errorf("the Markdown heading is shown raw:\n%s", s)
	}
	x.escBack("A counter that changes")
	x.typeText("colors/{")
	x.keys("Enter", "Enter")
	x.waitFor("reads mcpscope://demo/colors/")
	x.typeText("te")
	x.waitFor("↓/↑ pick · enter takes it")
	x.waitFor("teal")
	x.keys("Down")
	x.waitFor("▸ teal")
	x.keys("Enter")
	x.waitFor("reads mcpscope://demo/colors/teal")
	x.keys("Enter")
	x.waitFor(`"#008080"`)
	x.keys("q")
	x.waitFor("mcpscope-exited:0")
}

// The same on server-everything: its Markdown documents and its dynamic text
// template, whose resourceId completes.
func TestE2EResourcesEverything(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	argv := testutil.Everything(t)
	x := newTmux(t, 120, 40, fmt.Sprintf("sh -c '%s -- %s; echo mcpscope-exited:$?; sleep 30'", bin, strings.Join(argv, " ")))
	x.waitFor("connected")
	x.keys("8")
	x.waitFor("architecture.md")
	x.keys("/")
	x.typeText("architecture")
	x.keys("Enter", "Enter")
	x.waitFor("Everything Server – Architecture")
	x.escBack("extension.md")
	x.typeText("dynamic/text")
	x.keys("Enter", "Enter")
	x.waitFor("reads demo://resource/dynamic/text/")
	x.typeText("1")
	x.waitFor("↓/↑ pick · enter takes it")
	x.keys("Enter") // nothing picked: enter reads the URI as typed
	x.waitFor("Resource 1: This is a plaintext resource")
	x.keys("q")
	x.waitFor("mcpscope-exited:0")
}

// escBack leaves a read for the list, clears the list's filter and starts another: one esc at a time
// (esc and the key after it, sent together, read as alt+key).
func (x *tmux) escBack(hidden string) {
	x.t.Helper()
	x.keys("Escape")
	x.waitFor("enter reads · u subscribe")
	x.keys("Escape")
	x.waitFor(hidden) // a row the filter hid
	x.keys("/")
}
