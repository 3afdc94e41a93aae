package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// A big tool result that comes as a server-sent event is decoded once, by the client,
// as one in a JSON body is (the SDK is handed a stand-in), and its bytes are gathered
// without copying them over and over. A call of 8 MiB allocated 29.6 times the payload
// in this process while the SDK decoded the event's data too (a 50 MiB call: 1.3 GB
// and 834,000 allocations); 6.3 times once it did not but the event still grew by
// append; 3.7 times now (a JSON body's read: about 3). The host runs in a process of
// its own so that only the client's allocations count; allocated bytes, not time, so
// the same on a loaded machine.
func TestBigResultOverSSEIsDecodedOnce(t *testing.T) {
	addr := startHTTPHost(t)
	c := context.Background()
	var s *client.Session
	var err error
	testutil.Eventually(t, "the host listening on "+addr, func() (bool, string) {
		s, err = client.Connect(c, client.Target{URL: "http://" + addr + "/mcp"}, client.Options{})
		return err == nil, fmt.Sprint(err)
	})
	defer s.Close()
	const payload = 8 << 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	// OnProgress asks for progress, which the host answers with an SSE stream.
	r, err := s.Call(c, "big", json.RawMessage(`{"megabytes":8}`), client.CallOptions{OnProgress: func(client.Progress) {}})
	runtime.ReadMemStats(&after)
	if err != nil || len(r.Content) != 1 || len(r.Content[0].Text) < payload {
		t.Fatalf("call: %v (%d blocks)", err, len(r.Content))
	}
	if got := float64(after.TotalAlloc-before.TotalAlloc) / payload; got > 5.5 {
		t.Errorf("the call allocated %.1f times its payload: the result was decoded more than once", got)
	} else {
		t.Logf("the call allocated %.1f times its payload", got)
	}
}
