package main_test

import (
	"strings"
	"testing"
)

// A server that prints its cause first and a long trace after it, then exits: the
// message keeps the first lines as well as the last, with how many were left out
// between. Only the last 20 were kept, so "the cause: cannot open database" was lost
// under 20 lines of "at frame N" (the workbench already showed both ends).
func TestAFailureKeepsTheFirstStderrLinesToo(t *testing.T) {
	t.Parallel()
	r := fake(t, "exit-verbose", "call", "echo", "text=hi")
	expect(t, r, 1, nil, []string{
		"fakemcp: the cause: cannot open database notes.db",
		"… 38 more lines …",
		"at frame 60 (trace.go:60)",
		"fakemcp: giving up",
	})
}

// A server that ends after reading an NDJSON request is restarted once with
// Content-Length framing; when that start fails too, the message says that mcpscope
// restarted it and why. It did not, and the stderr showed the server starting twice
// with nothing to explain it.
func TestAFailureAfterTheFramingRestartSaysSo(t *testing.T) {
	t.Parallel()
	r := mcpscope(t, nil, "call", "echo", "text=hi", "--", "sh", "-c", `echo "starting $$" >&2; read x; exit 1`)
	expect(t, r, 1, nil, []string{
		"the server closed the connection before completing the handshake (server exited with code 1); mcpscope had restarted it once, with Content-Length framing: the server ended after reading an NDJSON request, without a reply",
	})
	// A server that fails without being restarted says nothing of a restart.
	r = fake(t, "exit-at-once", "call", "echo", "text=hi")
	expect(t, r, 1, nil, []string{"FOO_TOKEN"})
	if strings.Contains(r.stderr, "restarted") {
		t.Errorf("a server started once is said to have been restarted:\n%s", r.stderr)
	}
}
