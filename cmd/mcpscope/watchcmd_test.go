package main_test

import (
	"os"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// TestInspectWatch: mcpscope --inspect --watch PATH restarts the server on each edit of
// its tool file and prints the classified change; Ctrl-C stops it and the server.
func TestInspectWatch(t *testing.T) {
	dir := t.TempDir()
	bin := testutil.Mcpscope(t)
	tools := toolFile(t, dir, "tools.json", schemaV1)
	r := startWatch(t, "", "--inspect", "--watch", tools, "--watch-debounce", "100ms", "--", bin, "host", "--tools", tools)
	r.waitLine("connected: 1 tool: greet")
	toolFile(t, dir, "tools.json", schemaBreaking)
	r.waitLine("changed: restarting")
	r.waitLine(`! new required parameter "lang"`)
	r.waitLine("1 breaking, 0 compatible")
	os.WriteFile(tools, []byte(`{"tools": [`), 0o644)
	r.waitLine("waiting for the next change")
	toolFile(t, dir, "tools.json", schemaOptional)
	r.waitLine("connected: 1 tool: greet")
	r.waitLine(`parameter "lang" was removed`)
	if code := r.interrupt(); code != 130 {
		t.Errorf("exit %d after SIGINT; stderr: %s", code, r.stderr.String())
	}
}
