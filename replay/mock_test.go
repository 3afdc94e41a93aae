package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/record"
)

const legacyRecording = `{"mcpscope":"recording","version":1}
{"t":0.1,"dir":"send","msg":{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}}
{"t":0.1,"dir":"recv","msg":{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}}
{"t":0.2,"dir":"send","msg":{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}}
{"t":0.2,"dir":"recv","msg":{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"rec","version":"1"}}}}
{"t":0.3,"dir":"send","msg":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}}
{"t":0.3,"dir":"recv","msg":{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"a"}]}}}
{"t":0.4,"dir":"send","msg":{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}}}
{"t":0.4,"dir":"recv","msg":{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"b"}]}}}
{"t":0.5,"dir":"send","msg":{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"now"}}}
{"t":0.5,"dir":"recv","msg":{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"t1"}]}}}
{"t":0.6,"dir":"send","msg":{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"now"}}}
{"t":0.6,"dir":"recv","msg":{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"t2"}]}}}
{"t":0.7,"dir":"send","msg":{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"tok"}}}}
{"t":0.7,"dir":"recv","msg":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":1}}}
{"t":0.7,"dir":"recv","msg":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}}
{"t":0.7,"dir":"recv","msg":{"jsonrpc":"2.0","id":7,"result":{"content":[]}}}
{"t":0.8,"dir":"send","msg":{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"cursor":"p2"}}}
{"t":0.8,"dir":"recv","msg":{"jsonrpc":"2.0","id":8,"result":{"tools":[{"name":"page2"}]}}}
{"t":0.9,"dir":"send","msg":{"jsonrpc":"2.0","id":9,"method":"tools/list"}}
{"t":0.9,"dir":"recv","msg":{"jsonrpc":"2.0","id":9,"result":{"tools":[{"name":"page1"}],"nextCursor":"p2"}}}
{"t":1.0,"kind":"end"}
`

func mock(t *testing.T, rec string) *Mock {
	t.Helper()
	r, err := record.Read(strings.NewReader(rec))
	if err != nil {
		t.Fatal(err)
	}
	return NewMock(r)
}

// ask sends one request and returns the replies as strings.
func ask(m *Mock, req string) []string {
	var out []string
	for _, b := range m.Handle([]byte(req)) {
		out = append(out, string(b))
	}
	return out
}

func TestMockMatching(t *testing.T) {
	m := mock(t, legacyRecording)
	var notes []string
	m.Log = func(s string) { notes = append(notes, s) }
	cases := []struct{ req, want string }{
		// Exact params (ignoring _meta), either order.
		{`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"echo","arguments":{"text":"b"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, `{"jsonrpc":"2.0","id":"x","result":{"content":[{"type":"text","text":"b"}]}}`},
		{`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}`, `{"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"a"}]}}`},
		// Same params twice: recorded order, then the last one again.
		{`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"now"}}`, `"text":"t1"`},
		{`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"now"}}`, `"text":"t2"`},
		{`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"now"}}`, `"text":"t2"`},
		// Same tool, other arguments.
		{`{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"echo","arguments":{"text":"zzz"}}}`, `"id":14,"result"`},
		// Cursor decides the page; absent params and {} are alike.
		{`{"jsonrpc":"2.0","id":15,"method":"tools/list","params":{}}`, `"page1"`},
		{`{"jsonrpc":"2.0","id":16,"method":"tools/list","params":{"cursor":"p2"}}`, `"page2"`},
		// Unknown tool: an error listing what was recorded.
		{`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"nope"}}`, `"code":-32602,"message":"no recorded tools/call matches tools/call nope; recorded: tools/call echo {\"text\":\"a\"}; tools/call echo {\"text\":\"b\"}; tools/call now; tools/call now; tools/call slow"`},
		{`{"jsonrpc":"2.0","id":18,"method":"prompts/list"}`, `"code":-32601`},
		// The handshake of the recorded era, and ping.
		{`{"jsonrpc":"2.0","id":19,"method":"server/discover","params":{}}`, `"code":-32601`},
		{`{"jsonrpc":"2.0","id":20,"method":"initialize","params":{}}`, `{"jsonrpc":"2.0","id":20,"result":{"protocolVersion":"2025-06-18"`},
		{`{"jsonrpc":"2.0","id":21,"method":"ping"}`, `{"jsonrpc":"2.0","id":21,"result":{}}`},
	}
	for _, c := range cases {
		got := ask(m, c.req)
		if len(got) != 1 || !strings.Contains(got[0], c.want) {
			t.Errorf("%s\n got %v\nwant %s", c.req, got, c.want)
		}
	}
	if len(notes) != 3 || !strings.Contains(notes[0], `tools/call echo {"text":"zzz"}: no recorded request has these params; answered as recorded for tools/call echo`) {
		t.Errorf("log: %q", notes)
	}
	if got := ask(m, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); len(got) != 0 {
		t.Errorf("a notification was answered: %v", got)
	}
}

func TestMockNotifications(t *testing.T) {
	m := mock(t, legacyRecording)
	got := ask(m, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":42}}}`)
	if len(got) != 3 || !strings.Contains(got[0], `"progressToken":42`) || !strings.Contains(got[1], "working") || !strings.Contains(got[2], `"id":1,"result"`) {
		t.Errorf("with a token: %v", got)
	}
	got = ask(m, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}`)
	if len(got) != 2 || strings.Contains(got[0], "progress") {
		t.Errorf("progress sent to a request that asked for none: %v", got)
	}
}

func TestMockModernRecording(t *testing.T) {
	rec := `{"mcpscope":"recording","version":1}
{"t":0.1,"dir":"send","msg":{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}}
{"t":0.1,"dir":"recv","msg":{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}},"instructions":"hi","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"host","version":"9"}}}}}
`
	m := mock(t, rec)
	got := ask(m, `{"jsonrpc":"2.0","id":5,"method":"server/discover","params":{}}`)
	if len(got) != 1 || !strings.Contains(got[0], `"id":5,"result":{"resultType":"complete"`) {
		t.Errorf("discover: %v", got)
	}
	// A legacy client gets an initialize result made from the discover result.
	got = ask(m, `{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`)
	var r struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
			Capabilities    map[string]any
			ServerInfo      struct{ Name, Version string }
			Instructions    string
		}
	}
	if len(got) != 1 || json.Unmarshal([]byte(got[0]), &r) != nil || r.Result.ProtocolVersion != "2025-03-26" || r.Result.ServerInfo.Name != "host" || r.Result.Instructions != "hi" || r.Result.Capabilities["tools"] == nil {
		t.Errorf("initialize: %v %+v", got, r)
	}
	got = ask(m, `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`)
	if len(got) != 1 || !strings.Contains(got[0], `"io.modelcontextprotocol/subscriptionId":7`) {
		t.Errorf("listen: %v", got)
	}
}

func TestServeStdioFramings(t *testing.T) {
	m := mock(t, legacyRecording)
	req := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, c := range []struct{ name, in, want string }{
		{"ndjson", req + "\n\n" + "garbage\n", `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: not JSON"}}` + "\n"},
		{"content-length", "Content-Length: 40\r\nContent-Type: application/json\r\n\r\n" + req, "Content-Length: 36\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"result":{}}`},
	} {
		var out bytes.Buffer
		if err := ServeStdio(context.Background(), m, strings.NewReader(c.in), &out, FramingAuto); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if out.String() != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, out.String(), c.want)
		}
	}
}

func TestMockHTTP(t *testing.T) {
	m := mock(t, legacyRecording)
	srv := httptest.NewServer(m.HTTPHandler())
	defer srv.Close()
	post := func(body string, header map[string]string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		resp, err := http.DefaultClient.Do(req.WithContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, body := post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}`, map[string]string{"Accept": "application/json, text/event-stream"})
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(body, `"text":"a"`) {
		t.Errorf("JSON reply: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	resp, body = post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":1}}}`, map[string]string{"Accept": "application/json, text/event-stream"})
	if resp.Header.Get("Content-Type") != "text/event-stream" || strings.Count(body, "event: message\ndata: ") != 3 {
		t.Errorf("SSE reply: %s %q", resp.Header.Get("Content-Type"), body)
	}
	resp, _ = post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("notification: %d", resp.StatusCode)
	}
	resp, _ = post(`{"jsonrpc":"2.0","id":3,"method":"ping"}`, map[string]string{"Origin": "http://evil.example"})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign origin: %d", resp.StatusCode)
	}
	resp, _ = post(`{"jsonrpc":"2.0","id":4,"method":"nope/nope"}`, nil)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown method: %d", resp.StatusCode)
	}
	g, err := http.Get(srv.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	g.Body.Close()
	if g.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d", g.StatusCode)
	}
}

// Issue 20 item A: the mock answered any call of a tool with a recorded answer of that
// tool whatever the arguments, and only serve's stderr said so. The recorded call
// whose arguments match exactly answers; else the one sharing the most argument
// values, and the answer says in its _meta (io.mcpscope/mock) that its arguments
// differ and which recorded call it is.
func TestMockSaysWhenTheArgumentsDiffer(t *testing.T) {
	rec := `{"mcpscope":"recording","version":1}
{"t":0.1,"dir":"send","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"city":"Oslo","units":"c"}}}}
{"t":0.1,"dir":"recv","msg":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Oslo 3C"}],"_meta":{"x":1}}}}
{"t":0.2,"dir":"send","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"city":"Rome","units":"f"}}}}
{"t":0.2,"dir":"recv","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Rome 60F"}]}}}
`
	m := mock(t, rec)
	var notes []string
	m.Log = func(s string) { notes = append(notes, s) }
	type answer struct {
		Result struct {
			Content []struct{ Text string }
			Meta    map[string]json.RawMessage `json:"_meta"`
		}
	}
	call := func(args string) answer {
		t.Helper()
		got := ask(m, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"weather","arguments":`+args+`}}`)
		var a answer
		if len(got) != 1 || json.Unmarshal([]byte(got[0]), &a) != nil || len(a.Result.Content) != 1 {
			t.Fatalf("%s: %v", args, got)
		}
		return a
	}
	// Exact: the recorded answer, as recorded.
	if a := call(`{"units":"f","city":"Rome"}`); a.Result.Content[0].Text != "Rome 60F" || a.Result.Meta != nil {
		t.Errorf("exact: %+v", a)
	}
	// Closest: Bergen in Fahrenheit shares the units with the Rome call, nothing with
	// the Oslo one.
	a := call(`{"city":"Bergen","units":"f"}`)
	if a.Result.Content[0].Text != "Rome 60F" {
		t.Errorf("closest: answered %q, want the Rome call (same units)", a.Result.Content[0].Text)
	}
	var note struct {
		Note       string `json:"note"`
		AnsweredAs string `json:"answeredAs"`
	}
	if err := json.Unmarshal(a.Result.Meta["io.mcpscope/mock"], &note); err != nil ||
		!strings.Contains(note.Note, "no recorded tools/call weather has these arguments") ||
		note.AnsweredAs != `tools/call weather {"city":"Rome","units":"f"}` {
		t.Errorf("the answer does not say its arguments differ: %s (%v)", a.Result.Meta["io.mcpscope/mock"], err)
	}
	// The recorded _meta stays beside the note.
	if a := call(`{"city":"Oslo","units":"k"}`); a.Result.Content[0].Text != "Oslo 3C" || string(a.Result.Meta["x"]) != "1" || a.Result.Meta["io.mcpscope/mock"] == nil {
		t.Errorf("closest to Oslo: %+v", a)
	}
	if len(notes) != 2 {
		t.Errorf("serve's notes: %q", notes)
	}
}
