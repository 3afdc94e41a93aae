package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpscope/mcpscope/internal/readfile"
)

// mkfifo makes a FIFO at path and, at the test's end, opens it for writing once so
// that a reader still blocked in it (the bug) is released.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
}

// sparse makes a file of size bytes that costs no disk.
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Skipf("truncate: %v", err)
	}
}

// --sampling-reply @FILE and --elicit-answers @FILE are read like config files:
// a FIFO without a writer used to hang the command (deaf to SIGTERM), /dev/zero grew
// until the kernel killed it, and a big file took 50 times its size. Each is now
// refused at once, as a usage error naming the flag, the file and the reason. (A hang
// fails the test after runCommand's minute, it does not hang the suite.)
func TestAtFileIsReadLikeAConfigFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "reply.fifo")
	mkfifo(t, fifo)
	big := filepath.Join(dir, "big.json")
	sparse(t, big, readfile.MaxConfig+1)

	r := mcpscope(t, nil, "call", "sample", "--sampling-reply", "@"+fifo)
	expect(t, r, 2, nil, []string{"--sampling-reply: " + fifo + ": not a regular file (a FIFO)"})
	r = mcpscope(t, nil, "call", "ask", "--elicit", "accept", "--elicit-answers", "@/dev/zero")
	expect(t, r, 2, nil, []string{"--elicit-answers: /dev/zero: not a regular file (a character device)"})
	r = mcpscope(t, nil, "call", "ask", "--elicit", "accept", "--elicit-answers", "@"+dir)
	expect(t, r, 2, nil, []string{"not a regular file (a directory)"})
	r = mcpscope(t, nil, "call", "sample", "--sampling-reply", "@"+big)
	expect(t, r, 2, nil, []string{"--sampling-reply: " + big + ": 64.0 MiB is larger than the 64.0 MiB"})
}

// Every saved file mcpscope loads goes through the one capped reader: diff read a
// 10 GiB sparse file whole (10.5 GB of memory), and replay opened a FIFO for reading
// and waited for a writer forever.
func TestSavedFilesAreCapped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.json")
	sparse(t, huge, readfile.MaxSaved+1)
	small := filepath.Join(dir, "small.json")
	writeFile(t, small, `{"tools":[]}`)
	r := mcpscope(t, nil, "diff", huge, small)
	expect(t, r, 2, nil, []string{huge + ": 1.0 GiB is larger than the 1.0 GiB mcpscope reads from such a file"})

	fifo := filepath.Join(dir, "rec.jsonl")
	mkfifo(t, fifo)
	r = mcpscope(t, nil, "replay", fifo, "--", "true")
	expect(t, r, 2, nil, []string{fifo + ": not a regular file (a FIFO)"})
	r = mcpscope(t, nil, "diff", fifo, small)
	if r.code == 0 || !strings.Contains(r.stderr, "not a regular file (a FIFO)") {
		t.Errorf("diff of a FIFO: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
