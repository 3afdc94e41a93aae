package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs fn and fails the test if it has not returned within a generous deadline
// (a hang is the bug these tests guard against). unblock is called then, so that the
// goroutine can end.
func within(t *testing.T, unblock func(), fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		if unblock != nil {
			unblock()
		}
		t.Fatal("still reading after 30 s: the read hangs")
	}
}

// unblockFIFO opens the FIFO for writing and closes it, which ends a blocked open or
// read on the other side.
func unblockFIFO(path string) func() {
	return func() {
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// A .mcp.json that is a FIFO is refused at once with a message that says so; it used
// to block mcpscope forever in open(2).
func TestFIFOConfigIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".mcp.json")
	mkfifo(t, path)
	var err error
	within(t, unblockFIFO(path), func() {
		_, err = Load(context.Background(), Location{Path: path, Client: "test"})
	})
	var fe *FileError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "not a regular file (a FIFO)") || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v", err)
	}
	// Discovering with --config says the same, as a usage error.
	within(t, unblockFIFO(path), func() { _, err = Discover(context.Background(), path) })
	if err == nil || !strings.Contains(err.Error(), "not a regular file (a FIFO)") {
		t.Fatalf("Discover: %v", err)
	}
}

// An envFile that is a FIFO is refused when the target is made.
func TestFIFOEnvFileIsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "secrets.env")
	mkfifo(t, fifo)
	cfg := filepath.Join(dir, "mcp.json")
	os.WriteFile(cfg, []byte(`{"servers": {"s": {"command": "x", "envFile": "${workspaceFolder}/secrets.env"}}}`), 0o600)
	entries, err := Load(context.Background(), Location{Path: cfg, Client: "test", Workspace: dir})
	if err != nil || len(entries) != 1 {
		t.Fatalf("%v %v", entries, err)
	}
	within(t, unblockFIFO(fifo), func() { _, err = entries[0].Target(nil) })
	if err == nil || !strings.Contains(err.Error(), `server "s"`) || !strings.Contains(err.Error(), "envFile "+fifo+": not a regular file (a FIFO)") {
		t.Fatalf("err = %v", err)
	}
	within(t, unblockFIFO(fifo), func() { _, err = ReadEnvFile(fifo) })
	if err == nil || !strings.Contains(err.Error(), "--env-file "+fifo+": not a regular file (a FIFO)") {
		t.Fatalf("ReadEnvFile: %v", err)
	}
}

// A config that points at /dev/zero is refused instead of read until memory runs out.
func TestDevZeroIsRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	path := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.Symlink("/dev/zero", path); err != nil {
		t.Fatal(err)
	}
	var err error
	within(t, nil, func() { _, err = Load(context.Background(), Location{Path: path}) })
	if err == nil || !strings.Contains(err.Error(), "not a regular file (a character device)") {
		t.Fatalf("err = %v", err)
	}
}

// A regular file above the cap is refused by its size, before it is read.
func TestHugeConfigIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(MaxConfigSize + 1) // sparse: costs no disk
	f.Close()
	_, err = Load(context.Background(), Location{Path: path})
	if err == nil || !strings.Contains(err.Error(), "64.0 MiB is larger than the 64.0 MiB mcpscope reads") {
		t.Fatalf("err = %v", err)
	}
}

func manyEntries(n int) []byte {
	var sb strings.Builder
	sb.WriteString("{\n  \"mcpServers\": {\n")
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteString(",\n")
		}
		fmt.Fprintf(&sb, "    \"s%d\": {\"command\": \"node\", \"args\": [\"server.js\", \"--port\", \"%d\"]}", i, i)
	}
	sb.WriteString("\n  }\n}\n")
	return []byte(sb.String())
}

// 40,000 entries parse, each with its own line (speed: BenchmarkLoad).
func TestManyEntries(t *testing.T) {
	const n = 40000
	path := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(path, manyEntries(n), 0o600)
	entries, err := Load(context.Background(), Location{Path: path})
	if err != nil || len(entries) != n {
		t.Fatalf("%d entries, %v", len(entries), err)
	}
	for _, i := range []int{0, 1, 12345, n - 1} {
		e := entries[i]
		if e.Name != fmt.Sprintf("s%d", i) || e.Line != i+3 || e.Problem != "" || e.Args[2] != fmt.Sprint(i) {
			t.Errorf("entry %d: %+v", i, e)
		}
	}
}

// Parsing stops when the context ends (a signal), instead of finishing a big file.
func TestLoadStopsWhenCancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(path, manyEntries(5000), 0o600)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ctx, Location{Path: path}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if _, err := Discover(ctx, path); !errors.Is(err, context.Canceled) {
		t.Fatalf("Discover: %v", err)
	}
}

func TestEntryTimeouts(t *testing.T) {
	entries := load(t, "timeouts.json")
	want := map[string]time.Duration{
		"ms": 1500 * time.Millisecond, "secs": 45 * time.Second, "cline": 60 * time.Second,
		"gemini": 10 * time.Minute, "text": 150 * time.Second, "none": 0,
	}
	for name, d := range want {
		if e := byName(t, entries, name); e.Timeout != d || e.Problem != "" {
			t.Errorf("%s: timeout %v (problem %q), want %v", name, e.Timeout, e.Problem, d)
		}
	}
	if e := byName(t, entries, "bad"); !strings.Contains(e.Problem, `timeout "soon" is not a duration`) || !strings.Contains(e.Problem, "timeouts.json:9") {
		t.Errorf("bad: %q", e.Problem)
	}
	if e := byName(t, entries, "negative"); !strings.Contains(e.Problem, "timeoutMs must be a non-negative number") {
		t.Errorf("negative: %q", e.Problem)
	}
	s := &Sources{File: fixture(t, "timeouts.json").Path}
	srv, err := s.Named(context.Background(), "secs")
	if err != nil || srv.Timeout != 45*time.Second || srv.Target.Argv[0] != "x" {
		t.Fatalf("Named: %+v %v", srv, err)
	}
}

// BenchmarkLoad shows that parsing is linear: ns/entry stays flat as the file grows
// (it grew with the entry count when each entry's line was counted from the start).
func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{1000, 4000, 16000, 64000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "mcp.json")
			os.WriteFile(path, manyEntries(n), 0o600)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				entries, err := Load(context.Background(), Location{Path: path})
				if err != nil || len(entries) != n {
					b.Fatal(err, len(entries))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entry")
		})
	}
}
