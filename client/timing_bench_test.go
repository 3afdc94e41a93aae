package client_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// How long the detours of connecting take. The tests check what happens (the framing
// found, the message given, no process left); these measure how fast, which the tests
// must not judge (CI is a loaded two-core machine under -race):
//
//	go test -run '^$' -bench 'Connect|GiveUp|Close' -benchtime 5x ./client

// BenchmarkConnectContentLength: the NDJSON try, its silence, and the restart with
// Content-Length framing (two probe windows plus a restart; well under a second
// on an idle machine).
func BenchmarkConnectContentLength(b *testing.B) {
	argv := testutil.FakeServer(b, "content-length")
	for i := 0; i < b.N; i++ {
		s, err := client.Connect(context.Background(), client.Target{Argv: argv}, client.Options{Grace: 200 * time.Millisecond})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Call(context.Background(), "echo", json.RawMessage(`{"message":"x"}`), client.CallOptions{}); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkConnectDiscoverSilent: a server that ignores server/discover costs one
// probe window.
func BenchmarkConnectDiscoverSilent(b *testing.B) {
	argv := testutil.FakeServer(b, "discover-silent")
	for i := 0; i < b.N; i++ {
		s, err := client.Connect(context.Background(), client.Target{Argv: argv}, client.Options{Grace: 200 * time.Millisecond})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkGiveUpOnGarbage: with a 100 ms probe, ten probe times of non-JSON output
// before the connect fails.
func BenchmarkGiveUpOnGarbage(b *testing.B) {
	argv := testutil.FakeServer(b, "garbage")
	for i := 0; i < b.N; i++ {
		if _, err := client.Connect(context.Background(), client.Target{Argv: argv}, client.Options{Grace: 200 * time.Millisecond, ProbeTimeout: 100 * time.Millisecond}); err == nil {
			b.Fatal("connected to a server that prints only garbage")
		}
	}
}

// BenchmarkCloseStubborn: Close of a server that ignores EOF and SIGTERM takes the
// grace period and a SIGKILL.
func BenchmarkCloseStubborn(b *testing.B) {
	argv := testutil.FakeServer(b, "stubborn")
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		s, err := client.Connect(context.Background(), client.Target{Argv: argv}, client.Options{Grace: 100 * time.Millisecond})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		s.Close()
		b.StopTimer()
	}
}
