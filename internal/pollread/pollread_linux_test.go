package pollread

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"golang.org/x/sys/unix"
)

// blockingPipe returns the ends of a pipe in blocking mode wrapped as a child finds its
// stdin: os.NewFile of a blocking descriptor reads with blocking read(2) calls.
func blockingPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w = os.NewFile(uintptr(p[0]), "stdin"), os.NewFile(uintptr(p[1]), "writer")
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags int
	if err := rc.Control(func(fd uintptr) { flags, err = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return flags&unix.O_NONBLOCK != 0
}

// readOnce reads once from in; its name marks the goroutine in stack dumps.
func readOnce(in *os.File, got chan<- string) {
	b := make([]byte, 16)
	n, err := in.Read(b)
	got <- fmt.Sprintf("%q %v", b[:n], err)
}

// readerState waits until the goroutine running readOnce waits for input, and returns
// how it waits: "IO wait" (parked in the runtime's poller) or "syscall" (in read(2)).
func readerState(t *testing.T) string {
	t.Helper()
	buf := make([]byte, 1<<20)
	found := ""
	testutil.Eventually(t, "the reading goroutine waiting for input", func() (bool, string) {
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			if !strings.Contains(g, "pollread.readOnce(") {
				continue
			}
			head, _, _ := strings.Cut(g, "\n")
			for _, state := range []string{"[IO wait", "[syscall"} {
				if strings.Contains(head, state) {
					found = strings.TrimPrefix(state, "[")
					return true, ""
				}
			}
		}
		return false, string(buf[:n])
	})
	return found
}

// TestPendingReadWaitsInThePoller: a read of stdin that waits for data parks its
// goroutine in the runtime's poller; it does not wait in read(2), where a garbage
// collection's stop-the-world that starts as the goroutine enters the call waits for
// it until data arrives (about 60 s in the host's case, see the package comment).
func TestPendingReadWaitsInThePoller(t *testing.T) {
	for _, c := range []struct {
		poll bool
		want string
	}{{false, "syscall"}, {true, "IO wait"}} {
		t.Run(fmt.Sprintf("pollread=%v", c.poll), func(t *testing.T) {
			r, w := blockingPipe(t)
			in, undo := r, func() {}
			if c.poll {
				in, undo = Stdin(r)
			}
			defer undo()
			got := make(chan string, 1)
			go readOnce(in, got)
			if state := readerState(t); state != c.want {
				t.Errorf("a read waiting for input is in state %q, want %q", state, c.want)
			}
			if _, err := w.Write([]byte("hi\n")); err != nil {
				t.Fatal(err)
			}
			if s := <-got; s != `"hi\n" <nil>` {
				t.Errorf("read %s, want \"hi\\n\" <nil>", s)
			}
		})
	}
}

func TestUndoRestoresTheDescriptor(t *testing.T) {
	r, w := blockingPipe(t)
	in, undo := Stdin(r)
	if in == r {
		t.Fatal("Stdin returned the blocking pipe itself")
	}
	if !nonblocking(t, r) {
		t.Fatal("the shared file description is not non-blocking while in use")
	}
	// A read parked in the poller ends when undo closes the reader.
	errc := make(chan error, 1)
	go func() {
		_, err := in.Read(make([]byte, 1))
		errc <- err
	}()
	undo()
	if err := <-errc; err == nil {
		t.Error("a read pending across undo returned no error")
	}
	undo() // a second call is harmless
	if nonblocking(t, r) {
		t.Error("undo left the file description non-blocking")
	}
	// The original file still reads, blocking as before.
	if _, err := w.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	if _, err := io.ReadFull(r, b); err != nil || b[0] != 'x' {
		t.Errorf("reading the original after undo: %q, %v", b, err)
	}
}

func TestEndOfInput(t *testing.T) {
	r, w := blockingPipe(t)
	in, undo := Stdin(r)
	defer undo()
	go func() { w.Write([]byte("last")); w.Close() }()
	b, err := io.ReadAll(in)
	if err != nil || string(b) != "last" {
		t.Errorf("ReadAll = %q, %v; want \"last\", nil", b, err)
	}
}

func TestLeavesOtherFilesAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "input")
	if err := os.WriteFile(path, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if in, undo := Stdin(f); in != f {
		t.Error("a regular file was replaced")
	} else {
		undo()
	}
	// A pipe Go already polls (os.Pipe) is used as it is.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	if in, undo := Stdin(pr); in != pr {
		t.Error("a pipe already in non-blocking mode was replaced")
	} else {
		undo()
	}
	if !nonblocking(t, pr) {
		t.Error("os.Pipe's reader was switched to blocking mode")
	}
}
