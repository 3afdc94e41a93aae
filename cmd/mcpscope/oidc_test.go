package main_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testservers/oidcas"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// The tests in this file log in against a real authorization server, panva's
// oidc-provider (interop/oidc-as.mjs): OIDC-strict offline access, resource
// indicators, a restart that forgets every registration.

// oidcEnv is a user's environment for them: a token store of its own and a browser
// that follows the authorization server's redirects with cookies.
func oidcEnv(t *testing.T) (env []string, store string) {
	dir := t.TempDir()
	return []string{"XDG_CONFIG_HOME=" + dir, "BROWSER=" + oidcas.Browser(t)}, filepath.Join(dir, "mcpscope", "oauth")
}

// storedLogin reads the one token file of the store.
func storedLogin(t *testing.T, store string) (path string, e map[string]any) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(store, "tokens", "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files: %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	return files[0], e
}

func registrations(t *testing.T, store string) []string {
	files, _ := filepath.Glob(filepath.Join(store, "clients", "*.json"))
	return files
}

// Item 3 of issue 21: an OIDC AS keeps offline_access only with prompt=consent
// (OIDC Core §11); without it there is no refresh token and the user logs in again
// every token lifetime.
func TestOIDCOfflineAccessAsksForConsent(t *testing.T) {
	t.Parallel()
	as := oidcas.Start(t, oidcas.Options{TTL: 30})
	env, store := oidcEnv(t)
	r := mcpscope(t, env, "auth", "login", "--redirect-port", "0", as.URL)
	expect(t, r, 0, []string{"logged in to " + as.URL, "issuer  " + as.Issuer}, nil)
	if strings.Contains(r.stdout+r.stderr, "no refresh token") {
		t.Errorf("auth login says there is no refresh token:\n%s%s", r.stdout, r.stderr)
	}
	if _, e := storedLogin(t, store); e["refresh_token"] == nil {
		t.Errorf("no refresh token stored: %v", e["scopes"])
	}
	l := as.Log()
	if len(l.Token) != 1 || !l.Token[0].Refresh {
		t.Errorf("token requests %+v; want one authorization_code that issued a refresh token", l.Token)
	}
	r = mcpscope(t, env, "auth", "status", as.URL)
	expect(t, r, 0, []string{"refreshable"}, nil)
	noSecrets(t, "auth login and status", r.stdout+r.stderr, l.Secrets)
}

// Where the AS gives no refresh token, auth login says so, and when the token ends.
func TestOIDCLoginSaysWhenThereIsNoRefreshToken(t *testing.T) {
	t.Parallel()
	as := oidcas.Start(t, oidcas.Options{TTL: 600, NoRefresh: true})
	env, _ := oidcEnv(t)
	r := mcpscope(t, env, "auth", "login", "--redirect-port", "0", as.URL)
	expect(t, r, 0, []string{"logged in to " + as.URL}, []string{"no refresh token", "you will have to log in again in 10m"})
}

// Item 5: a token that lives 30 s is not refreshed before every request (a fixed
// 60 s margin did that: three token requests per call); an expiring one is
// refreshed once, and the refresh names the resource (RFC 8707), without which this
// AS issues no token for the MCP server.
func TestOIDCRefreshOnceWithResource(t *testing.T) {
	t.Parallel()
	as := oidcas.Start(t, oidcas.Options{TTL: 30})
	env, store := oidcEnv(t)
	r := mcpscope(t, env, "auth", "login", "--redirect-port", "0", as.URL)
	expect(t, r, 0, []string{"logged in to " + as.URL}, nil)

	r = mcpscope(t, env, "call", "whoami", as.URL)
	expect(t, r, 0, []string{"hello, test-user"}, nil)
	if n := len(as.Log().Token); n != 1 {
		t.Errorf("%d token requests after a call with a fresh 30 s token, want only the login's: %+v", n, as.Log().Token)
	}

	// The stored token has expired: the call refreshes it once.
	path, _ := storedLogin(t, store)
	expireStored(t, path)
	r = mcpscope(t, env, "call", "whoami", as.URL)
	expect(t, r, 0, []string{"hello, test-user"}, nil)
	l := as.Log()
	if n := l.Count("refresh_token"); n != 1 {
		t.Errorf("%d refresh requests in one call, want 1: %+v", n, l.Token)
	}
	for _, tr := range l.Token {
		if tr.GrantType == "refresh_token" && tr.Resource != as.URL {
			t.Errorf("the refresh request's resource is %v, want %s", tr.Resource, as.URL)
		}
	}
}

// Item 1: after the AS forgot the registration (a restart of an in-memory AS), the
// next login registers again instead of sending the browser to an invalid_client
// page and waiting; a call with the stored login says what happened.
func TestOIDCForgottenRegistration(t *testing.T) {
	t.Parallel()
	as := oidcas.Start(t, oidcas.Options{TTL: 600})
	env, store := oidcEnv(t)
	// A fixed redirect port, as by default: the registration is kept for it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	r := mcpscope(t, env, "auth", "login", "--redirect-port", port, as.URL)
	expect(t, r, 0, []string{"logged in to " + as.URL}, nil)
	if n := len(registrations(t, store)); n != 1 {
		t.Fatalf("%d registrations kept, want 1", n)
	}

	first := as.Log()
	if len(first.Authorize) != 1 {
		t.Errorf("the first login sent %d authorization requests, want 1: %v", len(first.Authorize), first.Authorize)
	}

	// The restarted AS forgot the client. mcpscope finds that out by reading the
	// client (RFC 7592, with the registration access token the registration gave)
	// before opening the browser, not by sending an authorization request of its
	// own: the AS sees one, the browser's, for the new client.
	as.Restart()
	r = mcpscope(t, env, "auth", "login", "-v", "--redirect-port", port, as.URL)
	expect(t, r, 0, []string{"logged in to " + as.URL}, []string{"no longer knows the client", "dynamic registration at"})
	if l := as.Log(); len(l.Authorize) != 1 || len(l.ClientReads) != 1 || l.ClientReads[0] == l.Authorize[0] {
		t.Errorf("after the restart: authorization requests %v, client reads %v; want one read of the forgotten client, then one authorization request with the new one", l.Authorize, l.ClientReads)
	}
	noSecrets(t, "auth login -v", r.stdout+r.stderr, append(first.Secrets, as.Log().Secrets...))
	r = mcpscope(t, env, "call", "whoami", as.URL)
	expect(t, r, 0, []string{"hello, test-user"}, nil)

	// The stored login of a forgotten client: the refresh is refused with
	// invalid_client; the call says so, and the registration is dropped.
	as.Restart()
	r = mcpscope(t, env, "call", "whoami", as.URL)
	expect(t, r, 1, nil, []string{"invalid_client", "no longer knows the client", "removed", "mcpscope auth login " + as.URL})
	if strings.Contains(r.stderr, "there is no stored token") {
		t.Errorf("the call says there is no stored token:\n%s", r.stderr)
	}
	if n := len(registrations(t, store)); n != 0 {
		t.Errorf("%d registrations kept after invalid_client, want 0", n)
	}
	r = mcpscope(t, env, "auth", "login", "--redirect-port", port, as.URL)
	expect(t, r, 0, []string{"logged in to " + as.URL}, nil)
}

// auth logout forgets the client registration too, and says where it was kept.
func TestOIDCLogoutForgetsTheRegistration(t *testing.T) {
	t.Parallel()
	as := oidcas.Start(t, oidcas.Options{TTL: 600})
	env, store := oidcEnv(t)
	for _, logout := range [][]string{{"auth", "logout", as.URL}, {"auth", "logout", "--all"}} {
		r := mcpscope(t, env, "auth", "login", "--redirect-port", "0", as.URL)
		expect(t, r, 0, []string{"logged in to " + as.URL}, nil)
		r = mcpscope(t, env, logout...)
		expect(t, r, 0, []string{"logged out of " + as.URL, "forgot the client", filepath.Join(store, "clients")}, nil)
		if n := len(registrations(t, store)); n != 0 {
			t.Errorf("%v: %d registrations kept, want 0", logout, n)
		}
	}
}

// Item 6 (command line): an expired token without a refresh token, and a refresh
// token the AS refuses (invalid_grant), each say what happened and what to do.
func TestOIDCRefreshFailureMessages(t *testing.T) {
	t.Parallel()
	t.Run("expired, no refresh token", func(t *testing.T) {
		t.Parallel()
		as := oidcas.Start(t, oidcas.Options{TTL: 2, NoRefresh: true})
		env, store := oidcEnv(t)
		r := mcpscope(t, env, "auth", "login", "--redirect-port", "0", as.URL)
		expect(t, r, 0, []string{"logged in to " + as.URL}, nil)
		_, e := storedLogin(t, store)
		exp, err := time.Parse(time.RFC3339Nano, e["expiry"].(string))
		if err != nil {
			t.Fatal(err)
		}
		testutil.Eventually(t, "the 2 s token to expire", func() (bool, string) { return time.Now().After(exp.Add(time.Second)), exp.String() })
		r = mcpscope(t, env, "call", "whoami", as.URL)
		expect(t, r, 1, nil, []string{"expired", "no refresh token", "mcpscope auth login " + as.URL})
		if strings.Contains(r.stderr, "there is no stored token") {
			t.Errorf("the call says there is no stored token:\n%s", r.stderr)
		}
	})
	t.Run("refresh refused", func(t *testing.T) {
		t.Parallel()
		as := oidcas.Start(t, oidcas.Options{TTL: 600})
		env, store := oidcEnv(t)
		r := mcpscope(t, env, "auth", "login", "--redirect-port", "0", as.URL)
		expect(t, r, 0, []string{"logged in to " + as.URL}, nil)
		_, e := storedLogin(t, store)
		rt, _ := e["refresh_token"].(string)
		if rt == "" {
			t.Fatalf("no refresh token stored")
		}
		// The user revokes the login at the AS (which revokes the grant: the access
		// token too, which the resource server learns).
		resp, err := http.PostForm(as.Issuer+"/token/revocation", url.Values{"token": {rt}, "token_type_hint": {"refresh_token"}, "client_id": {e["client_id"].(string)}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("revocation: HTTP %d", resp.StatusCode)
		}
		as.Deny(e["access_token"].(string))
		r = mcpscope(t, env, "call", "whoami", as.URL)
		expect(t, r, 1, nil, []string{"invalid_grant", "refused the refresh token", "mcpscope auth login " + as.URL})
		if strings.Contains(r.stderr, "there is no stored token") {
			t.Errorf("the call says there is no stored token:\n%s", r.stderr)
		}
	})
}
