// Command sdklogs is the reference that scripts/bench-logs measures mcpscope's Logs view
// against: a bare go-sdk client that starts a stdio server, connects, and counts the
// notifications/message it receives until one says MARKER. It prints how many it
// counted, the seconds from its start, and its peak RSS (VmHWM), as one line:
//
//	sdklogs MARKER -- SERVER_CMD [ARGS...]
//	logs=100000 seconds=4.61 peak_rss_kib=23456
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	start := time.Now()
	if len(os.Args) < 4 || os.Args[2] != "--" {
		fmt.Fprintln(os.Stderr, "usage: sdklogs MARKER -- SERVER_CMD [ARGS...]")
		os.Exit(2)
	}
	marker, argv := os.Args[1], os.Args[3:]
	var n atomic.Int64
	done := make(chan struct{})
	c := mcp.NewClient(&mcp.Implementation{Name: "sdklogs", Version: "1"}, &mcp.ClientOptions{
		//lint:ignore SA1019 the logging API, deprecated by 2026-07-28 (SEP-2577), is what the flood server speaks and what this reference client measures
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			n.Add(1)
			if s, _ := r.Params.Data.(string); s == marker {
				close(done)
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.Command(argv[0], argv[1:]...)
	sess, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 100 * time.Millisecond}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sdklogs:", err)
		os.Exit(1)
	}
	select {
	case <-done:
	case <-ctx.Done():
		fmt.Fprintln(os.Stderr, "sdklogs: no marker before the deadline")
		os.Exit(1)
	}
	secs := time.Since(start).Seconds()
	fmt.Printf("logs=%d seconds=%.3f peak_rss_kib=%d\n", n.Load(), secs, peakRSS())
	_ = sess.Close()
}

// peakRSS is this process's VmHWM in KiB (0 where /proc does not say).
func peakRSS() int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			var kib int
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kib)
			return kib
		}
	}
	return 0
}
