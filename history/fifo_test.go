package history_test

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/history"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// A FIFO planted where a server's history is kept is refused, not opened for reading:
// Open used to block in open(2) for a writer that never came, and the workbench never
// started. (A wrong fix fails after the deadline instead of hanging the suite.)
func TestHistoryFIFOIsRefused(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	l, err := history.Open(srv, history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := l.Path()
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close() // releases a reader still blocked in it (the bug)
		}
	})
	done := make(chan error, 1)
	go func() {
		_, err := history.Open(srv, history.Options{})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file (a FIFO)") {
			t.Errorf("Open over a FIFO: %v", err)
		}
	case <-time.After(testutil.Patience):
		t.Fatalf("Open blocked on the FIFO for %v", testutil.Patience)
	}
}
