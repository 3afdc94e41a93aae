package tui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpscope/mcpscope/internal/shquote"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// Issue 23, target 5: a workbench that went idle gives its free heap back to the
// system (package idlemem) instead of sitting on twice what it holds live for as long
// as it stays open. The runtime's trace marks the collection that does it "(forced)":
// nothing else in an idle workbench forces one.
func TestEndToEndIdleWorkbenchGivesItsFreeHeapBack(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	trace := filepath.Join(t.TempDir(), "gctrace")
	x := newTmux(t, 120, 40, fmt.Sprintf("GODEBUG=gctrace=1 exec %s 2>%s", bin, shquote.Quote(trace)))
	x.waitFor("toggle_tool")
	testutil.Eventually(t, "a forced collection once the workbench is idle", func() (bool, string) {
		b, _ := os.ReadFile(trace)
		lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
		return bytes.Contains(b, []byte("(forced)")), fmt.Sprintf("%d collections, the last: %s", len(lines), lines[len(lines)-1])
	})
}
