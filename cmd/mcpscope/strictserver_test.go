package main_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// strictModernServer serves Streamable HTTP of 2026-07-28 only, as a strict server
// does: server/discover and tools/list (tools is the list's JSON array), and any
// request on another protocol version (an initialize, a _meta version it does not
// speak) is refused with HTTP 400 and -32022, data.supported naming what it speaks.
// It returns the endpoint's URL; the listener (127.0.0.1) closes when the test ends.
func strictModernServer(t *testing.T, tools string) string {
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
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &msg)
		if len(msg.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		var requested string
		_ = json.Unmarshal(msg.Params.Meta["io.modelcontextprotocol/protocolVersion"], &requested)
		if msg.Method == "initialize" || requested != "2026-07-28" {
			if requested == "" {
				requested = r.Header.Get("MCP-Protocol-Version")
			}
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":%q}}}`, msg.ID, requested)
			return
		}
		meta := `"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"strict","version":"1"}}`
		switch msg.Method {
		case "server/discover":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},%s}}`, msg.ID, meta)
		case "tools/list":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":%s,%s}}`, msg.ID, tools, meta)
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
