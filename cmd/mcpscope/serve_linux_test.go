package main_test

import (
	"bufio"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// serve's mock server waits for each request in the runtime's poller, as the bundled
// host does, not in a blocking read(2) that a garbage collection can turn into a 60 s
// stall (issue 14 item 9).
func TestServeWaitsForRequestsInThePoller(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "rec.jsonl")
	expect(t, mcpscope(t, nil, "call", "echo", "text=hello", "--record", file, "--", testutil.Mcpscope(t), "host"), 0, nil, nil)

	cmd := exec.Command(testutil.Mcpscope(t), "serve", file)
	stdin, err := cmd.StdinPipe() // a blocking pipe for the child, as any client gives it
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(testutil.Patience):
			cmd.Process.Kill()
			<-done
		}
	})
	testutil.AssertWaitsForStdinInPoller(t, cmd.Process.Pid)
	// It was waiting for a request: it answers one.
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	var line string
	testutil.Within(t, "reading serve's answer", func() { line, _ = bufio.NewReader(stdout).ReadString('\n') })
	if !strings.Contains(line, `"id":1`) || !strings.Contains(line, `"result"`) {
		t.Errorf("initialize answered %q", line)
	}
}
