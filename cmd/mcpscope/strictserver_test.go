package main_test

import (
	"github.com/mcpscope/mcpscope/internal/testservers/strictmodern"
	"strings"
	"testing"
)

// strictModernServer is internal/testservers/strictmodern serving the tools JSON array.
func strictModernServer(t *testing.T, tools string) string {
	t.Helper()
	return strictmodern.Start(t, func() string { return tools })
}

// A forced --protocol that a strict 2026-07-28 server does not speak is said in
// words, with what the server offered (its -32022 data.supported), not as the raw
// HTTP 400 body.
func TestForcedProtocolTheServerDoesNotSpeak(t *testing.T) {
	t.Parallel()
	url := strictModernServer(t, `[{"name":"echo","inputSchema":{"type":"object"}}]`)
	r := mcpscope(t, nil, "--inspect", "--protocol", "2025-11-25", url)
	if r.code == 0 {
		t.Fatalf("exit 0:\n%s\n%s", r.stdout, r.stderr)
	}
	expect(t, r, 1, nil, []string{"the server does not speak 2025-11-25; it offered 2026-07-28"})
	if strings.Contains(r.stderr, "HTTP 400") || strings.Contains(r.stderr, `"jsonrpc"`) {
		t.Errorf("the raw answer is shown:\n%s", r.stderr)
	}
	// Negotiated, the same server is fine.
	expect(t, mcpscope(t, nil, "--inspect", url), 0, []string{"echo"}, nil)
}

// A tool the server lists but mcpscope refused to offer (here an x-mcp-header on a
// number, which a 2026-07-28 HTTP client must drop) is named with why, as --inspect
// says it, not as a tool the server does not have.
func TestCallARefusedToolSaysWhy(t *testing.T) {
	t.Parallel()
	url := strictModernServer(t, `[{"name":"ok","inputSchema":{"type":"object"}},
		{"name":"bad","inputSchema":{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}}]`)
	r := mcpscope(t, nil, "--inspect", url)
	expect(t, r, 0, []string{"ok"}, nil)
	r = mcpscope(t, nil, "call", "bad", "n=1", url)
	expect(t, r, 2, nil, []string{`the server lists tool "bad", but mcpscope refused it: `, "x-mcp-header"})
	if strings.Contains(r.stderr, "has no tool") {
		t.Errorf("said the server has no such tool:\n%s", r.stderr)
	}
}
