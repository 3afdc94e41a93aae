// Package testutil holds what mcpscope's tests share: building the test servers and
// the mcpscope binary once per test process, locating the npm reference servers, and
// checking that no process a test started is left behind.
package testutil

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Root is the repository root.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

var (
	buildMu  sync.Mutex
	built    = map[string]string{}
	binDir   string
	binDirMu sync.Once
)

// Build compiles the main package at pkg (relative to the repo root, e.g.
// "./cmd/mcpscope") once per test process and returns the binary's path.
func Build(t testing.TB, pkg string) string {
	t.Helper()
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

// Cleanup removes the built binaries; call it from TestMain after m.Run.
func Cleanup() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

// FakeServer returns the argv of the fake MCP server running one scenario.
func FakeServer(t testing.TB, scenario string) []string {
	return []string{Build(t, "./internal/testservers/fakemcp"), scenario}
}

// Mcpscope returns the path of the mcpscope binary.
func Mcpscope(t testing.TB) string { return Build(t, "./cmd/mcpscope") }

// Everything returns the argv that runs @modelcontextprotocol/server-everything over
// stdio, installed by `npm ci` in interop/ (scripts/test does that).
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
// signals to land) and at least min PIDs were recorded.
func AssertGone(t testing.TB, pidfile string, min int) {
	t.Helper()
	pids := PIDs(t, pidfile)
	if len(pids) < min {
		t.Fatalf("expected at least %d server processes recorded, found %d", min, len(pids))
	}
	deadline := time.Now().Add(2 * time.Second)
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
