package tui

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpscope/mcpscope/client"
)

// modernHTTPServer serves Streamable HTTP of 2026-07-28 (server/discover, tools/list
// of whatever tools holds now, tools/call answering "called"). It listens on
// 127.0.0.1 and closes when the test ends.
func modernHTTPServer(t *testing.T, tools *atomic.Value) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		if len(msg.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		meta := `"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"modern","version":"1"}}`
		switch msg.Method {
		case "server/discover":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},%s}}`, msg.ID, meta)
		case "tools/list":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":%s,%s}}`, msg.ID, tools.Load().(string), meta)
		case "tools/call":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"called"}],%s}}`, msg.ID, meta)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, msg.ID)
		}
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// A form left on a tool that the server still lists but mcpscope now refuses (its
// x-mcp-header became invalid: a 2026-07-28 HTTP client must drop it) says why enter
// sends nothing, as --inspect and call say it; it said the tool was no longer in the
// server's tool list.
func TestFormOnARefusedToolSaysWhy(t *testing.T) {
	var tools atomic.Value
	tools.Store(`[{"name":"region","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}}]`)
	h := newHarness(t, client.Target{URL: modernHTTPServer(t, &tools)}, 120, 40)
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
