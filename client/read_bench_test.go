package client_test

import (
	"context"
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
