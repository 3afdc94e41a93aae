package readfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadRefusesWhatIsNotASmallRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, []byte("12345"), 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink(ok, link)
	for path, want := range map[string]string{
		fifo:        "not a regular file (a FIFO)",
		dir:         "not a regular file (a directory)",
		"/dev/zero": "not a regular file (a character device)",
		ok:          "", // 5 bytes, at the cap
		link:        "", // a link to a regular file is read
	} {
		data, err := Read(path, 5)
		var fe *Error
		switch {
		case want == "" && (err != nil || string(data) != "12345"):
			t.Errorf("%s: %q, %v", path, data, err)
		case want != "" && (!errors.As(err, &fe) || !strings.Contains(err.Error(), path+": "+want)):
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	if _, err := Read(ok, 4); err == nil || err.Error() != ok+": 5 bytes is larger than the 4 bytes mcpscope reads from such a file" {
		t.Errorf("too big: %v", err)
	}
}
