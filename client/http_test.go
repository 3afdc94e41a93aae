package client_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/host"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// connectURL connects to an HTTP server; the session is closed when the test ends.
func connectURL(t *testing.T, target client.Target, opts client.Options) (*client.Session, *recorder) {
	t.Helper()
	s, rec, err := tryConnectURL(t, target, opts)
	if err != nil {
		t.Fatalf("connect %s: %v", target.URL, err)
	}
	return s, rec
}

func tryConnectURL(t *testing.T, target client.Target, opts client.Options) (*client.Session, *recorder, error) {
	t.Helper()
	rec := &recorder{}
	opts.Tap = &wire.Tap{}
	opts.Tap.Listen(rec.listen)
	if opts.ConnectTimeout == 0 {
		opts.ConnectTimeout = testutil.Patience
	}
	s, err := client.Connect(ctx(t), target, opts)
	if s != nil {
		t.Cleanup(func() { s.Close() })
	}
	return s, rec, err
}

// httpEvents returns the KindHTTP request events: "METHOD URL" with their headers.
func (r *recorder) requests() []wire.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []wire.Event
	for _, e := range r.events {
		if e.Kind == wire.KindHTTP && e.Dir == wire.Send && e.HTTP != nil && e.HTTP.Header != nil {
			out = append(out, e)
		}
	}
	return out
}

func (r *recorder) all() []wire.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]wire.Event(nil), r.events...)
}

func toolNamesOf(list *client.ToolList) []string {
	var names []string
	for _, t := range list.Tools {
		names = append(names, t.Name)
	}
	return names
}

func hasTool(list *client.ToolList, name string) bool {
	for _, t := range list.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// server-everything over Streamable HTTP: legacy era with a session.
func TestHTTPEverythingStreamable(t *testing.T) {
	t.Parallel()
	srv := testutil.EverythingHTTP(t, "streamableHttp")
	s, rec := connectURL(t, client.Target{URL: "http://" + srv.Addr + "/mcp"}, client.Options{Timeout: testutil.Patience})
	info := s.Info()
	if info.Transport != client.TransportStreamable || info.Era != client.EraLegacy || info.ProtocolVersion != "2025-11-25" || info.Name == "" {
		t.Fatalf("info = %+v", info)
	}
	list, err := s.Tools(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"echo", "get-sum", "get-structured-content", "trigger-long-running-operation"} {
		if !hasTool(list, want) {
			t.Errorf("no tool %s in %v", want, toolNamesOf(list))
		}
	}
	r, err := s.Call(ctx(t), "echo", json.RawMessage(`{"message":"over http"}`), client.CallOptions{})
	if err != nil || len(r.Content) == 0 || !strings.Contains(r.Content[0].Text, "over http") {
		t.Fatalf("echo: %+v, %v", r, err)
	}
	r, err = s.Call(ctx(t), "get-structured-content", json.RawMessage(`{"location":"Chicago"}`), client.CallOptions{})
	if err != nil || !strings.Contains(string(r.Structured), "temperature") {
		t.Fatalf("structured: %+v, %v", r, err)
	}
	var progress atomic.Int32
	r, err = s.Call(ctx(t), "trigger-long-running-operation", json.RawMessage(`{"duration":0.3,"steps":3}`), client.CallOptions{
		OnProgress: func(client.Progress) { progress.Add(1) },
	})
	if err != nil || r.IsError || progress.Load() != 3 {
		t.Fatalf("long-running: %+v, %v, %d progress", r, err, progress.Load())
	}
	// Invalid arguments: an error result (the tool ran its validation).
	r, err = s.Call(ctx(t), "get-sum", json.RawMessage(`{"a":"x"}`), client.CallOptions{})
	var rpcErr *client.RPCError
	if !(err == nil && r.IsError) && !errors.As(err, &rpcErr) {
		t.Fatalf("bad arguments: %+v, %v", r, err)
	}
	// A hand-written request carries the session.
	raw, err := s.Raw(ctx(t), "tools/list", nil)
	if err != nil || !strings.Contains(string(raw), `"echo"`) {
		t.Fatalf("raw: %s, %v", raw, err)
	}
	reqs := rec.requests()
	last := reqs[len(reqs)-1]
	if last.HTTP.Header.Get("Mcp-Session-Id") == "" || last.HTTP.Header.Get("Mcp-Protocol-Version") != "2025-11-25" {
		t.Errorf("raw request headers: %v", last.HTTP.Header)
	}
	// The standalone GET stream was opened, and everything is in the events.
	var sawGet, sawSSE bool
	for _, e := range rec.all() {
		if e.HTTP != nil && e.HTTP.Method == "GET" && e.Kind == wire.KindHTTP && e.Dir == wire.Send {
			sawGet = true
		}
		if e.Kind == wire.KindMessage && e.Framing == wire.FramingSSE {
			sawSSE = true
		}
	}
	if !sawGet || !sawSSE {
		t.Errorf("events: GET %v, SSE messages %v", sawGet, sawSSE)
	}
}

// server-everything over the legacy HTTP+SSE transport, found by detection.
func TestHTTPEverythingSSE(t *testing.T) {
	t.Parallel()
	srv := testutil.EverythingHTTP(t, "sse")
	s, rec := connectURL(t, client.Target{URL: "http://" + srv.Addr + "/sse"}, client.Options{Timeout: testutil.Patience})
	info := s.Info()
	if info.Transport != client.TransportSSE || info.Era != client.EraLegacy {
		t.Fatalf("info = %+v", info)
	}
	if _, ok := rec.find(wire.KindSynthetic, "trying the legacy HTTP+SSE transport"); !ok {
		t.Error("no note about falling back to HTTP+SSE")
	}
	list, err := s.Tools(ctx(t))
	if err != nil || !hasTool(list, "echo") {
		t.Fatalf("tools: %v %v", list, err)
	}
	r, err := s.Call(ctx(t), "get-structured-content", json.RawMessage(`{"location":"New York"}`), client.CallOptions{})
	if err != nil || r.Structured == nil {
		t.Fatalf("structured: %+v, %v", r, err)
	}
	var progress atomic.Int32
	r, err = s.Call(ctx(t), "trigger-long-running-operation", json.RawMessage(`{"duration":0.2,"steps":2}`), client.CallOptions{
		OnProgress: func(client.Progress) { progress.Add(1) },
	})
	if err != nil || r.IsError || progress.Load() != 2 {
		t.Fatalf("long-running: %+v, %v, %d progress", r, err, progress.Load())
	}
	raw, err := s.Raw(ctx(t), "tools/list", nil)
	if err != nil || !strings.Contains(string(raw), `"echo"`) {
		t.Fatalf("raw over HTTP+SSE: %s, %v", raw, err)
	}

	// Forced: no POST to the SSE URL at all.
	s2, rec2 := connectURL(t, client.Target{URL: "http://" + srv.Addr + "/sse"}, client.Options{Transport: "sse"})
	if s2.Info().Transport != client.TransportSSE {
		t.Fatalf("forced sse: %+v", s2.Info())
	}
	if first := rec2.requests()[0]; first.HTTP.Method != "GET" {
		t.Errorf("first request with --transport sse: %s", first.Text)
	}
}

// The official TypeScript SDK v2 server: stateless 2026-07-28, and its legacy fallback.
func TestHTTPTypeScriptV2(t *testing.T) {
	t.Parallel()
	srv := testutil.StartNode(t, "ts-server.mjs")
	url := "http://" + srv.Addr + "/mcp"
	for _, tc := range []struct {
		protocol, era string
	}{{"", client.EraModern}, {"2025-11-25", client.EraLegacy}} {
		t.Run("era="+tc.era, func(t *testing.T) {
			s, rec := connectURL(t, client.Target{URL: url}, client.Options{Protocol: tc.protocol, Timeout: testutil.Patience})
			info := s.Info()
			if info.Era != tc.era || info.Transport != client.TransportStreamable || info.Name != "ts-v2-interop" {
				t.Fatalf("info = %+v", info)
			}
			list, err := s.Tools(ctx(t))
			if err != nil || len(list.Tools) != 4 {
				t.Fatalf("tools: %v, %v", list, err)
			}
			r, err := s.Call(ctx(t), "add", json.RawMessage(`{"a":2,"b":40}`), client.CallOptions{})
			if err != nil || string(r.Structured) != `{"sum":42}` {
				t.Fatalf("add: %+v, %v", r, err)
			}
			var progress atomic.Int32
			r, err = s.Call(ctx(t), "slow", json.RawMessage(`{"steps":4}`), client.CallOptions{OnProgress: func(client.Progress) { progress.Add(1) }})
			if err != nil || progress.Load() != 4 || r.Content[0].Text != "done after 4 steps" {
				t.Fatalf("slow: %+v, %v, %d progress", r, err, progress.Load())
			}
			r, err = s.Call(ctx(t), "fail", nil, client.CallOptions{})
			if err != nil || !r.IsError {
				t.Fatalf("fail: %+v, %v", r, err)
			}
			raw, err := s.Raw(ctx(t), "tools/call", json.RawMessage(`{"name":"echo","arguments":{"text":"raw"}}`))
			if err != nil || !strings.Contains(string(raw), "echo: raw") {
				t.Fatalf("raw: %s, %v", raw, err)
			}
			reqs := rec.requests()
			h := reqs[len(reqs)-1].HTTP.Header
			if tc.era == client.EraModern {
				if h.Get("Mcp-Method") != "tools/call" || h.Get("Mcp-Name") != "echo" || h.Get("Mcp-Protocol-Version") != "2026-07-28" {
					t.Errorf("raw request headers: %v", h)
				}
				for _, e := range reqs {
					if e.HTTP.Method != "POST" {
						t.Errorf("a 2026-07-28 session sent %s", e.Text)
					}
				}
			}
		})
	}
}

// The bundled host over HTTP, in both eras.
func TestHTTPBundledHost(t *testing.T) {
	t.Parallel()
	h, err := host.New(host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h.HTTPHandler())
	defer srv.Close()
	for _, protocol := range []string{"", "2025-06-18"} {
		s, _ := connectURL(t, client.Target{URL: srv.URL + "/mcp"}, client.Options{Protocol: protocol})
		list, err := s.Tools(ctx(t))
		if err != nil || !hasTool(list, "echo") || !hasTool(list, "slow") {
			t.Fatalf("%s tools: %v, %v", protocol, list, err)
		}
		var progress atomic.Int32
		if _, err := s.Call(ctx(t), "slow", json.RawMessage(`{"steps":3}`), client.CallOptions{OnProgress: func(client.Progress) { progress.Add(1) }}); err != nil {
			t.Fatalf("%s slow: %v", protocol, err)
		}
		r, err := s.Call(ctx(t), "fail", nil, client.CallOptions{})
		if err != nil || !r.IsError {
			t.Fatalf("%s fail: %+v %v", protocol, r, err)
		}
		s.Close()
	}
}

// fakeHTTP is a small Streamable HTTP server whose answers a test can break.
type fakeHTTP struct {
	t        *testing.T
	modern   bool // answer server/discover (2026-07-28) rather than 400
	sessions bool // mint Mcp-Session-Id on initialize
	tools    string
	// call answers tools/call when set; it returns false to fall back to echo.
	call func(w http.ResponseWriter, r *http.Request, id json.RawMessage, args json.RawMessage) bool
	// before runs first on every request; true means it answered.
	before func(w http.ResponseWriter, r *http.Request, msg rpcMsg) bool
	get    func(w http.ResponseWriter, r *http.Request)

	mu       sync.Mutex
	session  string
	sessionN int
	inits    int
}

type rpcMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func newFake(t *testing.T, f *fakeHTTP) string {
	f.t = t
	if f.tools == "" {
		f.tools = `[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]`
	}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

func writeJSON(w http.ResponseWriter, status int, v string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, v)
}

func result(id json.RawMessage, result string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
}

func (f *fakeHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var msg rpcMsg
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &msg)
	}
	if f.before != nil && f.before(w, r, msg) {
		return
	}
	switch r.Method {
	case http.MethodGet:
		if f.get != nil {
			f.get(w, r)
			return
		}
		http.Error(w, "no GET stream here", http.StatusMethodNotAllowed)
		return
	case http.MethodDelete:
		w.WriteHeader(http.StatusOK)
		return
	}
	if f.sessions && msg.Method != "initialize" {
		f.mu.Lock()
		cur := f.session
		f.mu.Unlock()
		if got := r.Header.Get("Mcp-Session-Id"); got != cur {
			writeJSON(w, http.StatusNotFound, `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}`)
			return
		}
	}
	meta := ""
	if f.modern {
		meta = `,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"1"}}`
	}
	switch msg.Method {
	case "server/discover":
		if !f.modern {
			writeJSON(w, http.StatusBadRequest, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}`)
			return
		}
		writeJSON(w, 200, result(msg.ID, `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"private"`+meta+`}`))
	case "initialize":
		f.mu.Lock()
		f.inits++
		if f.sessions {
			f.sessionN++
			f.session = fmt.Sprintf("session-%d", f.sessionN)
			w.Header().Set("Mcp-Session-Id", f.session)
		}
		f.mu.Unlock()
		writeJSON(w, 200, result(msg.ID, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}`))
	case "tools/list":
		writeJSON(w, 200, result(msg.ID, `{"tools":`+f.tools+`,"ttlMs":0,"cacheScope":"private"`+meta+`}`))
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		json.Unmarshal(msg.Params, &p)
		if f.call != nil && f.call(w, r, msg.ID, p.Arguments) {
			return
		}
		var a struct{ Text string }
		json.Unmarshal(p.Arguments, &a)
		text, _ := json.Marshal("echo: " + a.Text)
		writeJSON(w, 200, result(msg.ID, `{"content":[{"type":"text","text":`+string(text)+`}]`+meta+`}`))
	default:
		if len(msg.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		writeJSON(w, 200, result(msg.ID, `{}`))
	}
}

func TestHTTPUnauthorized(t *testing.T) {
	t.Parallel()
	const token = "s3cret-token-value"
	url := newFake(t, &fakeHTTP{before: func(w http.ResponseWriter, r *http.Request, msg rpcMsg) bool {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="https://auth.example/.well-known/oauth-protected-resource/mcp", scope="files:read files:write", error="invalid_token", error_description="The access token expired"`)
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return true
	}})
	for _, withToken := range []bool{false, true} {
		opts := client.Options{}
		if withToken {
			opts.Header = http.Header{"Authorization": {"Bearer " + token}}
			opts.Secrets = []string{token}
		}
		_, rec, err := tryConnectURL(t, client.Target{URL: url}, opts)
		var ae *client.AuthError
		if !errors.As(err, &ae) {
			t.Fatalf("err = %v (%T)", err, err)
		}
		msg := err.Error()
		for _, want := range []string{"HTTP 401", "resource_metadata: https://auth.example/.well-known/oauth-protected-resource/mcp", "scope: files:read files:write", "error: invalid_token", "error_description: The access token expired", "--bearer"} {
			if !strings.Contains(msg, want) {
				t.Errorf("message lacks %q:\n%s", want, msg)
			}
		}
		if withToken && !strings.Contains(msg, "token was not accepted") {
			t.Errorf("with a token: %s", msg)
		}
		if strings.Contains(msg, token) {
			t.Errorf("the token is in the message")
		}
		for _, e := range rec.all() {
			if strings.Contains(string(e.Data), token) || strings.Contains(fmt.Sprint(e.HTTP), token) || strings.Contains(e.Text, token) {
				t.Errorf("the token reached an event: %+v", e)
			}
		}
		if withToken {
			if h := rec.requests()[0].HTTP.Header.Get("Authorization"); h != "Bearer "+wire.Redacted {
				t.Errorf("Authorization in the event: %q", h)
			}
		}
	}
}

func TestHTTPForbiddenCall(t *testing.T) {
	t.Parallel()
	url := newFake(t, &fakeHTTP{call: func(w http.ResponseWriter, r *http.Request, id, args json.RawMessage) bool {
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="admin"`)
		writeJSON(w, http.StatusForbidden, `{"error":"forbidden"}`)
		return true
	}})
	s, _ := connectURL(t, client.Target{URL: url}, client.Options{})
	_, err := s.Call(ctx(t), "echo", json.RawMessage(`{"text":"x"}`), client.CallOptions{})
	var ae *client.AuthError
	if !errors.As(err, &ae) || ae.Status != 403 || !strings.Contains(err.Error(), "lacks a scope the server wants (admin)") {
		t.Fatalf("err = %v", err)
	}
}

// 404 for a session the server ended: initialize again and carry on.
func TestHTTPSessionExpiry(t *testing.T) {
	t.Parallel()
	f := &fakeHTTP{sessions: true}
	url := newFake(t, f)
	s, rec := connectURL(t, client.Target{URL: url}, client.Options{})
	if _, err := s.Tools(ctx(t)); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.session = "" // the server forgets every session
	f.mu.Unlock()
	r, err := s.Call(ctx(t), "echo", json.RawMessage(`{"text":"again"}`), client.CallOptions{})
	if err != nil || r.Content[0].Text != "echo: again" {
		t.Fatalf("call after expiry: %+v, %v", r, err)
	}
	f.mu.Lock()
	inits := f.inits
	f.mu.Unlock()
	if inits != 2 {
		t.Errorf("%d initialize requests, want 2", inits)
	}
	if _, ok := rec.find(wire.KindSynthetic, "initializing a new one"); !ok {
		t.Error("no note about the new session")
	}
	if _, err := s.Tools(ctx(t)); err != nil {
		t.Fatalf("tools on the new session: %v", err)
	}
}

// A server without a GET stream answers 405; the session goes on.
func TestHTTPNoGetStream(t *testing.T) {
	t.Parallel()
	url := newFake(t, &fakeHTTP{sessions: true})
	s, rec := connectURL(t, client.Target{URL: url}, client.Options{})
	if _, err := s.Call(ctx(t), "echo", json.RawMessage(`{"text":"x"}`), client.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	saw405 := false
	for _, e := range rec.all() {
		if e.HTTP != nil && e.HTTP.Method == "GET" && e.HTTP.Status == 405 {
			saw405 = true
		}
	}
	if !saw405 {
		t.Error("no 405 for the GET stream in the events")
	}
}

func TestHTTPServerErrorHTML(t *testing.T) {
	t.Parallel()
	url := newFake(t, &fakeHTTP{before: func(w http.ResponseWriter, r *http.Request, msg rpcMsg) bool {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "<html><head><title>Error</title><style>body{color:red}</style></head><body><h1>Oops: the database is down</h1></body></html>")
		return true
	}})
	_, rec, err := tryConnectURL(t, client.Target{URL: url}, client.Options{})
	var se *client.ServerError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "HTTP 500") || !strings.Contains(err.Error(), "Oops: the database is down") || strings.Contains(err.Error(), "<h1>") || strings.Contains(err.Error(), "color:red") {
		t.Fatalf("err = %v", err)
	}
	for _, e := range rec.requests() {
		if e.HTTP.Method == "GET" {
			t.Error("a 500 made mcpscope try HTTP+SSE")
		}
	}
}

// An SSE stream cut in the middle of an event, with no event id to resume from.
func TestHTTPStreamCutMidEvent(t *testing.T) {
	t.Parallel()
	url := newFake(t, &fakeHTTP{call: func(w http.ResponseWriter, r *http.Request, id, args json.RawMessage) bool {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"te", id)
		return true // the handler returns: the stream ends mid-event
	}})
	s, rec := connectURL(t, client.Target{URL: url}, client.Options{})
	_, err := s.Call(ctx(t), "echo", json.RawMessage(`{"text":"x"}`), client.CallOptions{})
	if err == nil || !strings.Contains(err.Error(), "ended in the middle of an event") {
		t.Fatalf("err = %v", err)
	}
	if _, ok := rec.find(wire.KindHTTP, "ended in the middle of an event"); !ok {
		t.Error("no event for the cut")
	}
}

// A stream whose lines end in CR alone (the SSE standard allows CRLF, LF and CR),
// with a field without a colon and a comment: the call gets its answer. The SDK
// reads only LF-ended "field: value" lines, so the tap hands it each event as
// internal/sse reads it, rewritten plainly; before, this call never ended.
func TestHTTPStreamWithCRLineEnds(t *testing.T) {
	t.Parallel()
	url := newFake(t, &fakeHTTP{call: func(w http.ResponseWriter, r *http.Request, id, args json.RawMessage) bool {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprintf(w, ": hello\revent\rdata: {\"jsonrpc\":\"2.0\",\"id\":%s,\r", id)
		w.(http.Flusher).Flush()
		fmt.Fprint(w, "data: \"result\":{\"content\":[{\"type\":\"text\",\"text\":\"by CR\"}]}}\r\r")
		return true
	}})
	s, rec := connectURL(t, client.Target{URL: url}, client.Options{Timeout: testutil.Patience})
	r, err := s.Call(ctx(t), "echo", json.RawMessage(`{"text":"x"}`), client.CallOptions{})
	if err != nil || len(r.Content) != 1 || r.Content[0].Text != "by CR" {
		t.Fatalf("call: %+v, %v", r, err)
	}
	if _, ok := rec.find(wire.KindHTTP, "end of the SSE stream (1 event)"); !ok {
		t.Error("the stream's end does not count its one event")
	}
}

// A server that never sends response headers: the timeouts end the wait.
func TestHTTPNoHeadersTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	hang := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
	url := newFake(t, &fakeHTTP{call: func(w http.ResponseWriter, r *http.Request, id, args json.RawMessage) bool {
		hang(w, r)
		return true
	}})
	s, _ := connectURL(t, client.Target{URL: url}, client.Options{Timeout: 300 * time.Millisecond})
	_, err := s.Call(ctx(t), "echo", json.RawMessage(`{"text":"x"}`), client.CallOptions{})
	var te *client.TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "did not finish within 300ms") {
		t.Fatalf("err = %v", err)
	}
	// The handshake itself.
	url2 := newFake(t, &fakeHTTP{before: func(w http.ResponseWriter, r *http.Request, msg rpcMsg) bool {
		hang(w, r)
		return true
	}})
	_, _, err = tryConnectURL(t, client.Target{URL: url2}, client.Options{ConnectTimeout: 400 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "did not complete the handshake within 400ms") {
		t.Fatalf("connect err = %v", err)
	}
}

func TestHTTPWrongContentType(t *testing.T) {
	t.Parallel()
	url := newFake(t, &fakeHTTP{before: func(w http.ResponseWriter, r *http.Request, msg rpcMsg) bool {
		if msg.Method != "tools/list" {
			return false
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, result(msg.ID, `{"tools":[]}`))
		return true
	}})
	s, _ := connectURL(t, client.Target{URL: url}, client.Options{})
	_, err := s.Tools(ctx(t))
	if err == nil || !strings.Contains(err.Error(), `Content-Type "text/plain"`) || !strings.Contains(err.Error(), "neither application/json nor text/event-stream") {
		t.Fatalf("err = %v", err)
	}
}

// A 100 MB result arrives whole; over --max-frame it is a clear error.
func TestHTTPHugeResponse(t *testing.T) {
	t.Parallel()
	const size = 100 << 20
	big := strings.Repeat("x", size)
	url := newFake(t, &fakeHTTP{call: func(w http.ResponseWriter, r *http.Request, id, args json.RawMessage) bool {
		w.Header().Set("Content-Type", "application/json")
		bw := bufio.NewWriterSize(w, 1<<20)
		fmt.Fprintf(bw, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, id)
		bw.WriteString(big)
		bw.WriteString(`"}]}}`)
		bw.Flush()
		return true
	}})
	s, rec := connectURL(t, client.Target{URL: url}, client.Options{})
	r, err := s.Call(ctx(t), "echo", nil, client.CallOptions{})
	if err != nil || len(r.Content) != 1 || len(r.Content[0].Text) != size {
		t.Fatalf("100 MB result: %v (%d blocks)", err, len(r.Content))
	}
	// The frames are named by the one scan the tap made of them (wire.Head): the
	// 100 MB answer as the result for the tools/call's id.
	var call, result wire.Head
	rec.mu.Lock()
	for _, e := range rec.events {
		switch {
		case e.Kind == wire.KindMessage && e.Dir == wire.Send && e.Method == "tools/call":
			call = e.Head
		case e.Kind == wire.KindMessage && e.Dir == wire.Recv && e.Size > size:
			result = e.Head
		}
	}
	rec.mu.Unlock()
	if call.Shape != wire.ShapeRequest || call.Name != "echo" || call.ID == "" || result.Shape != wire.ShapeResult || result.ID != call.ID {
		t.Errorf("heads: the call %+v, the 100 MB answer %+v", call, result)
	}
	s2, _ := connectURL(t, client.Target{URL: url}, client.Options{MaxFrame: 10 << 20})
	_, err = s2.Call(ctx(t), "echo", nil, client.CallOptions{})
	if err == nil || !strings.Contains(err.Error(), "over the 10.0 MiB limit (--max-frame)") {
		t.Fatalf("over the limit: %v", err)
	}
}

// retry: then a dropped connection: the client waits, resumes with Last-Event-ID and
// gets the answer on the GET stream.
func TestHTTPResumeAfterDrop(t *testing.T) {
	t.Parallel()
	var pendingID atomic.Value
	var dropped atomic.Int64
	f := &fakeHTTP{sessions: true}
	f.call = func(w http.ResponseWriter, r *http.Request, id, args json.RawMessage) bool {
		pendingID.Store(string(id))
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprint(w, "id: e1\nretry: 150\ndata: \n\n")
		w.(http.Flusher).Flush()
		// Drop the connection itself, without ending the stream properly.
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			dropped.Store(time.Now().UnixNano())
			conn.Close()
		}
		return true
	}
	f.get = func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Last-Event-ID") != "e1" {
			http.Error(w, "no standalone stream", http.StatusMethodNotAllowed)
			return
		}
		id, _ := pendingID.Load().(string)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprintf(w, "id: e2\ndata: %s\n\n", result(json.RawMessage(id), `{"content":[{"type":"text","text":"resumed"}]}`))
	}
	url := newFake(t, f)
	s, rec := connectURL(t, client.Target{URL: url}, client.Options{Timeout: testutil.Patience})
	r, err := s.Call(ctx(t), "echo", nil, client.CallOptions{})
	if err != nil || r.Content[0].Text != "resumed" {
		t.Fatalf("call: %+v, %v", r, err)
	}
	var resumed *wire.Event
	for _, e := range rec.requests() {
		if e.HTTP.Method == "GET" && e.HTTP.Header.Get("Last-Event-ID") == "e1" {
			resumed = &e
		}
	}
	if resumed == nil {
		t.Fatal("no GET with Last-Event-ID: e1")
	}
	if wait := resumed.Time.Sub(time.Unix(0, dropped.Load())); wait < 140*time.Millisecond {
		t.Errorf("resumed %v after the drop; retry asked for 150ms", wait)
	}
}

// On a 2026-07-28 HTTP session a tool with an invalid x-mcp-header is dropped.
func TestHTTPInvalidParamHeaderDropped(t *testing.T) {
	t.Parallel()
	url := newFake(t, &fakeHTTP{modern: true, tools: `[
		{"name":"ok","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}},
		{"name":"bad","inputSchema":{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}},
		{"name":"deep","inputSchema":{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"L"}}}}}]`})
	s, rec := connectURL(t, client.Target{URL: url}, client.Options{})
	if s.Info().Era != client.EraModern {
		t.Fatalf("info = %+v", s.Info())
	}
	list, err := s.Tools(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if names := toolNamesOf(list); len(names) != 1 || names[0] != "ok" {
		t.Errorf("tools = %v; problems %v", names, list.Problems)
	}
	if len(list.Problems) != 2 || !strings.Contains(list.Problems[0], `"bad"`) || !strings.Contains(list.Problems[1], "not reached through properties alone") {
		t.Errorf("problems = %q", list.Problems)
	}
	if len(list.Refused) != 2 || list.RefusedWhy("bad") == "" || list.RefusedWhy("deep") == "" || list.RefusedWhy("ok") != "" {
		t.Errorf("refused = %+v", list.Refused)
	}
	// The marked argument travels as Mcp-Param-Region, base64 when not header-safe.
	for arg, want := range map[string]string{"us-west1": "us-west1", "zürich": "=?base64?esO8cmljaA==?="} {
		if _, err := s.Call(ctx(t), "ok", json.RawMessage(`{"region":"`+arg+`"}`), client.CallOptions{}); err != nil {
			t.Fatal(err)
		}
		reqs := rec.requests()
		h := reqs[len(reqs)-1].HTTP.Header
		if h.Get("Mcp-Param-Region") != want || h.Get("Mcp-Name") != "ok" || h.Get("Mcp-Method") != "tools/call" {
			t.Errorf("headers for %q: %v", arg, h)
		}
	}
}

// Detection: a server with neither transport says so once, clearly.
func TestHTTPNeitherTransport(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, _, err := tryConnectURL(t, client.Target{URL: srv.URL + "/nope"}, client.Options{})
	if err == nil || !strings.Contains(err.Error(), "speaks neither Streamable HTTP") || !strings.Contains(err.Error(), "404") {
		t.Fatalf("err = %v", err)
	}
	_, _, err = tryConnectURL(t, client.Target{URL: "http://127.0.0.1:1/mcp"}, client.Options{})
	if err == nil || !strings.Contains(err.Error(), "cannot reach") {
		t.Fatalf("refused: %v", err)
	}
}

func TestParseChallenges(t *testing.T) {
	cs := client.ParseChallenges([]string{`Bearer realm="mcp", error="invalid_token", error_description="bad \"token\"", Basic realm=x`, `Negotiate abc==`})
	if len(cs) != 3 || cs[0].Scheme != "Bearer" || cs[0].Param("error_description") != `bad "token"` || cs[1].Scheme != "Basic" || cs[1].Param("realm") != "x" || cs[2].Scheme != "Negotiate" {
		t.Fatalf("%+v", cs)
	}
}
