package host

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}`

func newHTTPHost(t *testing.T) (*Host, string) {
	t.Helper()
	h := newHost(t, Options{})
	srv := httptest.NewServer(h.HTTPHandler()) // binds 127.0.0.1:0
	t.Cleanup(srv.Close)
	return h, srv.URL
}

type rawResponse struct {
	status int
	header http.Header
	body   string
}

// rpc decodes the body as one JSON-RPC response (from JSON or from the last SSE event).
func (r rawResponse) rpc(t *testing.T) (result map[string]any, rpcErr map[string]any) {
	t.Helper()
	body := r.body
	if strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") {
		var last string
		for _, line := range strings.Split(body, "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				last = d
			}
		}
		body = last
	}
	var msg struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &msg); err != nil {
		t.Fatalf("response is not JSON-RPC: %v\n%s", err, r.body)
	}
	return msg.Result, msg.Error
}

func post(t *testing.T, url string, headers map[string]string, body string) rawResponse {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) rawResponse {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return rawResponse{resp.StatusCode, resp.Header, string(b)}
}

func modernHeaders(method, name string) map[string]string {
	h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

func TestHTTPLegacyHandshake(t *testing.T) {
	_, base := newHTTPHost(t)
	url := base + "/mcp"
	for _, version := range []string{"2025-11-25", "2025-06-18", "2025-03-26"} {
		t.Run(version, func(t *testing.T) {
			r := post(t, url, nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
			if r.status != http.StatusOK {
				t.Fatalf("initialize: %d %s", r.status, r.body)
			}
			if id := r.header.Get("Mcp-Session-Id"); id != "" {
				t.Errorf("Mcp-Session-Id %q minted; the host is stateless", id)
			}
			res, _ := r.rpc(t)
			if res["protocolVersion"] != version {
				t.Errorf("protocolVersion = %v; want %s", res["protocolVersion"], version)
			}
			r = post(t, url, nil, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			if r.status != http.StatusAccepted {
				t.Errorf("notifications/initialized: %d", r.status)
			}
			hdr := map[string]string{"MCP-Protocol-Version": version}
			if version == "2025-03-26" {
				hdr = nil // that revision has no version header
			}
			r = post(t, url, hdr, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"legacy"}}}`)
			res, rerr := r.rpc(t)
			if r.status != http.StatusOK || rerr != nil || !strings.Contains(r.body, `"text":"legacy"`) {
				t.Errorf("tools/call without a session: %d %s", r.status, r.body)
			}
			if r.header.Get("Content-Type") != "application/json" {
				t.Errorf("Content-Type = %q; want JSON by default", r.header.Get("Content-Type"))
			}
			_ = res
		})
	}
}

func TestHTTPModern(t *testing.T) {
	_, base := newHTTPHost(t)
	url := base + "/mcp"

	r := post(t, url, modernHeaders("server/discover", ""), `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`)
	res, rerr := r.rpc(t)
	if r.status != http.StatusOK || rerr != nil {
		t.Fatalf("server/discover: %d %s", r.status, r.body)
	}
	if res["resultType"] != "complete" {
		t.Errorf("resultType = %v", res["resultType"])
	}
	versions, _ := json.Marshal(res["supportedVersions"])
	if !strings.Contains(string(versions), `"2026-07-28"`) || !strings.Contains(string(versions), `"2025-11-25"`) {
		t.Errorf("supportedVersions = %s; want both eras", versions)
	}
	if r.header.Get("Mcp-Session-Id") != "" {
		t.Error("Mcp-Session-Id minted")
	}

	r = post(t, url, modernHeaders("tools/call", "echo"), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"modern"},`+modernMeta+`}}`)
	res, rerr = r.rpc(t)
	if r.status != http.StatusOK || rerr != nil || res["resultType"] != "complete" || !strings.Contains(r.body, `"text":"modern"`) {
		t.Errorf("tools/call: %d %s", r.status, r.body)
	}
	if !strings.Contains(r.body, `"io.modelcontextprotocol/serverInfo"`) {
		t.Errorf("result _meta lacks serverInfo: %s", r.body)
	}

	r = post(t, url, modernHeaders("tools/list", ""), `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{`+modernMeta+`}}`)
	res, _ = r.rpc(t)
	if _, ok := res["ttlMs"]; !ok || res["cacheScope"] == nil {
		t.Errorf("tools/list lacks ttlMs/cacheScope: %v", res)
	}
}

func TestHTTPErrors(t *testing.T) {
	_, base := newHTTPHost(t)
	url := base + "/mcp"
	call := func(method, name string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":{"name":"` + name + `",` + modernMeta + `}}`
	}
	tests := []struct {
		name    string
		headers map[string]string
		body    string
		status  int
		code    float64
		data    string
	}{
		{"unsupported version", map[string]string{"MCP-Protocol-Version": "1900-01-01", "Mcp-Method": "tools/call", "Mcp-Name": "echo"},
			strings.ReplaceAll(call("tools/call", "echo"), "2026-07-28", "1900-01-01"), 400, -32022, `"supported":[`},
		{"unsupported future version", map[string]string{"MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list"},
			strings.ReplaceAll(call("tools/list", ""), "2026-07-28", "2099-01-01"), 400, -32022, `"requested":"2099-01-01"`},
		{"method header mismatch", modernHeaders("tools/list", "echo"), call("tools/call", "echo"), 400, -32020, ""},
		{"name header mismatch", modernHeaders("tools/call", "add"), call("tools/call", "echo"), 400, -32020, ""},
		{"missing method header", map[string]string{"MCP-Protocol-Version": "2026-07-28"}, call("tools/call", "echo"), 400, -32020, ""},
		{"version header missing", nil, call("tools/call", "echo"), 400, -32020, ""},
		{"unknown method", modernHeaders("tools/frobnicate", ""), call("tools/frobnicate", ""), 404, -32601, ""},
		{"unknown method, legacy", map[string]string{"MCP-Protocol-Version": "2025-11-25"}, `{"jsonrpc":"2.0","id":7,"method":"tools/frobnicate"}`, 200, -32601, ""},
		{"unknown tool", modernHeaders("tools/call", "nope"), call("tools/call", "nope"), 400, -32602, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := post(t, url, tt.headers, tt.body)
			if r.status != tt.status {
				t.Errorf("status %d; want %d (%s)", r.status, tt.status, r.body)
			}
			_, rerr := r.rpc(t)
			if rerr == nil || rerr["code"] != tt.code {
				t.Errorf("error = %v; want code %v", rerr, tt.code)
			}
			if tt.data != "" && !strings.Contains(r.body, tt.data) {
				t.Errorf("body %s lacks %s", r.body, tt.data)
			}
		})
	}
}

func TestHTTPTransportRules(t *testing.T) {
	_, base := newHTTPHost(t)
	url := base + "/mcp"
	echo := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`
	legacy := map[string]string{"MCP-Protocol-Version": "2025-11-25"}

	t.Run("evil origin", func(t *testing.T) {
		h := map[string]string{"Origin": "http://evil.example", "MCP-Protocol-Version": "2025-11-25"}
		if r := post(t, url, h, echo); r.status != http.StatusForbidden {
			t.Errorf("status %d; want 403", r.status)
		}
	})
	t.Run("loopback origin", func(t *testing.T) {
		for _, o := range []string{"http://localhost:3000", "http://127.0.0.1:6274", "http://[::1]"} {
			h := map[string]string{"Origin": o, "MCP-Protocol-Version": "2025-11-25"}
			if r := post(t, url, h, echo); r.status != http.StatusOK {
				t.Errorf("Origin %s: status %d; want 200", o, r.status)
			}
		}
	})
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		t.Run(method, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), method, url, nil)
			req.Header.Set("Accept", "text/event-stream")
			r := do(t, req)
			if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "POST" {
				t.Errorf("status %d, Allow %q; want 405, POST", r.status, r.header.Get("Allow"))
			}
		})
	}
	t.Run("5 MiB body", func(t *testing.T) {
		big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 5<<20) + `"}}}`
		if r := post(t, url, legacy, big); r.status != http.StatusRequestEntityTooLarge {
			t.Errorf("status %d; want 413", r.status)
		}
		// Without a Content-Length (chunked), the limit holds while reading.
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, io.MultiReader(strings.NewReader(big)))
		req.ContentLength = -1
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if r := do(t, req); r.status != http.StatusRequestEntityTooLarge {
			t.Errorf("chunked: status %d; want 413", r.status)
		}
	})
	t.Run("body under the limit", func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 3<<20) + `"}}}`
		if r := post(t, url, legacy, body); r.status != http.StatusOK {
			t.Errorf("status %d; want 200", r.status)
		}
	})
	t.Run("SSE only", func(t *testing.T) {
		h := map[string]string{"Accept": "text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
		r := post(t, url, h, echo)
		if r.status != http.StatusOK || r.header.Get("Content-Type") != "text/event-stream" || !strings.Contains(r.body, "data: ") {
			t.Errorf("status %d, type %q, body %q", r.status, r.header.Get("Content-Type"), r.body)
		}
	})
	t.Run("progress streams", func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"steps":2,"delayMs":1},` +
			strings.Replace(modernMeta, `{`, `{"progressToken":"p",`, 1) + `}}`
		r := post(t, url, modernHeaders("tools/call", "slow"), body)
		if r.header.Get("Content-Type") != "text/event-stream" || strings.Count(r.body, "notifications/progress") != 2 {
			t.Errorf("type %q, body:\n%s", r.header.Get("Content-Type"), r.body)
		}
		if res, _ := r.rpc(t); res == nil {
			t.Errorf("no result after the progress events")
		}
	})
	t.Run("healthz", func(t *testing.T) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/healthz", nil)
		if r := do(t, req); r.status != http.StatusOK {
			t.Errorf("status %d", r.status)
		}
	})
}

func TestHTTPSDKClient(t *testing.T) {
	forEachEra(t, func(t *testing.T, version string) {
		h, base := newHTTPHost(t)
		changed := make(chan struct{}, 10)
		progress := make(chan float64, 10)
		c := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "0"}, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
			ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
				progress <- req.Params.Progress
			},
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Web"}}, nil
			},
		})
		cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		if got := cs.InitializeResult().ProtocolVersion; got != version {
			t.Fatalf("negotiated %s; want %s", got, version)
		}
		if cs.ID() != "" {
			t.Errorf("session id %q", cs.ID())
		}
		if got := textOf(call(t, cs, "echo", map[string]any{"text": "http"})); got != "http" {
			t.Errorf("echo = %q", got)
		}
		params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"steps": 2, "delayMs": 1}}
		params.SetProgressToken("p")
		if _, err := cs.CallTool(t.Context(), params); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			select {
			case <-progress:
			case <-time.After(testutil.Patience):
				t.Fatal("no progress over HTTP")
			}
		}
		res := call(t, cs, "ask", nil)
		if version >= "2026-07-28" {
			if textOf(res) != "Hello, Web!" {
				t.Errorf("ask over HTTP = %q", textOf(res))
			}
		} else if !res.IsError || !strings.Contains(textOf(res), "stateless HTTP") {
			// A stateless server cannot send requests to a 2025 client.
			t.Errorf("ask over legacy HTTP = %q; want an error that explains why", textOf(res))
		}
		if version >= "2026-07-28" {
			// list_changed reaches 2026 clients on their subscriptions/listen stream.
			call(t, cs, "toggle_tool", nil)
			select {
			case <-changed:
			case <-time.After(testutil.Patience):
				t.Error("no notifications/tools/list_changed over subscriptions/listen")
			}
			call(t, cs, "toggle_tool", nil)
		}

		// Cancelling a 2026 call closes its stream; the tool stops.
		if version >= "2026-07-28" {
			stopped := make(chan error, 1)
			h.testSlowDone = func(err error) { stopped <- err }
			// Cancelled once the tool has run (its first progress), never after a
			// fixed time: on a loaded machine 100 ms once passed before the request
			// reached the server, and the tool it was to stop never started.
			for len(progress) > 0 {
				<-progress
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"steps": 1000, "delayMs": 20}}
			params.SetProgressToken("cancel-me")
			errc := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, params)
				errc <- err
			}()
			select {
			case <-progress:
			case <-time.After(testutil.Patience):
				t.Fatal("the slow call sent no progress over HTTP")
			}
			cancel()
			if err := <-errc; err == nil {
				t.Fatal("a call that should have been cancelled succeeded")
			}
			select {
			case <-stopped:
			case <-time.After(testutil.Patience):
				t.Error("slow kept running after its HTTP stream was closed")
			}
		}
	})
}

func TestCheckBindAddr(t *testing.T) {
	tests := []struct {
		addr        string
		allowRemote bool
		want        string // "" means accepted
	}{
		{"127.0.0.1:5757", false, ""},
		{"127.0.0.2:0", false, ""},
		{"localhost:0", false, ""},
		{"[::1]:0", false, ""},
		{"0.0.0.0:5757", false, "every network interface"},
		{"[::]:5757", false, "every network interface"},
		{":5757", false, "every network interface"},
		{"192.168.1.20:5757", false, "not a loopback address"},
		{"example.com:80", false, "host name"},
		{"0.0.0.0:5757", true, ""},
		{"127.0.0.1", false, "want HOST:PORT"},
	}
	for _, tt := range tests {
		err := CheckBindAddr(tt.addr, tt.allowRemote)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckBindAddr(%q, %v) = %v; want nil", tt.addr, tt.allowRemote, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckBindAddr(%q, %v) = %v; want an error about %q", tt.addr, tt.allowRemote, err, tt.want)
		case tt.want != "" && tt.want != "want HOST:PORT" && !strings.Contains(err.Error(), "--allow-remote"):
			t.Errorf("CheckBindAddr(%q) = %v; the error should name --allow-remote", tt.addr, err)
		}
	}
}

func TestServeHTTP(t *testing.T) {
	h := newHost(t, Options{})

	err := ServeHTTP(t.Context(), h.HTTPHandler(), "0.0.0.0:0", false, func(net.Addr) { t.Error("listened on 0.0.0.0") })
	if err == nil || !strings.Contains(err.Error(), "refusing to listen") {
		t.Errorf("ServeHTTP on 0.0.0.0 = %v; want a refusal", err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	addrc := make(chan net.Addr, 1)
	errc := make(chan error, 1)
	go func() { errc <- ServeHTTP(ctx, h.HTTPHandler(), "127.0.0.1:0", false, func(a net.Addr) { addrc <- a }) }()
	var addr net.Addr
	select {
	case addr = <-addrc:
	case err := <-errc:
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+addr.String()+"/healthz", nil)
	if r := do(t, req); r.status != http.StatusOK || r.body != "ok\n" {
		t.Errorf("healthz: %d %q", r.status, r.body)
	}
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("ServeHTTP after cancel = %v; want nil", err)
		}
	case <-time.After(testutil.Patience):
		t.Fatal("ServeHTTP did not return after cancel")
	}
	if _, err := net.DialTimeout("tcp", addr.String(), time.Second); err == nil {
		t.Error("still listening after shutdown")
	}
}
