package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/shquote"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// Issue 19, item 10: --keep bounds what Traffic, Logs and Stderr hold in memory with
// any number of servers. With two it was dropped (the options of a session of several
// were built without it): nothing spilled, however small the bound. The spill file is
// created in $TMPDIR and unlinked at once, so it is found among the open files of the
// processes under the pane.
func TestEndToEndKeepWithSeveralServers(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	for _, servers := range []string{"", "--server a=host --server b=host"} {
		t.Run(fmt.Sprintf("servers=%q", servers), func(t *testing.T) {
			tmp := t.TempDir()
			x := newTmux(t, 140, 40, fmt.Sprintf("sh -c 'TMPDIR=%s %s --keep 1KiB %s; echo mcpscope-exited:$?; sleep 30'", shquote.Quote(tmp), bin, servers))
			x.waitFor("echo")
			// The handshakes and tool lists alone are far more than 1 KiB.
			testutil.Eventually(t, "a spill file in "+tmp, func() (bool, string) {
				open := spillFiles(x.panePID(), tmp)
				return len(open) > 0, fmt.Sprintf("open files in %s: %v", tmp, open)
			})
			x.keys("q")
			x.waitFor("mcpscope-exited:0")
		})
	}
}

// spillFiles lists the files under dir that the processes below pid hold open.
func spillFiles(pid int, dir string) []string {
	var out []string
	for _, p := range descendants(pid) {
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", p))
		for _, fd := range fds {
			target, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", p), fd.Name()))
			if err == nil && strings.HasPrefix(target, dir+string(filepath.Separator)) {
				out = append(out, target)
			}
		}
	}
	return out
}
