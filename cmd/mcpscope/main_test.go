package main_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

type result struct {
	code           int
	stdout, stderr string
}

// mcpscope runs the built binary with args and the given extra environment, in a
// state directory of the test's own unless env names one: the first connection of
// --inspect and the workbench pins a server's surface there, and the tests of this
// binary run side by side against the same targets (the bundled host) with other
// surfaces, so a shared directory would make one test's pin another's drift.
func mcpscope(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(testutil.Mcpscope(t), args...)
	cmd.Env = append(append(os.Environ(), "XDG_STATE_HOME="+testState(t)), env...) // the last value wins
	return runCommand(t, cmd)
}

var testStates sync.Map // *testing.T → its state directory

// testState is t's own state directory, the same for every run of the binary in t
// (the call history of one run is there for the next).
func testState(t *testing.T) string {
	if d, ok := testStates.Load(t); ok {
		return d.(string)
	}
	d := t.TempDir()
	testStates.Store(t, d)
	t.Cleanup(func() { testStates.Delete(t) })
	return d
}

// runCommand runs cmd to its end (failing the test if it hangs for a minute) and
// returns its exit code and output.
func runCommand(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v hung; stderr:\n%s", cmd.Args, errb.String())
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
}

// fake runs mcpscope against a fake server scenario and checks that no server process
// is left afterwards.
func fake(t *testing.T, scenario string, args ...string) result {
	t.Helper()
	pidfile, env := testutil.PIDFile(t)
	argv := append(append([]string{}, args...), "--")
	argv = append(argv, testutil.FakeServer(t, scenario)...)
	r := mcpscope(t, []string{env}, argv...)
	if _, err := os.Stat(pidfile); err == nil {
		testutil.AssertGone(t, pidfile, 1)
	}
	return r
}

func everything(t *testing.T, args ...string) result {
	t.Helper()
	argv := append(append([]string{}, args...), "--")
	return mcpscope(t, nil, append(argv, testutil.Everything(t)...)...)
}

func expect(t *testing.T, r result, code int, stdout, stderr []string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	for _, s := range stdout {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, r.stdout)
		}
	}
	for _, s := range stderr {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
}

func TestInspectEverything(t *testing.T) {
	t.Parallel()
	r := everything(t, "--inspect")
	expect(t, r, 0, []string{"mcp-servers/everything", "2025-11-25 (legacy era) over stdio", "echo", "get-sum", "a*: number, b*: number"}, nil)

	r = everything(t, "--inspect", "--format", "json")
	expect(t, r, 0, nil, nil)
	var report struct {
		FormatVersion int    `json:"formatVersion"`
		Era           string `json:"era"`
		Tools         []struct {
			Name        string `json:"name"`
			Annotations map[string]struct {
				Value bool `json:"value"`
				Set   bool `json:"set"`
			} `json:"annotations"`
			Parameters []struct {
				Name     string `json:"name"`
				Required bool   `json:"required"`
			} `json:"parameters"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
		t.Fatalf("--format json is not JSON: %v\n%s", err, r.stdout)
	}
	if report.FormatVersion != 1 || report.Era != "legacy" || len(report.Tools) < 10 {
		t.Fatalf("report: %+v", report)
	}
	for _, tool := range report.Tools {
		if tool.Name == "echo" {
			ro := tool.Annotations["readOnly"]
			if !ro.Set || !ro.Value || len(tool.Parameters) != 1 || tool.Parameters[0].Name != "message" || !tool.Parameters[0].Required {
				t.Errorf("echo in JSON: %+v", tool)
			}
		}
	}

	r = everything(t, "--inspect", "--format", "markdown")
	expect(t, r, 0, []string{"# mcp-servers/everything", "| `echo` Echo Tool | yes | no | yes | no |"}, nil)
}

func TestCallEverything(t *testing.T) {
	t.Parallel()
	expect(t, everything(t, "call", "echo", "message=hello world"), 0, []string{"Echo: hello world"}, nil)
	// A wrong type in --args is refused before it is sent (exit 2); --no-validate
	// sends it, and the server's own refusal is an error result (exit 4).
	expect(t, everything(t, "call", "get-sum", "--args", `{"a":"one","b":2}`), 2, nil, []string{"argument a: got string, want number"})
	expect(t, everything(t, "call", "get-sum", "--no-validate", "--args", `{"a":"one","b":2}`), 4, nil, []string{`tool "get-sum" returned an error result`})
	expect(t, everything(t, "call", "get-sum", "a=1", "b=x"), 2, nil, []string{`b="x": the tool wants a number`})
	expect(t, everything(t, "call", "get-sum", "a=1", "b=2.5"), 0, []string{"3.5"}, nil)
	expect(t, everything(t, "call", "get-structured-content", "location=Chicago"), 0, []string{"structuredContent:", `"temperature": 36`}, nil)
	dir := t.TempDir()
	expect(t, everything(t, "call", "get-tiny-image", "--save-dir", dir), 0, []string{"[image image/png, 3.9 KiB, 20×20, saved to " + filepath.Join(dir, "get-tiny-image-2.png") + "]"}, nil)
	if b, err := os.ReadFile(filepath.Join(dir, "get-tiny-image-2.png")); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("saved image: %v", err)
	}
	r := everything(t, "call", "echo", "message=x", "--format", "json")
	var res struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.Content[0].Text != "Echo: x" {
		t.Errorf("--format json: %v\n%s", err, r.stdout)
	}
	expect(t, everything(t, "call", "ecko"), 2, nil, []string{`the server has no tool "ecko"; it has: echo`})
}

func TestCallFakeServers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		scenario string
		args     []string
		code     int
		stdout   []string
		stderr   []string
	}{
		{"text", "ndjson", []string{"call", "echo", "message=hi"}, 0, []string{"echo: hi"}, nil},
		{"coercion", "ndjson", []string{"call", "add", "a=2", "b=3", "flag=true", "tags=[\"x\"]", "opts:={\"k\":1}"}, 0, []string{`"sum": 5`}, nil},
		{"tool error", "ndjson", []string{"call", "fail"}, 4, []string{"this tool always fails"}, []string{"isError: true"}},
		{"crash mid-call", "ndjson", []string{"call", "crash"}, 1, nil, []string{"closed the connection", "exited with code 3", "crashing now"}},
		{"content-length server", "content-length", []string{"call", "echo", "message=cl"}, 0, []string{"echo: cl"}, nil},
		{"banner", "banner", []string{"call", "echo", "message=b"}, 0, []string{"echo: b"}, []string{`note: the server wrote 1 non-JSON line to stdout`}},
		{"ignores discover", "discover-silent", []string{"--inspect"}, 0, []string{"5 tools"}, nil},
		{"no jsonrpc", "no-jsonrpc", []string{"call", "echo", "message=r"}, 1, nil, []string{"--repair"}},
		{"no jsonrpc repaired", "no-jsonrpc", []string{"call", "echo", "message=r", "--repair"}, 0, []string{"echo: r"}, nil},
		{"string id repaired", "string-id", []string{"--inspect", "--repair"}, 0, []string{"5 tools"}, nil},
		{"exits at once", "exit-at-once", []string{"--inspect"}, 1, nil, []string{"before completing the handshake", "exited with code 1", "missing configuration FOO_TOKEN"}},
		{"only garbage", "garbage", []string{"--inspect", "--probe-timeout", "100ms"}, 1, nil, []string{"none was a JSON-RPC message", "garbage line"}},
		{"500 MB line", "huge-line", []string{"--inspect"}, 0, []string{"5 tools"}, []string{"non-JSON line", "500.0 MiB"}},
		{"empty lines", "empty-lines", []string{"--inspect"}, 0, []string{"5 tools"}, nil},
		{"stubborn server", "stubborn", []string{"call", "echo", "message=s", "--grace", "100ms"}, 0, []string{"echo: s"}, nil},
		{"wrapper", "wrapper", []string{"call", "echo", "message=w", "--grace", "100ms"}, 0, []string{"echo: w"}, nil},
		{"unknown tool", "ndjson", []string{"call", "ech"}, 2, nil, []string{`no tool "ech"; it has: echo`}},
		{"malformed args", "ndjson", []string{"call", "echo", "--args", "{nope"}, 2, nil, []string{"--args is not a JSON object"}},
		{"args not an object", "ndjson", []string{"call", "echo", "--args", "[1]"}, 2, nil, []string{"--args is not a JSON object"}},
		{"bad pair", "ndjson", []string{"call", "echo", "=x"}, 2, nil, []string{`argument "=x" is not key=value`}},
		{"bad format", "ndjson", []string{"--inspect", "--format", "yaml"}, 2, nil, []string{"--format"}},
		{"unknown flag", "ndjson", []string{"--inspect", "--frobnicate"}, 2, nil, []string{"frobnicate"}},
		{"bad protocol", "ndjson", []string{"--inspect", "--protocol", "1999-01-01"}, 2, nil, []string{"unknown protocol version"}},
		// The idle bound is far above the 50 ms between progress notifications (a loaded
		// machine stretches them), so only the hard cap can end the 50 s call.
		{"timeout", "progress", []string{"call", "slow", "steps=1000", "--timeout", "20s", "--timeout-cap", "2s"}, 1, nil, []string{"did not finish within 2s, the hard cap"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			expect(t, fake(t, tc.scenario, tc.args...), tc.code, tc.stdout, tc.stderr)
		})
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	expect(t, mcpscope(t, nil, "call"), 2, nil, []string{"call needs a tool name"})
	expect(t, mcpscope(t, []string{"HOME=" + t.TempDir()}, "frob"), 2, nil, []string{`unknown command "frob"`, "to run a program: mcpscope -- frob"})
	expect(t, mcpscope(t, nil, "--keep", "lots"), 2, nil, []string{`"lots" is not a size`})
	expect(t, mcpscope(t, nil, "--keep", "16MiB"), 2, nil, []string{"the workbench needs a terminal"})
	expect(t, mcpscope(t, nil, "--inspect", "--", "mcpscope-no-such-server"), 1, nil, []string{`cannot start "mcpscope-no-such-server": no such command`})
	expect(t, mcpscope(t, nil, "--inspect", "--env-file", "/nonexistent/env", "--", "true"), 2, nil, []string{"--env-file"})
}

// With no server named, mcpscope uses its bundled host.
func TestDefaultTargetIsTheBundledHost(t *testing.T) {
	t.Parallel()
	expect(t, mcpscope(t, nil, "--inspect"), 0, []string{"mcpscope-host", "2026-07-28 (modern era)", "pretend_delete", "rich_form"}, nil)
	expect(t, mcpscope(t, nil, "call", "echo", "text=hi from the host"), 0, []string{"hi from the host"}, nil)
	expect(t, mcpscope(t, nil, "call", "add", "a=2", "b=3"), 0, []string{`"sum": 5`}, nil)
	expect(t, mcpscope(t, nil, "call", "fail"), 4, nil, []string{"isError: true"})
	// Its deliberate protocol fault is served only with --faults, and call warns of it.
	expect(t, mcpscope(t, nil, "call", "bad_output"), 2, nil, []string{`the server has no tool "bad_output"`})
	expect(t, mcpscope(t, nil, "call", "bad_output", "--", testutil.Mcpscope(t), "host", "--faults"), 0, nil, []string{"structuredContent does not match the outputSchema"})
	expect(t, mcpscope(t, nil, "--inspect", "--protocol", "2025-11-25"), 0, []string{"2025-11-25 (legacy era)"}, nil)
}

// host names the bundled host wherever a command takes its server, as check, lint,
// diff and --server take it: call, bench, ping, --inspect had tried to start a
// program named "host" (on many systems, the DNS lookup tool).
func TestHostNamesTheBundledHostEverywhere(t *testing.T) {
	t.Parallel()
	expect(t, mcpscope(t, nil, "call", "echo", "text=hi from host", "host"), 0, []string{"hi from host"}, nil)
	expect(t, mcpscope(t, nil, "--inspect", "host"), 0, []string{"mcpscope-host"}, nil)
	expect(t, mcpscope(t, nil, "ping", "host"), 0, nil, nil)
	expect(t, mcpscope(t, nil, "bench", "echo", "text=x", "-n", "3", "host"), 0, []string{"bench echo on host", "3 ok"}, nil)
	// After --, a word is a program, always.
	expect(t, mcpscope(t, nil, "ping", "--", "host"), 1, nil, []string{`cannot start "host"`})
}

func TestEnvironmentReachesTheServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	envFile := filepath.Join(dir, "env")
	os.WriteFile(envFile, []byte("# comment\nexport FROM_FILE=\"file value\"\n"), 0o600)
	r := everything(t, "call", "get-env", "-e", "FROM_FLAG=flag value", "--env-file", envFile)
	expect(t, r, 0, []string{`"FROM_FLAG": "flag value"`, `"FROM_FILE": "file value"`}, nil)
	os.WriteFile(envFile, []byte("not a pair\n"), 0o600)
	expect(t, mcpscope(t, nil, "--inspect", "--env-file", envFile, "--", "true"), 2, nil, []string{envFile + ":1: expected KEY=VALUE"})
}

// A signal to mcpscope ends the server too, and mcpscope exits with 128+signal.
func TestSignalsStopTheServer(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			pidfile, env := testutil.PIDFile(t)
			args := append([]string{"call", "slow", "steps=1000", "--grace", "100ms", "--trace", "--"}, testutil.FakeServer(t, "progress")...)
			cmd := exec.Command(testutil.Mcpscope(t), args...)
			cmd.Env = append(os.Environ(), env)
			var errb syncBuffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait until the call is running: --trace shows the server's first progress
			// notification.
			deadline := time.Now().Add(testutil.Patience)
			for !strings.Contains(errb.String(), "notifications/progress") {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("the call never reported progress; stderr:\n%s", errb.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			want := 128 + int(sig)
			if code := cmd.ProcessState.ExitCode(); code != want {
				t.Errorf("exit code %d (%v), want %d; stderr:\n%s", code, err, want, errb.String())
			}
			if !strings.Contains(errb.String(), "interrupted") {
				t.Errorf("stderr: %s", errb.String())
			}
			testutil.AssertGone(t, pidfile, 1)
		})
	}
}

// syncBuffer is a bytes.Buffer that a process may write while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
