package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// A .mcp.json that is a FIFO (or a device) is reported, not read: mcpscope used to
// block in open(2) forever, deaf to SIGTERM and SIGINT.
func TestConfigFIFO(t *testing.T) {
	t.Parallel()
	work, home := t.TempDir(), t.TempDir()
	fifo := filepath.Join(work, ".mcp.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	t.Cleanup(func() {
		// Release a reader that is still blocked (the bug), so the test can end.
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	r := mcpscopeIn(t, work, home, nil, "servers")
	expect(t, r, 0, []string{"No MCP servers configured"}, []string{"warning: " + fifo + ": not a regular file (a FIFO)"})
	r = mcpscopeIn(t, work, home, nil, "--inspect", "--config", ".mcp.json", "x")
	expect(t, r, 2, nil, []string{"not a regular file (a FIFO)"})

	// An envFile that is a FIFO: the entry's place and the reason.
	fifoEnv := filepath.Join(work, "secrets.env")
	if err := syscall.Mkfifo(fifoEnv, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifoEnv, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	cfg := filepath.Join(work, "mcp.json")
	writeFile(t, cfg, `{"servers": {"s": {"command": "true", "envFile": "secrets.env"}}}`)
	r = mcpscopeIn(t, work, home, nil, "--inspect", "--config", cfg, "s")
	expect(t, r, 2, nil, []string{`server "s"`, "envFile " + fifoEnv + ": not a regular file (a FIFO)"})
	r = mcpscopeIn(t, work, home, nil, "--inspect", "--env-file", fifoEnv, "--", "true")
	expect(t, r, 2, nil, []string{"--env-file " + fifoEnv + ": not a regular file (a FIFO)"})

	// /dev/zero behind the name: refused, not read until memory runs out.
	zero := filepath.Join(work, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	r = mcpscopeIn(t, work, home, nil, "servers", "--config", zero)
	expect(t, r, 2, nil, []string{"not a regular file (a character device)"})
}

// SIGTERM while mcpscope reads its config files ends it with 143; it used to stay
// blocked on a FIFO forever.
func TestSIGTERMDuringConfigRead(t *testing.T) {
	t.Parallel()
	work, home := t.TempDir(), t.TempDir()
	fifo := filepath.Join(work, ".mcp.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	cmd := exec.Command(testutil.Mcpscope(t), "servers")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	// Wait until mcpscope has the FIFO open for reading (a non-blocking open for
	// writing succeeds only then; the writer is kept open, so a blocking reader stays
	// blocked in read), or until it has finished.
	deadline := time.Now().Add(30 * time.Second)
wait:
	for time.Now().Before(deadline) {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			defer w.Close()
			break
		}
		select {
		case <-done:
			break wait
		case <-time.After(2 * time.Millisecond):
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("mcpscope servers did not end within 30 s of SIGTERM; stderr:\n%s", errb.String())
	}
	switch code := cmd.ProcessState.ExitCode(); code {
	case 143:
		if !strings.Contains(errb.String(), "interrupted") {
			t.Errorf("exit 143 without saying so: %s", errb.String())
		}
	case 0:
		// It had finished before the signal landed: the FIFO was reported, not read.
		if !strings.Contains(errb.String(), "not a regular file (a FIFO)") {
			t.Errorf("stderr: %s", errb.String())
		}
	default:
		t.Errorf("exit code %d, want 143 (or 0 when done before the signal); stderr:\n%s", code, errb.String())
	}
}

// servers shows an entry's own request timeout.
func TestServersShowTimeouts(t *testing.T) {
	t.Parallel()
	r := mcpscope(t, nil, "servers", "--config", filepath.Join(testutil.Root(), "config", "testdata", "timeouts.json"))
	expect(t, r, 0, []string{"request timeout 45s", "request timeout 2m30s", `timeout "soon" is not a duration`}, nil)
}

// A config file saved with a UTF-8 byte order mark (Windows Notepad's habit; VS Code
// reads such a file) is read, every line and column where it was: the mark had made
// the whole file "invalid character 'ï'", and its servers unknown.
func TestConfigWithAByteOrderMark(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "claude_desktop_config.json")
	os.WriteFile(file, []byte("\xef\xbb\xbf{\"mcpServers\": {\n  \"notes\": {\"command\": \"node\", \"args\": [\"notes.js\"]}\n}}\n"), 0o644)
	expect(t, mcpscope(t, nil, "servers", "--config", file), 0, []string{"notes", "node notes.js", file + ":2"}, nil)
	broken := filepath.Join(dir, "broken.json")
	os.WriteFile(broken, []byte("\xef\xbb\xbf{\"mcpServers\": {\n  \"notes\": {\"command\": node}\n}}\n"), 0o644)
	expect(t, mcpscope(t, nil, "servers", "--config", broken), 2, nil, []string{broken + ":2:"})
}

// A config file's command line often carries a key (--api-key sk-…, a token in a
// URL's query). What shows a configured server to people (servers, and check's report,
// whose JUnit file a CI job keeps as an artifact) shows it [redacted]; check still
// starts the server with it.
func TestConfiguredSecretsAreNotShown(t *testing.T) {
	t.Parallel()
	const key, tok = "sk-live-0123456789abcdef0123", "qs0123456789abcdef0123456789"
	file := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(file, []byte(`{"mcpServers":{
  "gh": {"command": "/bin/sh", "args": ["-c", "echo \"started with $1\" >&2; exit 3", "--api-key", "`+key+`"]},
  "web": {"url": "http://127.0.0.1:9/mcp?api_key=`+tok+`"}
}}`), 0o644)
	for _, args := range [][]string{
		{"servers", "--config", file},
		{"check", "--config", file, "gh", "web"},
		{"check", "--format", "junit", "--config", file, "gh", "web"},
		{"check", "--format", "json", "--config", file, "gh", "web"},
	} {
		r := mcpscope(t, nil, args...)
		// check's report has the server's stderr, which says what it was given: the
		// key reached the server.
		out := strings.ReplaceAll(r.stdout, "started with "+key, "")
		if strings.Contains(out, key) || strings.Contains(r.stdout+r.stderr, tok) {
			t.Errorf("%v shows a configured secret:\n%s%s", args, r.stdout, r.stderr)
		}
		if !slices.Contains(args, "junit") && !strings.Contains(r.stdout, "--api-key [redacted]") { // JUnit names a suite by the server's name only
			t.Errorf("%v does not show the command line, its key redacted:\n%s", args, r.stdout)
		}
		if args[0] == "check" && !strings.Contains(r.stdout, "started with "+key) {
			t.Errorf("%v: the server was not given its key:\n%s", args, r.stdout)
		}
	}
}
