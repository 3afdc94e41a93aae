package proctree

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// copyEnv makes the test binary, started again with this process's own command line,
// hold the descriptors it was given until its standard input closes: a copy of this
// process, as a child is between fork and exec.
const copyEnv = "PROCTREE_TEST_HOLD"

func init() {
	if os.Getenv(copyEnv) == "1" {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
}

// TestWrittenByACopyOfThisProcess: a child holds every descriptor of this process
// between fork and exec, so a file this process has open for writing (a test that
// edits a watched file, mcpscope's own output) is, for that moment, open for writing
// in a descendant. That is no server writing it: taken for one, the watch remembered
// the file as output for good and never restarted on an edit again (the watch tests
// under load, round 16 of TestWatchTwentyRestartsOneServer). The copy is simulated by
// the test binary started again with the same command line, holding the descriptor.
func TestWrittenByACopyOfThisProcess(t *testing.T) {
	if !Supported() {
		t.Skip("no /proc")
	}
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "tools.json"), os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Args[0] = os.Args[0]
	cmd.Env = append(os.Environ(), copyEnv+"=1")
	cmd.ExtraFiles = []*os.File{f}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the copy to hold the file", func() (bool, string) {
		return writing(cmd.Process.Pid, st), "not yet"
	})
	if WrittenByDescendant(st) {
		t.Error("a copy of this process holding this process's own descriptor was taken for a server writing the file")
	}
}
