package main_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// These benchmarks time whole commands, as a user runs them. Run with
//
//	go test -run '^$' -bench . -benchtime 20x ./cmd/mcpscope
//
// and compare BenchmarkInspectEverything with BenchmarkEverythingAlone (the target is
// within 1.3x), and read peak-RSS-MB (target under 30).

// runOnce runs argv with stdin and reports the peak RSS in MB of that process alone
// (not of the server it starts): its VmHWM, polled until it exits. wait4's rusage would
// fold in the children mcpscope reaps.
func runOnce(b *testing.B, stdin string, argv ...string) float64 {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	var peakKB int
	for {
		select {
		case err := <-done:
			if err != nil {
				b.Fatalf("%v: %v\n%s", argv, err, errb.String())
			}
			return float64(peakKB) / 1024
		case <-time.After(2 * time.Millisecond):
		}
		if kb := vmHWM(status); kb > peakKB {
			peakKB = kb
		}
	}
}

func vmHWM(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return n
		}
	}
	return 0
}

func benchCommand(b *testing.B, stdin string, argv ...string) {
	var peak float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if rss := runOnce(b, stdin, argv...); rss > peak {
			peak = rss
		}
	}
	b.ReportMetric(peak, "peak-RSS-MB")
}

// BenchmarkInspectEverything: mcpscope --inspect on server-everything over stdio.
func BenchmarkInspectEverything(b *testing.B) {
	argv := append([]string{testutil.Mcpscope(b), "--inspect", "--"}, testutil.Everything(b)...)
	benchCommand(b, "", argv...)
}

// BenchmarkEverythingAlone: the server's own start-and-answer time: node starts it,
// it answers initialize and tools/list read from a pipe, and exits at EOF.
func BenchmarkEverythingAlone(b *testing.B) {
	requests := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`
	benchCommand(b, requests, testutil.Everything(b)...)
}

// BenchmarkInspectGoServer: connect, list and exit against a Go stdio server (target:
// under 50 ms).
func BenchmarkInspectGoServer(b *testing.B) {
	argv := append([]string{testutil.Mcpscope(b), "--inspect", "--"}, testutil.FakeServer(b, "ndjson")...)
	benchCommand(b, "", argv...)
}
