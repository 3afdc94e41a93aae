package client_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
)

// A server that read the first NDJSON request and ended is restarted with
// Content-Length framing even when more was written to it meanwhile: on a loaded
// machine the discover probe gave up on it before its end was seen, the SDK's
// initialize went into its pipe unread, and the unread bytes were taken for a server
// that never read anything (round 27: TestAFailureAfterTheFramingRestartSaysSo). The
// server here reads one line and ends a second later; the probe gives up after 50 ms.
func TestAServerThatReadAndEndedIsRetriedWithMoreUnread(t *testing.T) {
	t.Parallel()
	tap := &wire.Tap{}
	var mu sync.Mutex
	var synthetic []string
	tap.Listen(func(e wire.Event) {
		if e.Kind == wire.KindSynthetic {
			mu.Lock()
			synthetic = append(synthetic, e.Text)
			mu.Unlock()
		}
	})
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := client.Connect(c, client.Target{Argv: []string{"/bin/sh", "-c", "read x; sleep 1; exit 1"}},
		client.Options{Tap: tap, ProbeTimeout: 50 * time.Millisecond, Grace: 100 * time.Millisecond})
	if err == nil {
		s.Close()
		t.Fatal("a server that exits was connected to")
	}
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(synthetic, "\n")
	if !strings.Contains(all, "the server ignored server/discover") {
		t.Fatalf("the probe did not give up first, so this test shows nothing:\n%s", all)
	}
	if !strings.Contains(all, "restarting it with Content-Length framing") {
		t.Errorf("the server that read a request and ended was not restarted with Content-Length:\n%s\n(error: %v)", all, err)
	}
}
