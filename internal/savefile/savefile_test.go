package savefile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"pic-1.png":          "pic-1.png",
		"../../etc/passwd":   "_._.._etc_passwd",
		"/abs/path":          "_abs_path",
		"..":                 "_.",
		".hidden":            "_hidden",
		"":                   "file",
		"a\x00b\nc\u202ed":   "a_b_c_d",
		`C:\Windows\win.ini`: "C__Windows_win.ini",
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}

// A link planted at the name is not written through; a taken name gets a new one;
// a traversing name stays inside the directory.
func TestWriteNeverLeavesTheDirectory(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	os.WriteFile(victim, []byte("precious"), 0o600)
	os.Symlink(victim, filepath.Join(dir, "pic-1.png"))
	os.Symlink(outside, filepath.Join(dir, "sub"))
	path, err := Write(dir, "pic-1.png", []byte("new"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "pic-1-2.png") {
		t.Errorf("path %s", path)
	}
	for _, name := range []string{"sub/x", "../victim", victim} {
		p, err := Write(dir, name, []byte("new"), 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(p) != dir {
			t.Errorf("%q was written to %s", name, p)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the file outside changed: %q", b)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("files appeared outside: %v", entries)
	}
	p2, _ := Write(dir, "pic-1.png", []byte("again"), 0o644)
	if p2 != filepath.Join(dir, "pic-1-3.png") {
		t.Errorf("second write went to %s", p2)
	}
}
