// Package testutil holds what mcpscope's tests share: building the test servers and
// the mcpscope binary once per test process, locating the npm reference servers, and
// checking that no process a test started is left behind.
package testutil

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Patience is how long a test waits for something that should happen before it
// calls it a hang. It is generous on purpose: CI is a loaded two-core machine
// running the suite under -race, where a step that takes 50 ms on a laptop can
// take many seconds. A test judges what happened, never how fast; speed belongs
// in benchmarks.
const Patience = 2 * time.Minute

// Context returns a context that ends after Patience: a test's hang guard.
func Context(t testing.TB) context.Context {
	c, cancel := context.WithTimeoutCause(context.Background(), Patience, fmt.Errorf("the test's hang guard: nothing finished within %v", Patience))
	t.Cleanup(cancel)
	return c
}

// Within runs fn and fails the test if it has not returned after Patience,
// saying that what hung. fn runs on its own goroutine, so it must not call
// t.Fatal (t.Error is fine).
func Within(t testing.TB, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(Patience):
		t.Fatalf("%s hung: it had not finished after %v", what, Patience)
	}
}

// Eventually waits until check holds, trying again after a short pause (1 ms at
// first, doubling to at most 50 ms), and fails the test after Patience, saying
// what it waited for and the last detail check gave (a screen, a file's content).
// It is the one way tests wait for a condition: never a fixed sleep.
func Eventually(t testing.TB, what string, check func() (ok bool, detail string)) string {
	t.Helper()
	deadline := time.Now().Add(Patience)
	pause := time.Millisecond
	for {
		ok, detail := check()
		if ok {
			return detail
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s; it never came. Last seen:\n%s", Patience, what, detail)
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// WaitFile waits until the file at path holds want (any content when want is "",
// e.g. what a $BROWSER script wrote) and returns what it holds.
func WaitFile(t testing.TB, path, want string) []byte {
	t.Helper()
	var b []byte
	Eventually(t, fmt.Sprintf("%s to hold %q", path, want), func() (bool, string) {
		var err error
		b, err = os.ReadFile(path)
		return err == nil && len(b) > 0 && bytes.Contains(b, []byte(want)), string(b)
	})
	return b
}

// Root is the repository root.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

var (
	inMain   atomic.Bool // Main runs the tests, so the binaries built are removed
	buildMu  sync.Mutex
	built    = map[string]string{}
	binDir   string
	binDirMu sync.Once
)

// Build compiles the main package at pkg (relative to the repo root, e.g.
// "./cmd/mcpscope") once per test process and returns the binary's path.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	if !inMain.Load() {
		t.Fatal("testutil.Build: this package's TestMain must be `func TestMain(m *testing.M) { testutil.Main(m) }`, which removes the binaries built under the temporary directory")
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := built[pkg]; ok {
		return p
	}
	binDirMu.Do(func() {
		d, err := os.MkdirTemp("", "mcpscope-testbin-")
		if err != nil {
			panic(err)
		}
		binDir = d
	})
	out := filepath.Join(binDir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = Root()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	built[pkg] = out
	return out
}

// Main runs a package's tests and then removes the binaries Build made. Every
// package whose tests build a binary has `func TestMain(m *testing.M) { testutil.Main(m) }`.
//
// The tests' state directory ($XDG_STATE_HOME: the lasting call history) and runtime
// directory ($XDG_RUNTIME_DIR: the live taps' sockets) are temporary ones, removed at
// the end, so that no test, and no binary a test starts, writes into the user's own
// state or publishes a tap where the user's attach would see it.
func Main(m *testing.M) {
	inMain.Store(true)
	var temps []string
	for _, v := range []struct{ env, prefix string }{{"XDG_STATE_HOME", "mcpscope-test-state-"}, {"XDG_RUNTIME_DIR", "mcpscope-test-run-"}} {
		if d, err := os.MkdirTemp("", v.prefix); err == nil { // 0700
			os.Setenv(v.env, d)
			temps = append(temps, d)
		}
	}
	code := m.Run()
	cleanup()
	for _, d := range temps {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// cleanup removes the built binaries.
func cleanup() {
	buildMu.Lock()
	defer buildMu.Unlock()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

// FakeServer returns the argv of the fake MCP server running one scenario.
func FakeServer(t testing.TB, scenario string) []string {
	t.Helper()
	return []string{Build(t, "./internal/testservers/fakemcp"), scenario}
}

// Mcpscope returns the path of the mcpscope binary.
func Mcpscope(t testing.TB) string {
	t.Helper()
	return Build(t, "./cmd/mcpscope")
}

// Everything returns the argv that runs @modelcontextprotocol/server-everything over
// stdio, installed by `npm ci` in interop/ (scripts/test does that).
// NodeStdio is the command line of a stdio server script of interop/ (apps-server.mjs).
func NodeStdio(t testing.TB, script string) []string {
	t.Helper()
	path := filepath.Join(Root(), "interop", script)
	if _, err := os.Stat(filepath.Join(Root(), "interop", "node_modules", "@modelcontextprotocol", "server")); err != nil {
		t.Fatalf("the npm packages are not installed in interop/ (%v); run scripts/test, or `npm ci` in interop/", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed: %v", err)
	}
	return []string{node, path}
}

func Everything(t testing.TB) []string {
	t.Helper()
	script := filepath.Join(Root(), "interop", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("server-everything is not installed (%v); run scripts/test, or `npm ci` in interop/", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed: %v", err)
	}
	return []string{node, script, "stdio"}
}

// PIDFile returns a path for FAKEMCP_PIDFILE and the environment entry that sets it.
func PIDFile(t testing.TB) (path, env string) {
	path = filepath.Join(t.TempDir(), "pids")
	return path, "FAKEMCP_PIDFILE=" + path
}

// PIDs reads the PIDs recorded in a pid file.
func PIDs(t testing.TB, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading pid file: %v", err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		if err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

// Alive reports whether pid is a running process (a zombie counts as gone: it has
// ended and only waits for its parent, possibly init, to reap it).
func Alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesized command name.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	state := b[i+2]
	return state != 'Z' && state != 'X'
}

// AssertGone fails unless every PID in the pid file has ended (it allows a moment for
// signals to land, up to Patience) and at least min PIDs were recorded.
func AssertGone(t testing.TB, pidfile string, min int) {
	t.Helper()
	pids := PIDs(t, pidfile)
	if len(pids) < min {
		t.Fatalf("expected at least %d server processes recorded, found %d", min, len(pids))
	}
	deadline := time.Now().Add(Patience)
	for _, pid := range pids {
		for Alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if Alive(pid) {
			t.Errorf("server process %d is still running after mcpscope finished (an orphan)", pid)
			_ = syscallKill(pid)
		}
	}
}

// WriteExecutable writes a script that a test then runs. The file is written by a
// child process (sh), not by the test binary: a descriptor the test held open for
// writing would be inherited by any process a parallel test forks in that moment,
// and executing the script would then fail with "text file busy" (ETXTBSY).
func WriteExecutable(t testing.TB, path, body string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", `cat > "$1" && chmod 755 "$1"`, "sh", path)
	cmd.Stdin = strings.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("writing %s: %v\n%s", path, err, out)
	}
}
