package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// binPath is the fakemcp program built once for all tests: the scenarios are about how
// a real process behaves on its pipes, so they are tested through one.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fakemcp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "fakemcp")
	if runtime.GOOS == "windows" {
		binPath += ".exe"
	}
	if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building fakemcp: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fake is one running fakemcp process.
type fake struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr bytes.Buffer // read only after wait
}

// start runs a scenario. The process is killed at the latest when the test ends, or
// after 2 min (generous: CI is a loaded machine under -race), which also turns a
// hung read into a failed one (EOF).
func start(t *testing.T, scenario string, env ...string) *fake {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	f := &fake{t: t, cmd: exec.CommandContext(ctx, binPath, scenario)}
	f.cmd.Env = append(os.Environ(), env...)
	f.cmd.Stderr = &f.stderr
	var err error
	if f.stdin, err = f.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := f.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	f.stdout = bufio.NewReader(stdout)
	if err := f.cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()     // kills the process if it is still running
		f.cmd.Wait() // reaps it; an error just means wait already did
	})
	return f
}

func (f *fake) send(msg string) {
	f.t.Helper()
	if _, err := io.WriteString(f.stdin, msg); err != nil {
		f.t.Fatalf("writing to fakemcp: %v", err)
	}
}

// call sends an NDJSON request and returns the next message, decoded.
func (f *fake) call(msg string) map[string]any {
	f.t.Helper()
	f.send(msg + "\n")
	return f.next()
}

func (f *fake) next() map[string]any {
	f.t.Helper()
	line, err := f.stdout.ReadBytes('\n')
	if err != nil {
		f.t.Fatalf("reading from fakemcp: %v (got %q)", err, line)
	}
	return decode(f.t, line)
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not a JSON object: %q: %v", b, err)
	}
	return m
}

// wait closes stdin and returns the exit code and stderr.
func (f *fake) wait() (int, string) {
	f.t.Helper()
	f.stdin.Close()
	err := f.cmd.Wait()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		f.t.Fatalf("waiting for fakemcp: %v", err)
	}
	return f.cmd.ProcessState.ExitCode(), f.stderr.String()
}

// field walks a decoded message: field(m, "result", "tools", 0, "name").
func field(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %q: not an object: %v", k, v)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("at [%d]: not an array that long: %v", k, v)
			}
			v = a[k]
		}
	}
	return v
}

func TestNDJSON(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "pids")
	f := start(t, "ndjson", "FAKEMCP_PIDFILE="+pidfile)

	initReply := f.call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	if got := field(t, initReply, "result", "protocolVersion"); got != "2025-06-18" {
		t.Errorf("protocolVersion = %v, want the offered 2025-06-18", got)
	}
	f.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n") // no reply
	disc := f.call(`{"jsonrpc":"2.0","id":"d","method":"server/discover"}`)
	if field(t, disc, "id") != "d" || field(t, disc, "error", "code") != -32601.0 {
		t.Errorf("server/discover reply = %v", disc)
	}
	list := f.call(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var names []string
	for _, tool := range field(t, list, "result", "tools").([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	if got := strings.Join(names, ","); got != "echo,add,fail,big,crash" {
		t.Errorf("tools = %s", got)
	}
	add := f.call(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":2.5,"tags":["x"]}}}`)
	if field(t, add, "result", "structuredContent", "sum") != 3.5 || field(t, add, "result", "content", 0, "text") != "3.5" {
		t.Errorf("add reply = %v", add)
	}
	if got := field(t, add, "result", "echoArgs", "tags", 0); got != "x" {
		t.Errorf("echoArgs.tags[0] = %v", got)
	}
	unknown := f.call(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}`)
	if field(t, unknown, "error", "message") != "Unknown tool: nope" {
		t.Errorf("unknown tool reply = %v", unknown)
	}

	code, stderr := f.wait()
	if code != 0 || !strings.Contains(stderr, "fakemcp: ndjson starting\n") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	pids, err := os.ReadFile(pidfile)
	if want := strconv.Itoa(f.cmd.Process.Pid) + "\n"; err != nil || string(pids) != want {
		t.Errorf("pidfile = %q, %v; want %q", pids, err, want)
	}
}

func TestContentLength(t *testing.T) {
	t.Parallel()
	f := start(t, "content-length")
	// The NDJSON line must be ignored: the first thing out is the framed reply.
	initReq := `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`
	f.send(initReq + "\n")
	f.send(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(initReq), initReq))

	header, err := f.stdout.ReadString('\n')
	if err != nil || !strings.HasPrefix(header, "Content-Length: ") || !strings.HasSuffix(header, "\r\n") {
		t.Fatalf("header = %q, %v", header, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(header, "Content-Length: ")))
	if err != nil {
		t.Fatal(err)
	}
	body := make([]byte, n+2)
	if _, err := io.ReadFull(f.stdout, body); err != nil || string(body[:2]) != "\r\n" {
		t.Fatalf("body = %q, %v", body, err)
	}
	reply := decode(t, body[2:])
	if field(t, reply, "id") != 7.0 || field(t, reply, "result", "protocolVersion") != "2024-11-05" {
		t.Errorf("initialize reply = %v", reply)
	}
	if code, _ := f.wait(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

func TestProgressCancel(t *testing.T) {
	t.Parallel()
	f := start(t, "progress")
	f.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"steps":40},"_meta":{"progressToken":"tok"}}}` + "\n")
	first := f.next()
	if field(t, first, "method") != "notifications/progress" || field(t, first, "params", "progressToken") != "tok" {
		t.Fatalf("first message = %v", first)
	}
	f.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}` + "\n")
	f.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n")
	// Progress already under way may still arrive, but no reply to the cancelled call.
	for {
		msg := f.next()
		if msg["method"] == "notifications/progress" {
			continue
		}
		if msg["id"] != 2.0 {
			t.Fatalf("expected only the ping reply, got %v", msg)
		}
		break
	}
	code, stderr := f.wait()
	if code != 0 || !strings.Contains(stderr, "fakemcp: cancelled request 1\n") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestEnvelopeScenarios(t *testing.T) {
	t.Parallel()
	for scenario, want := range map[string]string{
		"string-id":  `{"jsonrpc":"2.0","id":"5","result":{}}`,
		"no-jsonrpc": `{"id":5,"result":{}}`,
	} {
		f := start(t, scenario)
		f.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}` + "\n")
		line, err := f.stdout.ReadString('\n')
		if err != nil || line != want+"\n" {
			t.Errorf("%s: reply %q, %v; want %s", scenario, line, err, want)
		}
		f.wait()
	}
}

func TestExitAtOnce(t *testing.T) {
	t.Parallel()
	f := start(t, "exit-at-once")
	code, stderr := f.wait()
	want := "fakemcp: exit-at-once starting\nfakemcp: fatal: missing configuration FOO_TOKEN\n"
	if code != 1 || stderr != want {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
