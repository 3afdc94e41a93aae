package wire

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A server that answered one server/discover speaks 2026-07-28: a later discover (a
// ping on that revision) is never given a synthetic "method not found" because the
// server was slower than the probe time. A loaded machine is slower than 500 ms now
// and then, and `mcpscope ping` said the server lacked the method.
func TestOnlyTheFirstDiscoverIsProbed(t *testing.T) {
	// The server answers the first request at once (shell builtins only: nothing to
	// start) and the second after a pause longer than the probe time.
	script := `read -r l; printf '{"jsonrpc":"2.0","id":1,"result":{}}\n'; read -r l; sleep 1.5; printf '{"jsonrpc":"2.0","id":2,"result":{}}\n'; cat >/dev/null`
	tr := NewStdio(StdioOptions{Argv: []string{"/bin/sh", "-c", script}, ProbeTimeout: time.Second, Grace: 100 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := tr.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for i := int64(1); i <= 2; i++ {
		id, _ := jsonrpc.MakeID(float64(i))
		if err := conn.Write(ctx, &jsonrpc.Request{ID: id, Method: "server/discover"}); err != nil {
			t.Fatal(err)
		}
		msg, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		resp, ok := msg.(*jsonrpc.Response)
		if !ok {
			t.Fatalf("discover %d: got %T", i, msg)
		}
		if resp.Error != nil {
			t.Fatalf("discover %d was answered for the server: %v", i, resp.Error)
		}
	}
}
