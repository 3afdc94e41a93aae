package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/history"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// Issue 20 item D: the README's loop, step 4: `mcpscope diff smoke.jsonl -- SERVER`
// on a collection saved with History's S always exited 2 (a collection held no
// tools/list). A collection carries the tools of the server it was saved from, so the
// diff compares them: the same server shows no change, another tool set shows what
// changed.
func TestCollectionDiffsAgainstTheServer(t *testing.T) {
	h := histHarness(t, t.TempDir(), history.Options{})
	h.call("echo", `{"text":"smoke"}`)
	h.waitStored(1)
	h.press("6", "home", "m")
	h.until("the mark", func(m *model) bool { return len(m.markedEntries()["host"]) == 1 })
	h.m.opts.SaveDir = t.TempDir()
	h.press("S")
	h.typeText("smoke")
	h.press("enter")
	h.until("the saved collection", func(m *model) bool { return strings.Contains(m.notice, "saved 1 call") })
	file := filepath.Join(h.m.opts.SaveDir, "smoke.jsonl")

	bin := testutil.Mcpscope(t)
	out, err := exec.Command(bin, "diff", file, "--", bin, "host").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "no changes (compared: tools)") {
		t.Fatalf("diff of the collection against the same server: %v\n%s", err, out)
	}
	// The server with one tool of its own: every tool of the collection's surface is gone.
	tools := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(tools, []byte(`{"tools":[{"name":"greet","inputSchema":{"type":"object"},"run":["/bin/echo","hi"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "diff", "--no-diff", file, "--", bin, "host", "--tools", tools)
	out, err = cmd.CombinedOutput()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "tool echo removed") {
		t.Fatalf("diff of the collection against another tool set: %v (want exit 1 and echo removed)\n%s", err, out)
	}
	// The collection still replays as a golden test.
	if out, err := exec.Command(bin, "replay", file).CombinedOutput(); err != nil {
		t.Errorf("replay of the collection: %v\n%s", err, out)
	}
}
