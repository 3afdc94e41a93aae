package main_test

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// --inspect --watch --record FILE records every session of the watched server into
// FILE, the first and each restart's; --trace shows them on stderr. Both were ignored:
// no file, no warning.
func TestInspectWatchRecordsEachRestart(t *testing.T) {
	dir := t.TempDir()
	bin := testutil.Mcpscope(t)
	tools := toolFile(t, dir, "tools.json", schemaV1)
	rec := filepath.Join(dir, "watch.jsonl")
	cmd := exec.Command(bin, "--inspect", "--watch", tools, "--watch-debounce", "100ms", "--record", rec, "--trace", "--", bin, "host", "--tools", tools)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb syncBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-done
		}
	}()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, out)
	}()
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
	toolFile(t, dir, "tools.json", schemaOptional)
	waitLine("changed: restarting")
	waitLine("connected: 1 tool: greet")

	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("did not stop on SIGINT")
	}
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatalf("--record wrote no file: %v\nstderr: %s", err, errb.String())
	}
	// Two sessions, each listing the tools: the first, with schemaV1, and the one after
	// the restart, with the new "loud" parameter.
	if n := strings.Count(string(data), `"method":"tools/list"`); n < 2 {
		t.Errorf("the recording has %d tools/list requests, want one per session (2):\n%s", n, data)
	}
	if !strings.Contains(string(data), `"loud"`) {
		t.Errorf("the recording lacks the restarted session (its tool has \"loud\"):\n%s", data)
	}
	if !strings.Contains(errb.String(), "tools/list") {
		t.Errorf("--trace showed nothing on stderr:\n%s", errb.String())
	}
}
