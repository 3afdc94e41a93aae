package workbench

import (
	"testing"

	"github.com/mcpscope/mcpscope/client/wire"
)

// The reason an HTTP server is unreachable reads as one sentence: the tap's failed
// event says "failed: dial tcp …", and the status had read "the server cannot be
// reached: failed: dial tcp …".
func TestUnreachableSaysTheFailureOnce(t *testing.T) {
	s := &server{}
	s.status.State = StateConnected
	const dial = "dial tcp 127.0.0.1:9: connect: connection refused"
	s.followHTTPLocked(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: &wire.HTTPInfo{Error: dial}, Text: "failed: " + dial})
	if want := "the server cannot be reached: " + dial; s.unreachable != want {
		t.Errorf("unreachable = %q, want %q", s.unreachable, want)
	}
	s.followHTTPLocked(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: &wire.HTTPInfo{Status: 200}})
	if s.unreachable != "" {
		t.Errorf("a good response left the server unreachable: %q", s.unreachable)
	}
}
