package host_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// tsClient runs the official TypeScript SDK v2 client (interop/ts-client.mjs) against
// the host and returns what it printed: a client not written by us must list and call
// the host's tools, in both eras, over stdio and HTTP.
func tsClient(t *testing.T, args ...string) map[string]json.RawMessage {
	t.Helper()
	script := filepath.Join(testutil.Root(), "interop", "ts-client.mjs")
	if _, err := os.Stat(filepath.Join(testutil.Root(), "interop", "node_modules", "@modelcontextprotocol", "client")); err != nil {
		t.Fatalf("the TypeScript SDK client is not installed (%v); run scripts/test or npm ci in interop/", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{script}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ts-client %v: %v\n%s", args, err, stderr.String())
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("ts-client printed %q: %v", out, err)
	}
	return got
}

func checkTSResult(t *testing.T, got map[string]json.RawMessage, wantVersion string) {
	t.Helper()
	if v := strings.Trim(string(got["protocolVersion"]), `"`); v != wantVersion {
		t.Errorf("negotiated %s, want %s", v, wantVersion)
	}
	if !strings.Contains(string(got["tools"]), `"pretend_delete"`) {
		t.Errorf("tools = %s", got["tools"])
	}
	if !strings.Contains(string(got["echo"]), "from the TypeScript SDK") {
		t.Errorf("echo = %s", got["echo"])
	}
	if !strings.Contains(string(got["add"]), `"structuredContent":{"sum":5}`) {
		t.Errorf("add = %s", got["add"])
	}
	// The client checks a skills/list result the way it checks its own (a 2026-07-28
	// one without resultType is invalid).
	if !strings.Contains(string(got["skills"]), `"hello-world"`) {
		t.Errorf("skills = %s", got["skills"])
	}
	// A plain call of research, whose taskSupport is "required": 2026-07-28 without
	// the tasks extension runs it; before, it is -32601 (a CreateTaskResult there is
	// INVALID_RESULT to the client).
	research := string(got["research"])
	if wantVersion >= "2026-07-28" {
		if !strings.Contains(research, "Report on owls: 4 stages done.") {
			t.Errorf("plain research call = %s; want its report", research)
		}
	} else if !strings.Contains(research, `"code":-32601`) || !strings.Contains(research, "runs only as a task") {
		t.Errorf("plain research call = %s; want -32601 saying it runs only as a task", research)
	}
}

func TestTypeScriptClientOverStdio(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	for _, era := range []struct{ mode, version string }{{"legacy", "2025-11-25"}, {"modern", "2026-07-28"}} {
		t.Run(era.mode, func(t *testing.T) {
			t.Parallel()
			checkTSResult(t, tsClient(t, "stdio", era.mode, bin, "host"), era.version)
		})
	}
}

func TestTypeScriptClientOverHTTP(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	// Pick a free loopback port, then let the host bind it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	host := exec.Command(bin, "host", "--http", addr)
	stderr, _ := host.StderrPipe()
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		host.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { host.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(testutil.Patience):
			host.Process.Kill()
			<-done
		}
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "serving") {
				close(ready)
				break
			}
		}
		for sc.Scan() {
		}
	}()
	select {
	case <-ready:
	case <-time.After(testutil.Patience):
		t.Fatal("the host never said it was serving")
	}
	url := "http://" + addr + "/mcp"
	for _, era := range []struct{ mode, version string }{{"legacy", "2025-11-25"}, {"modern", "2026-07-28"}} {
		t.Run(era.mode, func(t *testing.T) {
			checkTSResult(t, tsClient(t, "http", era.mode, url), era.version)
		})
	}
}
