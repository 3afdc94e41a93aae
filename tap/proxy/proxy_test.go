package proxy

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
)

// tapped runs a proxy to server's URL (plus path) on 127.0.0.1 with a recording in
// a temporary file; read closes the recording and returns its text.
func tapped(t *testing.T, server *httptest.Server, path string, opts Options) (proxyURL string, read func() string, warnings func() []string) {
	t.Helper()
	target, err := url.Parse(server.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var warned []string
	warn := func(s string) { mu.Lock(); warned = append(warned, s); mu.Unlock() }
	file := filepath.Join(t.TempDir(), "tap.jsonl")
	if opts.Recorder == nil {
		f, err := record.OpenFile(file)
		if err != nil {
			t.Fatal(err)
		}
		opts.Recorder = NewRecorder(f, nil, record.Header{Target: record.Target{Transport: "http", URL: target.String()}}, nil, warn)
	}
	opts.Target, opts.Warn = target, warn
	px := New(opts)
	ps := httptest.NewServer(px)
	var once sync.Once
	closeAll := func() {
		once.Do(func() {
			ps.CloseClientConnections()
			ps.Close()
			px.Wait()
			opts.Recorder.Close("the tap stopped")
		})
	}
	t.Cleanup(closeAll)
	read = func() string {
		closeAll()
		b, _ := os.ReadFile(file)
		return string(b)
	}
	warnings = func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), warned...) }
	return ps.URL + path, read, warnings
}

// An SSE response reaches the host event by event as the server sends it: the
// first event arrives while the server still holds the second back.
func TestSSEStreamsEachEventAsItComes(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n")
		w.(http.Flusher).Flush()
		<-release
		fmt.Fprint(w, "id: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
	}))
	defer srv.Close()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	u, read, _ := tapped(t, srv, "/mcp", Options{})
	resp, err := http.Post(u, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	first := make(chan string, 1)
	go func() {
		var b strings.Builder
		for {
			line, err := br.ReadString('\n')
			b.WriteString(line)
			if err != nil || line == "\n" {
				break
			}
		}
		first <- b.String()
	}()
	var got string
	testutil.Within(t, "the first event through the tap while the server holds the second", func() { got = <-first })
	if !strings.Contains(got, `"progress":1`) {
		t.Fatalf("first event %q", got)
	}
	close(release)
	rest, _ := io.ReadAll(br)
	if !strings.Contains(string(rest), `"id":1,"result"`) {
		t.Fatalf("rest of the stream %q; recording:\n%s", rest, read())
	}
	rec := read()
	for _, want := range []string{`"framing":"sse","exchange":1,"sse":{"id":"1"},"msg":{"jsonrpc":"2.0","method":"notifications/progress"`, `"sse":{"id":"2"}`, "end of the SSE stream (2 events)"} {
		if !strings.Contains(rec, want) {
			t.Errorf("the recording lacks %s:\n%s", want, rec)
		}
	}
}

// A legacy HTTP+SSE server that names its message endpoint by an absolute URL: the
// host gets the tap's URL instead, and its POST reaches the server through the tap.
// The session id in it never reaches the recording.
func TestLegacyEndpointIsRewrittenToTheTap(t *testing.T) {
	posted := make(chan string, 1)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: endpoint\ndata: %s/messages?sessionId=sess-7f3a9c2e51\n\n", srv.URL)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case http.MethodPost:
			b, _ := io.ReadAll(r.Body)
			posted <- r.URL.RequestURI() + " " + string(b)
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer srv.Close()
	u, read, _ := tapped(t, srv, "/sse", Options{})
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var endpoint string
	testutil.Within(t, "the endpoint event", func() {
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			if v, ok := strings.CutPrefix(line, "data: "); ok {
				endpoint = strings.TrimSpace(v)
				return
			}
		}
	})
	proxyOrigin := strings.TrimSuffix(u, "/sse")
	if endpoint != proxyOrigin+"/messages?sessionId=sess-7f3a9c2e51" {
		t.Fatalf("the host got the endpoint %q; want the tap's %s/messages?sessionId=…", endpoint, proxyOrigin)
	}
	pr, err := http.Post(endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientInfo":{"name":"legacy-host","version":"9"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	pr.Body.Close()
	if pr.StatusCode != http.StatusAccepted {
		t.Errorf("POST through the tap: %d, want the server's 202", pr.StatusCode)
	}
	if got := <-posted; !strings.HasPrefix(got, "/messages?sessionId=sess-7f3a9c2e51 {") {
		t.Errorf("the server got %q", got)
	}
	resp.Body.Close()
	rec := read()
	if strings.Contains(rec, "sess-7f3a9c2e51") {
		t.Errorf("the session id reached the recording:\n%s", rec)
	}
	for _, want := range []string{`"client":{"name":"legacy-host","version":"9"}`, "(rewritten for the host to " + proxyOrigin + "/messages?sessionId=[redacted])", `"status":202`} {
		if !strings.Contains(rec, want) {
			t.Errorf("the recording lacks %s:\n%s", want, rec)
		}
	}
}

// The server gets the host's headers as they were sent (the protocol's, the
// credentials, unknown ones), less the hop-by-hop ones; the tap adds none. The host
// gets the server's status and headers as they were sent: a 401 with its
// WWW-Authenticate, a 202. Credentials are recorded as [redacted] only.
func TestHeadersAndStatusesPassThroughAsSent(t *testing.T) {
	got := make(chan http.Header, 4)
	const challenge = `Bearer error="invalid_token", resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp", scope="mcp:read"`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Clone()
		h.Set("Host", r.Host)
		got <- h
		io.Copy(io.Discard, r.Body)
		if r.Header.Get("Authorization") == "Bearer tok-9b1d0e6c44a7" {
			w.Header().Set("WWW-Authenticate", challenge)
			w.Header().Set("Set-Cookie", "sid=cookie-5e8f21aa90; HttpOnly")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":"invalid_token","echo":"tok-9b1d0e6c44a7"}`)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	u, read, _ := tapped(t, srv, "/mcp", Options{})
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","_meta":{"io.modelcontextprotocol/clientInfo":{"name":"modern-host","version":"1"}}}}`))
	sent := map[string]string{
		"Authorization":        "Bearer tok-9b1d0e6c44a7",
		"Cookie":               "pref=cookie-0c3b77d1e2",
		"Mcp-Session-Id":       "s-1",
		"Mcp-Protocol-Version": "2026-07-28",
		"Mcp-Method":           "tools/call",
		"Mcp-Name":             "whoami",
		"Last-Event-Id":        "42",
		"X-Custom":             "kept",
		"Content-Type":         "application/json",
	}
	for k, v := range sent {
		req.Header.Set(k, v)
	}
	req.Header["User-Agent"] = []string{""} // Go's client sends none then: a host without one
	req.Header.Set("Connection", "X-Hop")
	req.Header.Set("X-Hop", "dropped")
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != challenge {
		t.Errorf("the host got %d with WWW-Authenticate %q; want 401 with %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), challenge)
	}
	if string(body) != `{"error":"invalid_token","echo":"tok-9b1d0e6c44a7"}` {
		t.Errorf("the host got the body %q", body)
	}
	h := <-got
	for k, v := range sent {
		if h.Get(k) != v {
			t.Errorf("the server got %s: %q, want %q", k, h.Get(k), v)
		}
	}
	for _, k := range []string{"X-Hop", "X-Forwarded-For", "Forwarded", "Via", "User-Agent"} {
		if _, ok := h[k]; ok {
			t.Errorf("the server got %s: %q, which the host did not send", k, h.Get(k))
		}
	}
	if h.Get("Accept-Encoding") != "identity" {
		t.Errorf("Accept-Encoding %q, want the host's identity", h.Get("Accept-Encoding"))
	}
	if !strings.HasPrefix(srv.URL, "http://"+h.Get("Host")) {
		t.Errorf("the server got Host %q, want its own name (%s)", h.Get("Host"), srv.URL)
	}

	// A notification: 202 with no body.
	resp, err = http.Post(u, "application/json", strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("a notification: %d, want the server's 202", resp.StatusCode)
	}
	<-got
	rec := read()
	for _, secret := range []string{"tok-9b1d0e6c44a7", "cookie-0c3b77d1e2", "cookie-5e8f21aa90"} {
		if strings.Contains(rec, secret) {
			t.Errorf("%s reached the recording:\n%s", secret, rec)
		}
	}
	for _, want := range []string{`"Authorization":["[redacted]"]`, `"Cookie":["[redacted]"]`, `"status":401`, `"Www-Authenticate":["` + strings.ReplaceAll(challenge, `"`, `\"`) + `"]`,
		`"status":202`, `"client":{"name":"modern-host","version":"1"}`, `"Mcp-Name":["whoami"]`} {
		if !strings.Contains(rec, want) {
			t.Errorf("the recording lacks %s:\n%s", want, rec)
		}
	}
}

// The tap follows no redirect: the host gets it, pointed at the tap when it stays on
// the server's origin.
func TestRedirectsGoToTheHost(t *testing.T) {
	var mu sync.Mutex
	var hits []string
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.URL.Path)
		mu.Unlock()
		http.Redirect(w, r, srv.URL+"/moved/mcp", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	u, _, _ := tapped(t, srv, "/mcp", Options{})
	resp, err := http.DefaultTransport.RoundTrip(mustRequest(t, http.MethodPost, u, `{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != strings.TrimSuffix(u, "/mcp")+"/moved/mcp" {
		t.Errorf("the host got %d Location %q; want 307 to the tap's /moved/mcp", resp.StatusCode, resp.Header.Get("Location"))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(hits) != 1 {
		t.Errorf("the server saw %v; the tap must not follow the redirect", hits)
	}
}

func mustRequest(t *testing.T, method, u, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return req
}

// failingFile fails every write after the first n bytes.
type failingFile struct {
	n int
}

func (f *failingFile) Write(p []byte) (int, error) {
	if f.n < len(p) {
		return 0, errors.New("no space left on device")
	}
	f.n -= len(p)
	return len(p), nil
}
func (f *failingFile) Close() error { return nil }

// A recording that fails (a full disk) stops, says so once, and the host's
// requests go on being answered.
func TestRecordingFailureKeepsForwarding(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(bytes.Replace(b, []byte(`"method":"ping"`), []byte(`"result":{}`), 1))
	}))
	defer srv.Close()
	var mu sync.Mutex
	var warned []string
	rec := NewRecorder(&failingFile{n: 300}, nil, record.Header{}, nil, func(s string) { mu.Lock(); warned = append(warned, s); mu.Unlock() })
	u, _, _ := tapped(t, srv, "/mcp", Options{Recorder: rec})
	for i := 0; i < 5; i++ {
		resp, err := http.Post(u, "application/json", strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, i); string(b) != want {
			t.Fatalf("request %d: %q, want %q", i, b, want)
		}
	}
	rec.Close("the tap stopped")
	mu.Lock()
	defer mu.Unlock()
	if len(warned) != 1 || !strings.Contains(warned[0], "recording stopped: writing the recording: no space left on device; forwarding goes on") {
		t.Errorf("warnings %q; want one that says the recording stopped", warned)
	}
}

// A body over the recording limit passes through whole, and the recording says
// how big it was.
func TestBigBodyPassesThroughWhole(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 200<<10) + `"}]}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, big)
	}))
	defer srv.Close()
	u, read, _ := tapped(t, srv, "/mcp", Options{MaxRecord: 64 << 10})
	resp, err := http.Post(u, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big"}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != big {
		t.Fatalf("the host got %d bytes, want the server's %d", len(b), len(big))
	}
	rec := read()
	if !strings.Contains(rec, "response body of 200.1 KiB, over the recording limit of 64.0 KiB: passed through, not recorded") {
		t.Errorf("the recording does not say the body was too big to keep:\n%s", rec)
	}
}

// A web page whose name resolves to 127.0.0.1 (DNS rebinding) gets no answer from
// the server through the tap.
func TestForeignHostNameIsRefused(t *testing.T) {
	hit := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit = true }))
	defer srv.Close()
	u, _, _ := tapped(t, srv, "/mcp", Options{})
	req := mustRequest(t, http.MethodPost, u, `{}`)
	req.Host = "attacker.example:80"
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || hit {
		t.Errorf("Host attacker.example: %d, server reached %v; want 403 and no request", resp.StatusCode, hit)
	}
}

func TestCheckListenAddr(t *testing.T) {
	for _, ok := range []string{"127.0.0.1:0", "[::1]:5858", "localhost:0", "127.0.0.2:9"} {
		if err := CheckListenAddr(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for addr, want := range map[string]string{
		"0.0.0.0:8080":  "0.0.0.0 listens on every network interface",
		":8080":         "it listens on every network interface",
		"10.0.0.5:8080": `"10.0.0.5" is not a loopback address`,
		"127.0.0.1":     "want HOST:PORT",
	} {
		err := CheckListenAddr(addr)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", addr, err, want)
		}
	}
}

func TestMain(m *testing.M) { testutil.Main(m) }

// DELETE (ending a session) reaches the server as the host sent it, with its
// session id, and the server's answer comes back.
func TestDeletePassesThrough(t *testing.T) {
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Method + " " + r.Header.Get("Mcp-Session-Id")
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	u, read, _ := tapped(t, srv, "/mcp", Options{})
	req, _ := http.NewRequest(http.MethodDelete, u, nil)
	req.Header.Set("Mcp-Session-Id", "sess-1")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if g := <-got; g != "DELETE sess-1" || resp.StatusCode != http.StatusNoContent {
		t.Errorf("the server got %q, the host %d; want DELETE sess-1 and 204", g, resp.StatusCode)
	}
	if rec := read(); !strings.Contains(rec, `"method":"DELETE"`) || !strings.Contains(rec, `"status":204`) {
		t.Errorf("the recording lacks the DELETE exchange:\n%s", rec)
	}
}

// An endpoint event naming another origin is left as the server sent it (the tap
// does not decide where the host's requests go), and the person is told once.
func TestLegacyEndpointOfAnotherOriginIsLeftAndSaid(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: endpoint\ndata: https://elsewhere.example/messages?sessionId=abc12345678\n\n")
	}))
	defer srv.Close()
	u, _, warnings := tapped(t, srv, "/sse", Options{})
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "event: endpoint\ndata: https://elsewhere.example/messages?sessionId=abc12345678\n\n" {
		t.Errorf("the host got %q, want the event as sent", b)
	}
	w := warnings()
	if len(w) != 1 || !strings.Contains(w[0], "another origin (https://elsewhere.example/messages?sessionId=[redacted]); the host's messages go there directly, past the tap") {
		t.Errorf("warnings %q", w)
	}
}

// stuckFile is a recording whose writes hang (a dead network disk) until released.
type stuckFile struct{ release chan struct{} }

func (f *stuckFile) Write(p []byte) (int, error) { <-f.release; return len(p), nil }
func (f *stuckFile) Close() error                { return nil }

// A recording that hangs does not hold up the host: its responses end (the last
// chunk of a chunked body too) while the recording's writes wait.
func TestStuckRecordingDoesNotHoldUpTheHost(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,`)
		w.(http.Flusher).Flush() // chunked: the body ends with the handler
		fmt.Fprint(w, `"result":{}}`)
	}))
	defer srv.Close()
	f := &stuckFile{release: make(chan struct{})}
	rec := NewRecorder(f, nil, record.Header{}, nil, nil)
	u, _, _ := tapped(t, srv, "/mcp", Options{Recorder: rec})
	testutil.Within(t, "three calls through a tap whose recording hangs", func() {
		for i := 0; i < 3; i++ {
			resp, err := http.Post(u, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/clientInfo":{"name":"h"}}}}`))
			if err != nil {
				t.Error(err)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(b) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
				t.Errorf("call %d: %q", i, b)
			}
		}
	})
	close(f.release)
}

// The host reads the same bytes the server wrote: an SSE stream with comments,
// CRLF lines, a multi-line event, retry, an event bigger than what is held back, a
// cut last event; and a gzip body the host asked for, passed as it is (the
// recording holds it decoded).
func TestBytesOnBothSidesAreTheSame(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":2,"result":{"text":"` + strings.Repeat("y", 3*holdMax) + `"}}`
	stream := ": keep-alive\n\nretry: 3000\r\nid: a1\r\n\r\n" +
		"id: a2\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"method\":\"notifications/message\",\"params\":{}}\n\n" +
		"id: a3\ndata: " + big + "\n\n" +
		"id: a4\ndata: {\"jsonrpc\":\"2.0\",\"id\":"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`{"jsonrpc":"2.0","id":3,"result":{"zipped":true}}`))
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.Header.Get("Accept-Encoding") == "gzip" {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz.Bytes())
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; i < len(stream); i += 1000 { // in pieces, as a network delivers
			w.Write([]byte(stream[i:min(i+1000, len(stream))]))
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	u, read, _ := tapped(t, srv, "/mcp", Options{})
	sreq := mustRequest(t, http.MethodPost, u, `{"jsonrpc":"2.0","id":2,"method":"tools/call"}`)
	sreq.Header.Set("Accept-Encoding", "identity") // Go's client would ask for gzip itself
	resp, err := http.DefaultTransport.RoundTrip(sreq)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != stream {
		t.Errorf("the host read %d bytes that differ from the server's %d", len(got), len(stream))
	}
	req := mustRequest(t, http.MethodPost, u, `{"jsonrpc":"2.0","id":3,"method":"tools/call"}`)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err = http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(got, gz.Bytes()) || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("the host got %q (%s), want the server's gzip bytes", got, resp.Header.Get("Content-Encoding"))
	}
	rec := read()
	for _, want := range []string{`"sse":{"id":"a2"},"msg":{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, `"sse":{"id":"a3"},"msg":{"jsonrpc":"2.0","id":2`,
		"the SSE stream ended in the middle of an event", `"msg":{"jsonrpc":"2.0","id":3,"result":{"zipped":true}}`} {
		if !strings.Contains(rec, want) {
			t.Errorf("the recording lacks %s:\n%.3000s", want, rec)
		}
	}
}

// Every line end the SSE standard allows ends a line for the tap as for the host:
// events with CR alone and CRLF are recorded like LF ones, and a last event that
// lacks only its final blank line (which Go's MCP SDK still dispatches) is recorded
// too, and said. The host reads the bytes as they were sent.
func TestSSEEventsRecordedWhateverTheirLineEnds(t *testing.T) {
	stream := "id: c1\rdata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"n\":1}}\r\r" +
		"id: c2\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"n\":2}}\r\n\r\n" +
		"id: c3\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"n\":3}}\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; i < len(stream); i += 7 { // in pieces, so a CRLF is cut in two
			w.Write([]byte(stream[i:min(i+7, len(stream))]))
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	u, read, _ := tapped(t, srv, "/mcp", Options{})
	resp, err := http.Post(u, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != stream {
		t.Errorf("the host read %q, want the server's %q", got, stream)
	}
	rec := read()
	for _, want := range []string{`"sse":{"id":"c1"},"msg":{"jsonrpc":"2.0","method":"notifications/message","params":{"n":1}}`,
		`"sse":{"id":"c2"},"msg":{"jsonrpc":"2.0","method":"notifications/message","params":{"n":2}}`,
		`"sse":{"id":"c3"},"msg":{"jsonrpc":"2.0","id":1,"result":{"n":3}}`,
		"the SSE stream ended without the blank line that ends its last event", "end of the SSE stream (3 events)"} {
		if !strings.Contains(rec, want) {
			t.Errorf("the recording lacks %s:\n%s", want, rec)
		}
	}
	if strings.Contains(rec, "in the middle of an event") {
		t.Errorf("a whole last event was called cut:\n%s", rec)
	}
}
