package ownfiles

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestAddedFilesAreOurs(t *testing.T) {
	dir := t.TempDir()
	rec, other := filepath.Join(dir, "rec.jsonl"), filepath.Join(dir, "server.js")
	os.WriteFile(rec, nil, 0o600)
	os.WriteFile(other, nil, 0o600)
	Add(rec)
	if !Is(rec) || Is(other) {
		t.Fatalf("Is(rec)=%v Is(server.js)=%v", Is(rec), Is(other))
	}
	// The same file under another name (a hard link) is ours too.
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Link(rec, link); err == nil && !Is(link) {
		t.Error("a hard link to an added file was not recognised")
	}
}

// The test binary runs itself with stdout redirected to a file and asks Is there.
func TestStdoutRedirectedToAFileIsOurs(t *testing.T) {
	if p := os.Getenv("OWNFILES_CHILD"); p != "" {
		if Is(p) {
			os.Stderr.WriteString("ours\n")
		} else {
			os.Stderr.WriteString("not ours\n")
		}
		return
	}
	out := filepath.Join(t.TempDir(), "w.out")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestStdoutRedirectedToAFileIsOurs$")
	cmd.Env = append(os.Environ(), "OWNFILES_CHILD="+out)
	cmd.Stdout = f
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	if !strings.Contains(errb.String(), "ours\n") || strings.Contains(errb.String(), "not ours") {
		t.Fatalf("the child's stdout file: %q", errb.String())
	}
}

// An inode is ours only while the file added still holds it. A deleted recording's
// inode goes to the next file made: a test's tools.json got one (its recordings
// deleted with an earlier test's directory) and every edit of it was taken for
// mcpscope's own output. Deterministic first: the added file renamed away leaves its
// inode to a name mcpscope never wrote. Then the reuse itself, when this file system
// shows it (tmpfs and ext4 usually do at once).
func TestAnInodeOfADeletedFileIsNotOurs(t *testing.T) {
	dir := t.TempDir()
	rec, moved := filepath.Join(dir, "rec.jsonl"), filepath.Join(dir, "tools.json")
	os.WriteFile(rec, nil, 0o600)
	Add(rec)
	if err := os.Rename(rec, moved); err != nil {
		t.Fatal(err)
	}
	if Is(moved) {
		t.Error("a file at a path mcpscope never wrote was taken for its own by the inode of one it did")
	}
	for i := range 50 {
		a, b := filepath.Join(dir, "a"+string(rune('A'+i%26))+".jsonl"), filepath.Join(dir, "source.json")
		os.WriteFile(a, nil, 0o600)
		Add(a)
		before, _ := os.Stat(a)
		os.Remove(a)
		os.Remove(b)
		os.WriteFile(b, []byte("{}"), 0o600)
		after, err := os.Stat(b)
		if err == nil && os.SameFile(before, after) {
			if Is(b) {
				t.Fatalf("a new file with a deleted recording's inode was taken for mcpscope's own output")
			}
			return
		}
	}
}
