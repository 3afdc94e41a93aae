package main_test

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// TestInspectWatch: mcpscope --inspect --watch PATH restarts the server on each edit of
// its tool file and prints the classified change; Ctrl-C stops it and the server.
func TestInspectWatch(t *testing.T) {
	dir := t.TempDir()
	bin := testutil.Mcpscope(t)
	tools := toolFile(t, dir, "tools.json", schemaV1)
	cmd := exec.Command(bin, "--inspect", "--watch", tools, "--watch-debounce", "100ms", "--", bin, "host", "--tools", tools)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, out)
	}()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-done
		}
	}()
	go func() { done <- cmd.Wait() }()
	var seen []string
	waitLine := func(want string) {
		t.Helper()
		timeout := time.After(60 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("output ended before %q:\n%s\nstderr: %s", want, strings.Join(seen, "\n"), errb.String())
				}
				seen = append(seen, l)
				if strings.Contains(l, want) {
					return
				}
			case <-timeout:
				t.Fatalf("no %q:\n%s", want, strings.Join(seen, "\n"))
			}
		}
	}
	waitLine("connected: 1 tool: greet")
	toolFile(t, dir, "tools.json", schemaBreaking)
	waitLine("changed: restarting")
	waitLine(`! new required parameter "lang"`)
	waitLine("1 breaking, 0 compatible")
	os.WriteFile(tools, []byte(`{"tools": [`), 0o644)
	waitLine("waiting for the next change")
	toolFile(t, dir, "tools.json", schemaOptional)
	waitLine("connected: 1 tool: greet")
	waitLine(`parameter "lang" was removed`)

	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("did not stop on SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d after SIGINT; stderr: %s", code, errb.String())
	}
}
