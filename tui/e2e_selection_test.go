package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// Issue 19, item 1, end to end: two bundled hosts, a/echo selected with "hi there"
// typed in its form, server a's process killed. The selection and the form stay on
// a/echo (its server shown exited), and enter says a is down and sends nothing: no
// call reaches b (History and Traffic hold none).
func TestEndToEndKilledServerKeepsTheSelection(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "a.pid")
	// a notes its PID, so that the test kills a and not b (both run the same host).
	cfg := fmt.Sprintf(`{"mcpServers":{"a":{"command":"/bin/sh","args":["-c",%q]}}}`,
		fmt.Sprintf("echo $$ > %s; exec %s host", pidFile, bin))
	cfgPath := filepath.Join(dir, "servers.json")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	x := newTmux(t, 140, 45, fmt.Sprintf("sh -c '%s --config %s --server a=a --server b=host; echo mcpscope-exited:$?; sleep 30'", bin, cfgPath))
	x.waitFor("a/echo")
	x.waitFor("▾ b 22")
	x.waitFor("› a/add")
	// With the arrows, as a user picks it: add, ask, audio, big, bump, echo.
	x.keys("Down", "Down", "Down", "Down", "Down")
	x.waitFor("› a/echo")
	x.keys("Enter")
	x.waitFor("Arguments  enter ")
	x.typeText("hi there")
	x.waitFor("hi there")

	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		t.Fatalf("a's PID file holds %q", b)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	sc := x.waitFor("a exited (killed by") // the notice, with the list's change
	if !strings.Contains(sc, "• a/echo") || !strings.Contains(sc, "hi there") || strings.Contains(sc, "• b/") {
		t.Errorf("after a was killed the selection and the form moved:\n%s", sc)
	}
	x.waitFor("▾ a exited (killed by") // its tools stay, under a header saying why
	x.keys("Enter")
	x.waitFor("nothing was sent")
	x.keys("Escape") // to the list (esc right before 6 would reach the program as alt+6)
	x.waitFor("› a/echo")
	x.keys("6")
	x.waitFor("No calls yet.")
	x.keys("3")
	x.waitFor("tools/list")
	if sc := x.screen(); strings.Contains(sc, "tools/call") {
		t.Errorf("a call was sent after a was killed:\n%s", sc)
	}
	x.keys("q")
	x.waitFor("mcpscope-exited:0")
}
