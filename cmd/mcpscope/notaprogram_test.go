package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file that cannot run, named where a server's program belongs, is said for what it
// is, with the command that does what the user meant; exec alone said "permission
// denied; is the file executable?", which sent the user to chmod a recording. It is a
// usage error (2) wherever a target is read: --inspect, call, check's positionals,
// --server NAME=TARGET, a bare word naming a file here, the command after --.
func TestAFileThatCannotRunIsSaidForWhatItIs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := filepath.Join(dir, "session.jsonl")
	expect(t, mcpscope(t, nil, "call", "echo", "text=hi", "--record", rec, "host"), 0, []string{"hi"}, nil)
	script := filepath.Join(dir, "my server.py")
	if err := os.WriteFile(script, []byte("print('hi')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recording := []string{"is an mcpscope recording, not a server", "mcpscope replay " + rec, "mcpscope serve " + rec}
	for _, args := range [][]string{
		{"--inspect", rec},
		{"call", "echo", "text=hi", rec},
		{"call", "echo", "text=hi", "--", rec},
		{"check", rec},
		{"--server", "a=" + rec, "--inspect"},
	} {
		r := mcpscope(t, nil, args...)
		expect(t, r, 2, nil, recording)
		if strings.Contains(r.stderr, "permission denied") {
			t.Errorf("%v: still says permission denied:\n%s", args, r.stderr)
		}
	}
	// A bare word is no path, but a file of that name here is what the user meant.
	r := mcpscopeIn(t, dir, t.TempDir(), []string{"XDG_STATE_HOME=" + testState(t)}, "--inspect", "session.jsonl")
	expect(t, r, 2, nil, []string{"session.jsonl is an mcpscope recording, not a server"})
	// A script: its interpreter, with the path quoted as a shell needs it.
	r = mcpscope(t, nil, "--inspect", script)
	expect(t, r, 2, nil, []string{"is not executable", "mcpscope -- python3 '" + script + "'"})
}
