package main_test

import (
	"os"
	"path/filepath"
	"testing"
)

// The workbench's --sampling, --sampling-reply and --root are checked before the
// screen opens: a bad one is a usage error naming it (exit 2), a good one gets as far
// as the terminal check.
func TestWorkbenchAskFlags(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	expect(t, mcpscope(t, nil, "--root", filepath.Join(dir, "missing")), 2, nil, []string{`--root "` + filepath.Join(dir, "missing") + `": not a directory`})
	expect(t, mcpscope(t, nil, "--root", file), 2, nil, []string{"not a directory"})
	expect(t, mcpscope(t, nil, "--sampling-reply", "@"+filepath.Join(dir, "nope")), 2, nil, []string{"--sampling-reply"})
	expect(t, mcpscope(t, nil, "--sampling", "--root", dir, "--sampling-reply", "hi"), 2, nil, []string{"the workbench needs a terminal"})
}
