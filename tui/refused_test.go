package tui

import (
	"github.com/mcpscope/mcpscope/internal/testservers/strictmodern"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpscope/mcpscope/target"
)

// modernHTTPServer is internal/testservers/strictmodern listing whatever tools holds now.
func modernHTTPServer(t *testing.T, tools *atomic.Value) string {
	t.Helper()
	return strictmodern.Start(t, func() string { return tools.Load().(string) })
}

// A form left on a tool that the server still lists but mcpscope now refuses (its
// x-mcp-header became invalid: a 2026-07-28 HTTP client must drop it) says why enter
// sends nothing, as --inspect and call say it; it said the tool was no longer in the
// server's tool list.
func TestFormOnARefusedToolSaysWhy(t *testing.T) {
	var tools atomic.Value
	tools.Store(`[{"name":"region","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}}]`)
	h := newHarness(t, target.Target{URL: modernHTTPServer(t, &tools)}, 120, 40)
	h.until("region", func(m *model) bool { _, ok := m.toolByName("main", "region"); return ok })
	h.press("enter")
	h.typeText("eu")
	tools.Store(`[{"name":"region","inputSchema":{"type":"object","properties":{"r":{"type":"number","x-mcp-header":"Region"}}}}]`)
	h.press("esc", "r")
	h.until("the refused tool", func(m *model) bool { _, ok := m.toolByName("main", "region"); return !ok })
	h.press("tab", "enter")
	if len(h.m.calls) != 0 {
		t.Fatalf("enter sent %s", h.m.calls[0].args)
	}
	if !strings.Contains(h.m.notice, "region is listed by") || !strings.Contains(h.m.notice, "mcpscope refused it") || !strings.Contains(h.m.notice, "x-mcp-header") {
		t.Errorf("enter said %q", h.m.notice)
	}
}
