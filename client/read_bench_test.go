package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os/exec"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// Reading a 50 MiB text resource from the bundled host over stdio: our session (the
// SDK plus our wire layer and our own decoding of the raw answer). The SDK's own
// CommandTransport cannot take part: it refuses a frame this size ("inbound JSON-RPC
// frame exceeded the configured maximum line length"). -benchmem gives the bytes
// allocated per read:
//
//	go test -run '^$' -bench 'Read50MB' -benchtime 3x -benchmem ./client

const read50MB = "mcpscope://demo/big/50"

func BenchmarkRead50MBOurClient(b *testing.B) {
	s, err := client.Connect(context.Background(), client.Target{Argv: []string{testutil.Mcpscope(b), "host"}}, client.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := s.Read(ctx, read50MB)
		if err != nil || len(r.Contents) != 1 || len(r.Contents[0].Text) != 50<<20 {
			b.Fatalf("read: %v", err)
		}
	}
}

// The same read over Streamable HTTP, from the host in a process of its own on
// 127.0.0.1 (so that -benchmem counts the client alone), in both eras: a JSON body.
func BenchmarkRead50MBHTTP(b *testing.B) {
	addr := startHTTPHost(b)
	url := "http://" + addr + "/mcp"
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		b.Run(protocol, func(b *testing.B) {
			ctx := context.Background()
			var s *client.Session
			var err error
			testutil.Eventually(b, "the host listening on "+addr, func() (bool, string) {
				s, err = client.Connect(ctx, client.Target{URL: url}, client.Options{Protocol: protocol})
				return err == nil, fmt.Sprint(err)
			})
			defer s.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r, err := s.Read(ctx, read50MB)
				if err != nil || len(r.Contents) != 1 || len(r.Contents[0].Text) != 50<<20 {
					b.Fatalf("read: %v", err)
				}
			}
		})
	}
}

// A 50 MiB tool result over Streamable HTTP as an SSE stream: the host answers a call
// that asks for progress (as call does whenever it has a timeout) with a stream. The
// SDK is handed a placeholder for the result, as on a JSON body, and the result is
// decoded once, by us; -benchmem tells a second decode by the SDK (about the payload
// again per call):
//
//	go test -run '^$' -bench 'CallBig50MBSSE' -benchtime 3x -benchmem ./client
func BenchmarkCallBig50MBSSE(b *testing.B) {
	addr := startHTTPHost(b)
	ctx := context.Background()
	var s *client.Session
	var err error
	testutil.Eventually(b, "the host listening on "+addr, func() (bool, string) {
		s, err = client.Connect(ctx, client.Target{URL: "http://" + addr + "/mcp"}, client.Options{})
		return err == nil, fmt.Sprint(err)
	})
	defer s.Close()
	b.SetBytes(50 << 20)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := s.Call(ctx, "big", json.RawMessage(`{"megabytes":50}`), client.CallOptions{OnProgress: func(client.Progress) {}})
		if err != nil || len(r.Content) != 1 || len(r.Content[0].Text) < 50<<20 {
			b.Fatalf("call: %v", err)
		}
	}
}

// startHTTPHost starts the bundled host in a process of its own (so that -benchmem and
// MemStats count the client alone) serving HTTP on a free 127.0.0.1 port, ended with
// tb; it returns the address. Callers wait for it with testutil.Eventually.
func startHTTPHost(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(testutil.Mcpscope(tb), "host", "--http", addr)
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return addr
}
