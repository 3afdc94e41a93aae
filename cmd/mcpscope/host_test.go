package main_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// hostStdio runs "mcpscope host args..." with stdin as its input and returns stdout.
func hostStdio(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(testutil.Mcpscope(t), append([]string{"host"}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("mcpscope host %v: %v; stderr:\n%s", args, err, errb.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("mcpscope host %v did not exit after stdin ended", args)
	}
	return out.String()
}

func TestHostStdio(t *testing.T) {
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	initialized := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	echo := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"piped"}}}`

	out := hostStdio(t, strings.Join([]string{initialize, initialized, echo}, "\n")+"\n")
	if !strings.Contains(out, `"id":1,"result"`) || !strings.Contains(out, `"text":"piped"`) {
		t.Errorf("ndjson stdout:\n%s", out)
	}

	var in strings.Builder
	for _, m := range []string{initialize, initialized, echo} {
		fmt.Fprintf(&in, "Content-Length: %d\r\n\r\n%s", len(m), m)
	}
	out = hostStdio(t, in.String(), "--framing", "content-length")
	if !strings.HasPrefix(out, "Content-Length: ") || !strings.Contains(out, `"text":"piped"`) {
		t.Errorf("content-length stdout:\n%q", out)
	}
}

func TestHostUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"host", "--http", "0.0.0.0:5757"}, "refusing to listen on 0.0.0.0:5757"},
		{[]string{"host", "--http", "[::]:0"}, "--allow-remote"},
		{[]string{"host", "--framing", "lsp"}, `--framing "lsp"`},
		{[]string{"host", "--http", "127.0.0.1:0", "--framing", "ndjson"}, "cannot be combined"},
		{[]string{"host", "--demo"}, "--demo adds"},
		{[]string{"host", "--allow-remote"}, "applies to --http"},
	}
	for _, tt := range tests {
		r := mcpscope(t, nil, tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("mcpscope %v: exit %d, stderr %q; want exit 2 and %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
	r := mcpscope(t, nil, "host", "--tools", "../../host/testdata/bad/empty-tools.json")
	if r.code != 1 || !strings.Contains(r.stderr, "empty-tools.json") {
		t.Errorf("a bad tool file: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestHostHTTP(t *testing.T) {
	cmd := exec.Command(testutil.Mcpscope(t), "host", "--http", "127.0.0.1:0")
	stderr, stderrW := io.Pipe()
	cmd.Stderr = stderrW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		stderrW.Close()
		done <- err
	}()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			cmd.Process.Kill()
			<-done
		}
	})

	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stderr)
		line, _ := r.ReadString('\n')
		lines <- line
		io.Copy(io.Discard, r) // keep the pipe drained until the host exits
	}()
	var url string
	select {
	case line := <-lines:
		_, rest, ok := strings.Cut(line, "serving ")
		if !ok {
			t.Fatalf("first stderr line %q", line)
		}
		url, _, _ = strings.Cut(strings.TrimSpace(rest), " ")
	case <-time.After(30 * time.Second):
		t.Fatal("mcpscope host --http printed no address")
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("url %q", url)
	}
	resp, err := http.Get(strings.TrimSuffix(url, "/mcp") + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("healthz: %d", resp.StatusCode)
	}

	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		stopped = true
		if err != nil {
			t.Errorf("after SIGTERM: %v; want a clean exit", err)
		}
	case <-time.After(testutil.Patience):
		t.Fatal("mcpscope host --http ignored SIGTERM")
	}
}

// The bundled host's default surface is spec-clean: lint finds no error or warning in
// the rules of the protocol, security and the hosts that take ordinary JSON Schema
// (its one finding is an info: it declares logging, deprecated by 2026-07-28, for
// the clients of earlier revisions). Its deliberate protocol fault is behind
// --faults, which its help names. (check's side: TestCheckBundledHost.)
func TestBundledHostIsSpecClean(t *testing.T) {
	t.Parallel()
	expect(t, mcpscope(t, nil, "lint", "--no-pins", "--profile", "mcp,security,anthropic,claude-code", "--fail-on", "warning", "host"), 0,
		[]string{"  1 info\n", "deprecated-feature"}, nil)
	expect(t, mcpscope(t, nil, "host", "--help"), 0,
		[]string{"--faults", "serve deliberate protocol faults as fixtures for clients: bad_output (structuredContent that breaks its own outputSchema)"}, nil)
}
