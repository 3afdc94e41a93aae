package main_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/mcpscope/mcpscope/host"
)

// methodLog serves the bundled host over HTTP on 127.0.0.1 and notes the JSON-RPC
// method of every POST, so a test can see which requests a command sent.
type methodLog struct {
	mu      sync.Mutex
	methods []string
}

func (l *methodLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.methods
	l.methods = nil
	return m
}

func serveHostLogged(t *testing.T) (string, *methodLog) {
	t.Helper()
	h, err := host.New(host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	l := &methodLog{}
	next := h.HTTPHandler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			var m struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(body, &m)
			l.mu.Lock()
			l.methods = append(l.methods, m.Method)
			l.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		next.ServeHTTP(w, r)
	})) // 127.0.0.1:0
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", l
}

// call --no-validate --args JSON needs nothing from the tool's schema (no key=value to
// coerce, no required argument to check, no output to check), so it sends no
// tools/list: initialize (or server/discover) and the call, as a bare client does.
// Without --no-validate the list is still fetched: it is what the call is checked by.
func TestCallNoValidateArgsSendsNoToolsList(t *testing.T) {
	t.Parallel()
	url, l := serveHostLogged(t)
	expect(t, mcpscope(t, nil, "call", "echo", "--no-validate", "--args", `{"text":"hi"}`, url), 0, []string{"hi"}, nil)
	if m := l.take(); slices.Contains(m, "tools/list") || !slices.Contains(m, "tools/call") {
		t.Errorf("call --no-validate --args sent %v, want the call and no tools/list", m)
	}
	// The server still judges what it is sent: a missing argument is its error result.
	expect(t, mcpscope(t, nil, "call", "add", "--no-validate", "--args", `{"a":1}`, url), 4, nil, []string{`tool "add" returned an error result`})
	l.take()
	expect(t, mcpscope(t, nil, "call", "echo", "--args", `{"text":"hi"}`, url), 0, []string{"hi"}, nil)
	if m := l.take(); !slices.Contains(m, "tools/list") {
		t.Errorf("a validated call sent %v, want a tools/list before the call", m)
	}
	// key=value is coerced by the schema, so it needs the list even with --no-validate.
	expect(t, mcpscope(t, nil, "call", "add", "--no-validate", "a=1", "b=2", url), 0, []string{"3"}, nil)
	if m := l.take(); !slices.Contains(m, "tools/list") {
		t.Errorf("call --no-validate key=value sent %v, want a tools/list to coerce by", m)
	}
}
