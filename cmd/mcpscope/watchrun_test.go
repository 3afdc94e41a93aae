package main_test

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// watchRun is one `mcpscope --inspect --watch …` of the watch tests: its standard
// output (a pipe, or a file the test names, which may sit in the watched directory),
// its standard error, and a cursor so that waitLine reads the output in order, as a
// person following it would.
type watchRun struct {
	t      *testing.T
	cmd    *exec.Cmd
	out    func() string
	stderr *syncBuffer
	done   chan struct{} // closed once mcpscope has exited
	pos    int           // waitLine has read the output up to here
}

// startWatch runs mcpscope with args. With outFile "" its stdout is a pipe; otherwise
// stdout is that file, as `mcpscope … > outFile` would make it.
func startWatch(t *testing.T, outFile string, args ...string) *watchRun {
	t.Helper()
	r := &watchRun{t: t, cmd: exec.Command(testutil.Mcpscope(t), args...), stderr: &syncBuffer{}, done: make(chan struct{})}
	r.cmd.Stderr = r.stderr
	var copied chan struct{}
	if outFile == "" {
		var buf syncBuffer
		pipe, err := r.cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		copied = make(chan struct{})
		go func() {
			defer close(copied)
			io.Copy(&buf, pipe)
		}()
		r.out = buf.String
	} else {
		f, err := os.Create(outFile)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close() // the child has its own copy
		r.cmd.Stdout = f
		r.out = func() string {
			b, _ := os.ReadFile(outFile)
			return string(b)
		}
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		if copied != nil {
			<-copied // Wait closes the pipe: read it to its end first
		}
		r.cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			r.cmd.Process.Kill()
			<-r.done
		}
	})
	return r
}

// waitLine waits for a line holding want after the lines already read, and returns it.
func (r *watchRun) waitLine(want string) string {
	r.t.Helper()
	var line string
	testutil.Eventually(r.t, "a line with "+want, func() (bool, string) {
		out := r.out()
		i := strings.Index(out[r.pos:], want)
		if i < 0 {
			return false, out + "\nstderr: " + r.stderr.String()
		}
		start := strings.LastIndexByte(out[:r.pos+i], '\n') + 1
		end := strings.IndexByte(out[r.pos+i:], '\n')
		if end < 0 {
			return false, out // the line is still being written
		}
		line = out[start : r.pos+i+end]
		r.pos += i + end + 1
		return true, ""
	})
	return line
}

// interrupt sends SIGINT, as Ctrl-C would, and returns the exit code.
func (r *watchRun) interrupt() int {
	r.t.Helper()
	r.cmd.Process.Signal(syscall.SIGINT)
	testutil.Within(r.t, "mcpscope --inspect --watch ending on SIGINT", func() { <-r.done })
	return r.cmd.ProcessState.ExitCode()
}
