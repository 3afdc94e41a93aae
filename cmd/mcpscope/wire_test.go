package main_test

import (
	"strings"
	"testing"
)

// --trace says which received responses answer no request in flight.
func TestTraceNotesStrayResponses(t *testing.T) {
	t.Parallel()
	r := fake(t, "stray", "call", "--trace", "echo", "message=hi")
	expect(t, r, 0, []string{"hi"}, []string{"note", "never sent a request with id 424242"})
}

// A response nested a million levels deep is one clear error, at once, exit 1.
func TestCallTooDeeplyNested(t *testing.T) {
	t.Parallel()
	r := fake(t, "deep", "call", "--timeout", "1h", "echo", "message=hi")
	if r.code == 0 || !strings.Contains(r.stderr, "too deeply nested") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// A server that never answers and ignores SIGTERM: the connect timeout is one clear
// error, and the server is gone afterwards (fake checks).
func TestConnectTimeoutEndsAHungServer(t *testing.T) {
	t.Parallel()
	r := fake(t, "hang", "--inspect", "--connect-timeout", "1s")
	if r.code == 0 || !strings.Contains(r.stderr, "did not complete the handshake within 1s (--connect-timeout)") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
