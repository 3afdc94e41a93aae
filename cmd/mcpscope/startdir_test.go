package main_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// A directory named where the server's program belongs is said to be one. exec of a
// directory fails with EACCES, which was worded "permission denied; is the file
// executable?", sending the user to chmod a directory. call (client/wire) and tap
// word a start failure the same way.
func TestADirectoryAsTheServerCommandIsSaidToBeOne(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const says = "it is a directory, not a program"
	for _, args := range [][]string{
		{"call", "echo", "text=hi", "--", dir},
		{"--inspect", "--", dir},
		{"tap", "--record", filepath.Join(dir, "tap.jsonl"), "--", dir},
	} {
		r := mcpscope(t, nil, args...)
		expect(t, r, 1, nil, []string{`cannot start "` + dir + `": ` + says})
		if strings.Contains(r.stderr, "executable") {
			t.Errorf("%v: still asks whether a directory is executable:\n%s", args, r.stderr)
		}
	}
}
