package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	crossToken  = "tok-cross-origin-4e5f6a7b8c"
	crossAPIKey = "key-cross-origin-0a1b2c3d4e"
	crossCookie = "sid=cookie-cross-origin-9z8y7x"
)

// headerLog records the credential headers of every request a listener receives.
type headerLog struct {
	mu       sync.Mutex
	requests int
	leaked   []string
}

func (l *headerLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.requests++
		for _, name := range []string{"Authorization", "X-Api-Key", "Cookie", "Proxy-Authorization"} {
			if v := r.Header.Get(name); v != "" {
				l.leaked = append(l.leaked, fmt.Sprintf("%s %s: %s: %s", r.Method, r.URL.Path, name, v))
			}
		}
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *headerLog) check(t *testing.T) int {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, leak := range l.leaked {
		t.Errorf("a credential reached the other origin: %s", leak)
	}
	return l.requests
}

// echoServer is a stateless Streamable HTTP MCP server with one tool.
func echoServer() http.Handler {
	srv := mcp.NewServer(&mcp.Implementation{Name: "other-origin", Version: "1"}, nil)
	type args struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + a.Text}}}, nil, nil
	})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
}

var credentialFlags = []string{"--bearer", crossToken, "-H", "X-Api-Key: " + crossAPIKey, "-H", "Cookie: " + crossCookie}

// A 307 or 308 to another port: refused with a message naming both origins and the
// flag, and nothing reaches the other listener; with --allow-cross-origin the call is
// made there without Authorization, X-Api-Key or Cookie.
func TestRedirectToAnotherOriginKeepsCredentials(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			var other headerLog
			b := httptest.NewServer(other.wrap(echoServer()))
			defer b.Close()
			a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				http.Redirect(w, r, b.URL+"/mcp", status)
			}))
			defer a.Close()
			args := append([]string{"call", "echo", "text=hi"}, credentialFlags...)
			r := mcpscope(t, nil, append(args, a.URL+"/mcp")...)
			expect(t, r, 1, nil, []string{"redirected " + a.URL + "/mcp (HTTP " + fmt.Sprint(status) + ") to " + b.URL + "/mcp", "another origin (" + b.URL + ", not " + a.URL + ")", "--allow-cross-origin", "Authorization, Cookie, X-Api-Key"})
			if n := other.check(t); n != 0 {
				t.Errorf("%d requests reached the other origin although the redirect was refused", n)
			}
			r = mcpscope(t, nil, append(append(args, "--allow-cross-origin", "--trace"), a.URL+"/mcp")...)
			expect(t, r, 0, []string{"echo: hi"}, []string{"without the credentials (Authorization, Cookie, X-Api-Key)"})
			if n := other.check(t); n == 0 {
				t.Error("with --allow-cross-origin no request reached the other origin")
			}
			for _, secret := range []string{crossToken, crossAPIKey, "cookie-cross-origin"} {
				if strings.Contains(r.stdout+r.stderr, secret) {
					t.Errorf("%q was printed", secret)
				}
			}
		})
	}
}

// A redirect to the same origin (another path) keeps the credentials.
func TestRedirectSameOriginKeepsWorking(t *testing.T) {
	t.Parallel()
	var got headerLog
	mux := http.NewServeMux()
	mux.Handle("/mcp", echoServer())
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
	})
	srv := httptest.NewServer(got.wrap(mux))
	defer srv.Close()
	r := mcpscope(t, nil, append(append([]string{"call", "echo", "text=hi"}, credentialFlags...), srv.URL+"/old")...)
	expect(t, r, 0, []string{"echo: hi"}, nil)
	got.mu.Lock()
	defer got.mu.Unlock()
	if len(got.leaked) < 3 {
		t.Errorf("the credentials did not reach their own origin: %v", got.leaked)
	}
}

// legacySSE is a minimal HTTP+SSE (2024-11-05) server whose endpoint event names
// messages, which may be on another listener: POSTs there are answered on the stream.
type legacySSE struct {
	messages string // the endpoint URL to announce
	out      chan []byte
}

func (s *legacySSE) stream(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", s.messages)
	w.(http.Flusher).Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case m := <-s.out:
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", m)
			w.(http.Flusher).Flush()
		}
	}
}

func (s *legacySSE) post(w http.ResponseWriter, r *http.Request) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.NewDecoder(bufio.NewReader(r.Body)).Decode(&msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusAccepted)
	if len(msg.ID) == 0 {
		return
	}
	var result string
	switch msg.Method {
	case "initialize":
		result = `{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"legacy-elsewhere","version":"1"}}`
	case "tools/list":
		result = `{"tools":[]}`
	default:
		result = `{}`
	}
	s.out <- []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result))
}

// A legacy HTTP+SSE endpoint event naming another origin: refused with the message,
// or followed without the bearer token with --allow-cross-origin.
func TestSSEEndpointOnAnotherOrigin(t *testing.T) {
	t.Parallel()
	var other headerLog
	s := &legacySSE{out: make(chan []byte, 16)}
	b := httptest.NewServer(other.wrap(http.HandlerFunc(s.post)))
	defer b.Close()
	s.messages = b.URL + "/messages?sessionid=1"
	a := httptest.NewServer(http.HandlerFunc(s.stream))
	defer a.Close()
	args := append([]string{"--inspect", "--transport", "sse"}, credentialFlags...)
	r := mcpscope(t, nil, append(args, a.URL+"/sse")...)
	expect(t, r, 1, nil, []string{"endpoint event names " + b.URL + "/messages", "another origin (" + b.URL + ", not " + a.URL + ")", "--allow-cross-origin"})
	if n := other.check(t); n != 0 {
		t.Errorf("%d requests reached the other origin although the endpoint was refused", n)
	}
	r = mcpscope(t, nil, append(append(args, "--allow-cross-origin"), a.URL+"/sse")...)
	expect(t, r, 0, []string{"legacy-elsewhere", "over http+sse"}, nil)
	if n := other.check(t); n == 0 {
		t.Error("with --allow-cross-origin no request reached the endpoint")
	}
}

// --trace shows HTTP traffic with the token's encoded copies redacted too: the rules
// the recorder uses.
func TestTraceRedactsEncodedToken(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(echoServer())
	defer srv.Close()
	hexToken := strings.ToUpper(fmt.Sprintf("%x", crossToken))
	r := mcpscope(t, nil, "call", "echo", "text=as hex "+hexToken, "--bearer", crossToken, "--trace", srv.URL+"/mcp")
	expect(t, r, 0, []string{"echo: as hex " + hexToken}, []string{"as hex [redacted]"})
	if strings.Contains(r.stderr, hexToken) {
		t.Errorf("the trace shows the token in hex:\n%s", r.stderr)
	}
}
