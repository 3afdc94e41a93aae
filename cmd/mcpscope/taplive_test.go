package main_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/tap/live"
)

// A running stdio tap is live: mcpscope taps lists it with its host's clientInfo, its
// stream (what mcpscope attach reads) gives the recording from its header on and
// then each message as the host and the server exchange it; when the host closes
// stdin, the tap is listed finished with its recording.
func TestTapPublishesItsLiveStream(t *testing.T) {
	t.Parallel()
	runDir, stateDir := t.TempDir(), t.TempDir()
	env := []string{"XDG_RUNTIME_DIR=" + runDir, "XDG_STATE_HOME=" + stateDir}
	rec := filepath.Join(t.TempDir(), "tapped.jsonl")
	bin := testutil.Mcpscope(t)
	cmd := exec.Command(bin, "tap", "--name", "live-e2e", "--record", rec, "--", bin, "host")
	cmd.Env = append(os.Environ(), env...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); <-done })
	answers := bufio.NewScanner(stdout)
	answers.Buffer(nil, 1<<20)
	ask := func(line string) string {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if !answers.Scan() {
			t.Fatalf("no answer to %s", line)
		}
		return answers.Text()
	}
	ask(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e-host","version":"3.1.4"}}}`)
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")

	// Listed live, with the host's clientInfo.
	testutil.Eventually(t, "the tap listed live with its host", func() (bool, string) {
		r := mcpscope(t, env, "taps")
		return strings.Contains(r.stdout, "live-e2e") && strings.Contains(r.stdout, "live (pid ") && strings.Contains(r.stdout, "e2e-host 3.1.4"), r.stdout + r.stderr
	})
	// What mcpscope attach reads: the info file the tap wrote, then its socket (this
	// test runs beside others, so it reads the file rather than set the environment).
	var info live.Info
	b, err := os.ReadFile(filepath.Join(runDir, "mcpscope", "taps", "live-e2e.json"))
	if err == nil {
		err = json.Unmarshal(b, &info)
	}
	if err != nil {
		t.Fatal(err)
	}
	stream, err := live.Open(info)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stream)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(what string, ok func(string) bool) string {
		t.Helper()
		deadline := time.After(testutil.Patience)
		for {
			select {
			case l, open := <-lines:
				if !open {
					t.Fatalf("the stream ended before %s", what)
				}
				if ok(l) {
					return l
				}
			case <-deadline:
				t.Fatalf("no %s on the live stream", what)
			}
		}
	}
	var header struct {
		Format string `json:"mcpscope"`
		Client struct{ Name string }
	}
	if err := json.Unmarshal([]byte(next("header", func(string) bool { return true })), &header); err != nil || header.Format != "recording" || header.Client.Name != "e2e-host" {
		t.Fatalf("the stream's first line is not the recording's header naming the host: %+v %v", header, err)
	}
	// A call made now reaches the stream as it happens: the host's request, then the
	// server's answer.
	answer := ask(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"seen live"}}}`)
	if !strings.Contains(answer, "seen live") {
		t.Fatalf("the host's call through the tap: %s", answer)
	}
	next("the host's call", func(l string) bool { return strings.Contains(l, `"dir":"send"`) && strings.Contains(l, `"tools/call"`) })
	next("the server's answer", func(l string) bool { return strings.Contains(l, `"dir":"recv"`) && strings.Contains(l, "seen live") })

	// The host goes: the tap ends and is listed finished, its recording named.
	stdin.Close()
	select {
	case <-done:
	case <-time.After(testutil.Patience):
		t.Fatal("the tap did not end after the host closed stdin")
	}
	expect(t, mcpscope(t, env, "taps"), 0, []string{"live-e2e", "finished", rec}, nil)
}
