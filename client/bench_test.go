package client_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// Sequential tools/call echo against the bundled host over stdio: our session and wire
// layer, then the SDK's own client and CommandTransport on the same server. The issue's
// target is that our layer costs under 10%:
//
//	go test -run '^$' -bench 'Echo' -benchtime 3s ./client

func BenchmarkEchoOurClient(b *testing.B) {
	s, err := client.Connect(context.Background(), client.Target{Argv: []string{testutil.Mcpscope(b), "host"}}, client.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	args := json.RawMessage(`{"text":"hello"}`)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Call(ctx, "echo", args, client.CallOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

func BenchmarkEchoSDKClient(b *testing.B) {
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cmd := exec.Command(testutil.Mcpscope(b), "host")
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// BenchmarkCallBigResult: one tools/call of a 100 MiB text block from the fake server,
// through the session as the TUI and `call` use it (a tap listener sees every frame).
//
//	go test -run '^$' -bench CallBigResult -benchtime 3x ./client
func BenchmarkCallBigResult(b *testing.B) {
	tap := &wire.Tap{}
	var frames, bytes int
	tap.Listen(func(e wire.Event) { frames++; bytes += len(e.Data) })
	s, err := client.Connect(context.Background(), client.Target{Argv: testutil.FakeServer(b, "ndjson")}, client.Options{Tap: tap})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.SetBytes(100 << 20)
	b.ResetTimer()
	var peak uint64
	for i := 0; i < b.N; i++ {
		r, err := s.Call(context.Background(), "big", json.RawMessage(`{"mb":100}`), client.CallOptions{})
		if err != nil || len(r.Content[0].Text) != 100<<20 {
			b.Fatal(err)
		}
		// What holding the result costs, with the result alive: the frame, once.
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
		runtime.KeepAlive(r)
	}
	b.ReportMetric(float64(peak)/(100<<20), "heap/payload")
}
