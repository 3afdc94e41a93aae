// Package strictmodern is a test server that speaks only protocol 2026-07-28 over
// Streamable HTTP, strictly: server/discover, tools/list (of whatever tools returns
// now) and tools/call (answering "called"); any request on another protocol version
// (an initialize, a _meta version it does not speak) is refused with HTTP 400 and
// -32022, data.supported naming what it speaks. The CLI's and the TUI's tests share it.
package strictmodern

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Start serves on 127.0.0.1 and returns the endpoint's URL; the server closes when
// the test ends.
func Start(t testing.TB, tools func() string) string {
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
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":%s,%s}}`, msg.ID, tools(), meta)
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
