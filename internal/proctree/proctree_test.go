package proctree

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

func start(t *testing.T, argv ...string) *Tree {
	t.Helper()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	tr, err := Start(Spec{Path: argv[0], Argv: argv, Env: os.Environ(), Stdin: null, Stdout: null, Stderr: null, Grace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.End(0) })
	return tr
}

func TestStartErrors(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("not a program"), 0o644)
	for _, tc := range []struct {
		path string
		want error
	}{
		{filepath.Join(dir, "missing"), os.ErrNotExist},
		{plain, os.ErrPermission},
		{dir, syscall.EISDIR}, // exec says EACCES; what is wrong is that it is a directory
	} {
		_, err := Start(Spec{Path: tc.path, Argv: []string{tc.path}, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
		var se *StartError
		if !errors.As(err, &se) || !errors.Is(err, tc.want) {
			t.Errorf("Start(%s) = %v; want a StartError that is %v", tc.path, err, tc.want)
		}
	}
}

// A child that moved to a session of its own is found, named and ended with the tree.
func TestEndReachesASetsidChild(t *testing.T) {
	if !Supported() {
		t.Skip("no supervisor on this system")
	}
	pidfile := filepath.Join(t.TempDir(), "pid")
	tr := start(t, "/bin/sh", "-c", `setsid sh -c 'echo $$ > "$0"; exec sleep 1000' "$0" & wait`, pidfile)
	var pid int
	deadline := time.Now().Add(30 * time.Second)
	for pid == 0 && time.Now().Before(deadline) {
		b, _ := os.ReadFile(pidfile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(10 * time.Millisecond)
	}
	if pid == 0 {
		t.Fatal("the child did not start")
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	if left := tr.End(100 * time.Millisecond); left != nil {
		t.Fatalf("left running: %v", left)
	}
	select {
	case <-tr.Gone():
	default:
		t.Fatal("End returned before the tree was gone")
	}
	if s := tr.Status(); s.Signal != syscall.SIGTERM {
		t.Errorf("status %v; want killed by SIGTERM", s)
	}
	if got := strings.Join(tr.Swept(), ", "); !strings.Contains(got, "PID "+strconv.Itoa(pid)+" (") {
		t.Errorf("Swept() = %q; want PID %d", got, pid)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("PID %d (a zombie would have been reaped by the supervisor) is still there", pid)
	}
}

// BenchmarkStart measures running /bin/true to its end, with and without the
// supervisor: the supervisor's cost per server start or tool call.
func BenchmarkStart(b *testing.B) {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	spec := Spec{Path: "/bin/true", Argv: []string{"true"}, Env: os.Environ(), Stdin: null, Stdout: null, Stderr: null}
	for _, mode := range []string{"supervised", "direct"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				var tr *Tree
				var err error
				if mode == "supervised" {
					tr, err = startSupervised(spec)
				} else {
					tr, err = startDirect(spec)
				}
				if err != nil {
					b.Fatal(err)
				}
				<-tr.Gone()
				tr.Release()
			}
		})
	}
}

// A file a process under this one holds open for writing is told; one it only reads,
// or that nobody started by us writes, is not.
func TestWrittenByDescendant(t *testing.T) {
	if !Supported() {
		t.Skip("no /proc")
	}
	dir := t.TempDir()
	log, src, ready := filepath.Join(dir, "server.log"), filepath.Join(dir, "server.js"), filepath.Join(dir, "ready")
	os.WriteFile(src, []byte("x"), 0o644)
	// The writer is a grandchild: the shell starts it in the background and waits.
	start(t, "/bin/sh", "-c", `exec 3>>"$0"; exec 4<"$1"; (touch "$2"; exec sleep 600) & wait`, log, src, ready)
	testutil.Eventually(t, "the shell's child to start", func() (bool, string) {
		_, err := os.Stat(ready)
		return err == nil, fmt.Sprint(err)
	})
	fi := func(p string) os.FileInfo {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if !WrittenByDescendant(fi(log)) {
		t.Error("the log the server's child holds open for writing was not told")
	}
	if WrittenByDescendant(fi(src)) {
		t.Error("a file the server only reads was taken for its output")
	}
	f, err := os.OpenFile(filepath.Join(dir, "mine"), os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if WrittenByDescendant(fi(f.Name())) {
		t.Error("a file this process writes was taken for a descendant's")
	}
}
