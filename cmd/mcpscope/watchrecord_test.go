package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// --inspect --watch --record FILE records every session of the watched server into
// FILE, the first and each restart's; --trace shows them on stderr. Both were ignored:
// no file, no warning.
func TestInspectWatchRecordsEachRestart(t *testing.T) {
	dir := t.TempDir()
	bin := testutil.Mcpscope(t)
	tools := toolFile(t, dir, "tools.json", schemaV1)
	rec := filepath.Join(dir, "watch.jsonl")
	r := startWatch(t, "", "--inspect", "--watch", tools, "--watch-debounce", "100ms", "--record", rec, "--trace", "--", bin, "host", "--tools", tools)
	r.waitLine("connected: 1 tool: greet")
	toolFile(t, dir, "tools.json", schemaOptional)
	r.waitLine("changed: restarting")
	r.waitLine("connected: 1 tool: greet")
	r.interrupt()
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatalf("--record wrote no file: %v\nstderr: %s", err, r.stderr.String())
	}
	// Two sessions, each listing the tools: the first, with schemaV1, and the one after
	// the restart, with the new "loud" parameter.
	if n := strings.Count(string(data), `"method":"tools/list"`); n < 2 {
		t.Errorf("the recording has %d tools/list requests, want one per session (2):\n%s", n, data)
	}
	if !strings.Contains(string(data), `"loud"`) {
		t.Errorf("the recording lacks the restarted session (its tool has \"loud\"):\n%s", data)
	}
	if !strings.Contains(r.stderr.String(), "tools/list") {
		t.Errorf("--trace showed nothing on stderr:\n%s", r.stderr.String())
	}
}
