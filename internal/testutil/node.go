package testutil

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// NodeServer is an npm reference server a test started over HTTP on 127.0.0.1.
type NodeServer struct {
	Addr string // 127.0.0.1:PORT
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer // its stderr and stdout
}

// Output returns what the server has printed so far.
func (s *NodeServer) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

var listeningRE = regexp.MustCompile(`mcpscope-loopback: listening on (127\.0\.0\.1:\d+)`)

// StartNode runs `node --require interop/loopback.cjs SCRIPT ARGS...` with PORT=0, so
// that whatever the script listens on is bound to 127.0.0.1 on a free port, and waits
// until it listens. script is relative to interop/. The server is stopped (SIGTERM,
// then SIGKILL, by PID) when the test ends.
func StartNode(t testing.TB, script string, args ...string) *NodeServer {
	t.Helper()
	dir := filepath.Join(Root(), "interop")
	if _, err := os.Stat(filepath.Join(dir, script)); err != nil {
		t.Fatalf("%s is not installed (%v); run scripts/test, or `npm ci` in interop/", script, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed: %v", err)
	}
	cmd := exec.Command(node, append([]string{"--require", filepath.Join(dir, "loopback.cjs"), filepath.Join(dir, script)}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PORT=0")
	s := &NodeServer{cmd: cmd}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", script, err)
	}
	pw.Close()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.out.WriteString(line + "\n")
			s.mu.Unlock()
			if m := listeningRE.FindStringSubmatch(line); m != nil && !sent {
				addr <- m[1]
				sent = true
			}
		}
		pr.Close()
	}()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	select {
	case s.Addr = <-addr:
	case <-done:
		t.Fatalf("%s %s exited before listening:\n%s", script, strings.Join(args, " "), s.Output())
	case <-time.After(30 * time.Second):
		t.Fatalf("%s %s did not listen within 30s:\n%s", script, strings.Join(args, " "), s.Output())
	}
	return s
}

// EverythingHTTP starts @modelcontextprotocol/server-everything in a network mode
// ("streamableHttp" or "sse") on 127.0.0.1 and returns its address.
func EverythingHTTP(t testing.TB, mode string) *NodeServer {
	return StartNode(t, filepath.Join("node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"), mode)
}
