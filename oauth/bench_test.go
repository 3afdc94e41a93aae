package oauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/oauth"
)

// BenchmarkRoundTrip compares a POST through the tap with a stored OAuth token
// (looked up, attached, added to the redaction set) and with none.
func BenchmarkRoundTrip(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	}))
	defer srv.Close()
	store := &oauth.Store{Dir: b.TempDir()}
	store.Save(&oauth.Entry{Server: srv.URL + "/mcp", Issuer: srv.URL, Resource: srv.URL + "/mcp", AccessToken: "at-bench-0123456789", Expiry: time.Now().Add(time.Hour)})
	for _, tc := range []struct {
		name string
		auth wire.Authorizer
	}{{"none", nil}, {"oauth", oauth.New(srv.URL+"/mcp", oauth.Options{Store: store})}} {
		b.Run(tc.name, func(b *testing.B) {
			ht := wire.NewHTTPTap(wire.HTTPOptions{Auth: tc.auth, Origin: srv.URL})
			for b.Loop() {
				req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
				resp, err := ht.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
			}
		})
	}
}
