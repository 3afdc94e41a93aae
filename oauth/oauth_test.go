package oauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/oauth"
)

// A stored token goes to its server's origin only: the same tap sends a request to
// another origin without it.
func TestTokenIsOriginBound(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{}
	h := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen[name] = r.Header.Get("Authorization")
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
		})
	}
	a, b := httptest.NewServer(h("a")), httptest.NewServer(h("b"))
	defer a.Close()
	defer b.Close()
	store := &oauth.Store{Dir: t.TempDir()}
	const tok = "at-origin-bound-7f3e2a"
	if err := store.Save(&oauth.Entry{Server: a.URL + "/mcp", Issuer: a.URL, Resource: a.URL + "/mcp", AccessToken: tok, Expiry: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	m := oauth.New(a.URL+"/mcp", oauth.Options{Store: store, RedirectPort: 0})
	var events []wire.Event
	tap := &wire.Tap{}
	tap.Listen(func(e wire.Event) { mu.Lock(); events = append(events, e); mu.Unlock() })
	ht := wire.NewHTTPTap(wire.HTTPOptions{Tap: tap, Auth: m, Origin: a.URL, AllowCrossOrigin: true})
	for _, u := range []string{a.URL + "/mcp", b.URL + "/elsewhere"} {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, u, nil)
		resp, err := ht.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	if seen["a"] != "Bearer "+tok {
		t.Errorf("the server's origin got Authorization %q", seen["a"])
	}
	if seen["b"] != "" {
		t.Errorf("another origin got Authorization %q", seen["b"])
	}
	for _, e := range events {
		if strings.Contains(e.Text+string(e.Data), tok) || (e.HTTP != nil && strings.Contains(strings.Join(e.HTTP.Header.Values("Authorization"), " "), tok)) {
			t.Errorf("an event shows the token: %+v", e)
		}
	}
}

// The step log reaches every subscriber, and a corrupt store file is named.
func TestStepsAndCorruptStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "oauth") // made 0700 by Save, as the store's own directory is
	var warned []string
	store := &oauth.Store{Dir: dir, Warn: func(s string) { warned = append(warned, s) }}
	if err := store.Save(&oauth.Entry{Server: "https://x.example/mcp", Issuer: "https://x.example", Resource: "https://x.example/mcp", AccessToken: "at-1234567890"}); err != nil {
		t.Fatal(err)
	}
	if got := store.ForServer("https://X.example/mcp/"); len(got) != 1 {
		t.Fatalf("ForServer found %d logins; the URL differs only in case and a slash", len(got))
	}
	if err := writeBad(dir); err != nil {
		t.Fatal(err)
	}
	if got := store.All(); len(got) != 1 || len(warned) != 1 || !strings.Contains(warned[0], "bad.json") {
		t.Errorf("All: %d logins, warnings %q; want the good one and a warning naming bad.json", len(got), warned)
	}
	log := &oauth.Log{}
	var a, b []oauth.Step
	log.Subscribe(func(s oauth.Step) { a = append(a, s) })
	log.Subscribe(func(s oauth.Step) { b = append(b, s) })
	m := oauth.New("https://x.example/mcp", oauth.Options{Store: store, Log: log})
	if tok, err := m.Token(context.Background()); err != nil || tok != "at-1234567890" {
		t.Fatalf("Token: %q, %v", tok, err)
	}
	if len(a) == 0 || len(a) != len(b) || a[0].Kind != "store" || strings.Contains(a[0].Text, "at-1234567890") {
		t.Errorf("steps %v / %v: want the same store step for both subscribers, without the token", a, b)
	}
}
