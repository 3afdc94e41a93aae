package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// Plain --watch watches the entry point's whole directory. Issue 20: mcpscope's own
// output redirected into it (> w.out), its --record file, a log the server keeps
// writing there, what .gitignore ignores and the usual noise each restarted the
// server, three times a second, forever. None of them may; an edit of a source file
// restarts it once, and mcpscope says which file it was (on stderr too) and heads the
// comparison with it instead of "sh → sh".
func TestInspectWatchIgnoresItsOwnAndTheServersOutput(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("which process writes a file is read from /proc")
	}
	dir := t.TempDir()
	bin := testutil.Mcpscope(t)
	tools := toolFile(t, dir, "tools.json", schemaV1)
	// The server keeps a log open and writes it while it runs, as servers do (a
	// background child of the script holds it; mcpscope is told nothing about it).
	script := filepath.Join(dir, "server.sh")
	body := fmt.Sprintf("exec 3>>%q\n(while :; do echo tick >&3; sleep 0.2; done) &\nexec %q host --tools %q\n",
		filepath.Join(dir, "server-output.txt"), bin, tools)
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("# build output\n/generated/\n*.cache\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := startWatch(t, filepath.Join(dir, "w.out"), "--inspect", "--watch", "--watch-debounce", "100ms",
		"--record", filepath.Join(dir, "session.jsonl"), "--", "sh", script)
	r.waitLine("connected: 1 tool: greet")
	testutil.WaitFile(t, filepath.Join(dir, "server-output.txt"), "tick\ntick\n")

	// What is not a source: ignored by .gitignore, and the usual noise.
	os.Mkdir(filepath.Join(dir, "generated"), 0o755)
	os.WriteFile(filepath.Join(dir, "generated", "bundle.js"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "tools.cache"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "npm-debug.log"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(dir, "node_modules", "dep"), 0o755)
	os.WriteFile(filepath.Join(dir, "node_modules", "dep", "index.js"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "index"), []byte("x"), 0o644)

	// A source edit: one restart, for that file only. Then another, so that anything
	// the ignored writes (or the restart's own output) set off would have come between.
	for i, schema := range []string{schemaOptional, schemaBreaking} {
		toolFile(t, dir, "tools.json", schema)
		line := r.waitLine("changed: restarting")
		if !strings.HasSuffix(line, "] tools.json changed: restarting") {
			t.Fatalf("edit %d: the restart was set off by something else: %q\nstdout:\n%s", i+1, line, r.out())
		}
		r.waitLine("connected: 1 tool: greet")
		r.waitLine("after tools.json changed (")
	}
	r.interrupt()
	out := r.out()
	if n := strings.Count(out, "changed: restarting"); n != 2 {
		t.Errorf("%d restarts for 2 edits:\n%s", n, out)
	}
	if strings.Contains(out, "sh → sh") {
		t.Errorf("the comparison is headed with the server's name twice instead of what changed:\n%s", out)
	}
	if n := strings.Count(r.stderr.String(), "mcpscope: tools.json changed; restarting"); n != 2 {
		t.Errorf("stderr says %d times which file set off a restart, want 2:\n%s", n, r.stderr.String())
	}
}
