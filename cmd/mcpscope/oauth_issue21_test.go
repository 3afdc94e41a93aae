package main_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testservers/oauthserver"
)

// Users put flags last: `call TOOL URL --login` logs in and calls (a URL target
// takes no words after it, so what follows it can only be mcpscope's flags); a word
// that is no flag after a URL is still refused.
func TestOAuthFlagsAfterURLTarget(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{})
	env, _ := oauthEnv(t)
	r := mcpscope(t, env, "call", "whoami", srv.URL, "--login", "--redirect-port", "0")
	expect(t, r, 0, []string{"hello, logged-in user"}, nil)
	r = mcpscope(t, env, "call", "whoami", srv.URL, "--no-oauth", "extra")
	expect(t, r, 2, nil, []string{`a URL target takes nothing after it, got "extra"`})
}

// A forged redirect (another state) that reaches the loopback listener before the
// real one is refused and the login goes on waiting: the real redirect logs in, and
// the user is told one was refused.
func TestOAuthForgedRedirectIsIgnored(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{ForgeFirst: true})
	env, _ := oauthEnv(t)
	r := mcpscope(t, env, "auth", "login", "--redirect-port", "0", srv.URL)
	expect(t, r, 0, []string{"logged in to " + srv.URL}, []string{"refused a redirect whose state does not match this login", "still waiting"})
	if st := srv.ForgedStatus(); st != http.StatusBadRequest {
		t.Errorf("the loopback listener answered the forged redirect HTTP %d, want 400", st)
	}
}

// A 20 MiB registration response is cut off when read, and the error shown is
// short (it printed the first MiB on one line).
func TestOAuthHugeRegistrationResponse(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{HugeRegistration: true})
	env, _ := oauthEnv(t)
	r := mcpscope(t, env, "auth", "login", "--redirect-port", "0", srv.URL)
	expect(t, r, 1, nil, []string{"dynamic registration at " + srv.Issuer + "/register failed", "larger than 1 MiB"})
	if len(r.stderr) > 1000 {
		t.Errorf("a %d-byte error:\n%.600s…", len(r.stderr), r.stderr)
	}
}

// Token and client files are not read through a symbolic link (refused, named),
// and loose modes of the files and the directory are warned about and tightened.
func TestOAuthStoreLinksAndModes(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{})
	env, store := oauthEnv(t)
	r := mcpscope(t, env, "auth", "login", "--redirect-port", "0", srv.URL)
	expect(t, r, 0, []string{"logged in to " + srv.URL}, nil)
	tokens, _ := filepath.Glob(filepath.Join(store, "tokens", "*.json"))
	clients, _ := filepath.Glob(filepath.Join(store, "clients", "*.json"))
	if len(tokens) != 1 || len(clients) != 1 {
		t.Fatalf("tokens %v, clients %v", tokens, clients)
	}

	// Loose modes: a group- and world-readable token file, a world-writable directory.
	if err := os.Chmod(tokens[0], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(store, "tokens"), 0o777); err != nil {
		t.Fatal(err)
	}
	r = mcpscope(t, env, "auth", "status")
	expect(t, r, 0, []string{srv.URL}, []string{"warning: " + tokens[0] + " has mode 0644; set to 0600", "warning: " + filepath.Join(store, "tokens") + " has mode 0777; set to 0700"})
	for path, want := range map[string]os.FileMode{tokens[0]: 0o600, filepath.Join(store, "tokens"): 0o700} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, %v; want %v", path, fi.Mode().Perm(), err, want)
		}
	}

	// Links: a token file and a client file that are symbolic links are refused.
	for _, f := range []string{tokens[0], clients[0]} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		elsewhere := filepath.Join(t.TempDir(), "elsewhere.json")
		if err := os.WriteFile(elsewhere, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(elsewhere, f); err != nil {
			t.Fatal(err)
		}
	}
	r = mcpscope(t, env, "auth", "status")
	expect(t, r, 0, []string{"no stored logins"}, []string{"warning: " + tokens[0] + " is a symbolic link; mcpscope does not read logins through links"})
	r = mcpscope(t, env, "auth", "login", "--redirect-port", "0", srv.URL)
	expect(t, r, 0, []string{"logged in to " + srv.URL}, []string{clients[0] + " is a symbolic link"})
}

// A step-up for a scope the server names alone: the advice (no terminal) asks for
// the union of the scopes granted and the new one, and following it gives a token
// with which both tools answer: no bouncing between two logins.
func TestOAuthStepUpAdviceKeepsGrantedScopes(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{StepUpScope: "admin:write", StepUpOnly: true})
	env, _ := oauthEnv(t)
	r := mcpscope(t, env, "auth", "login", "--redirect-port", "0", srv.URL)
	expect(t, r, 0, []string{"logged in to " + srv.URL, "mcp:read offline_access"}, nil)
	r = mcpscope(t, env, "call", "admin", srv.URL, "--redirect-port", "0")
	want := "mcpscope auth login --scope 'mcp:read offline_access admin:write' " + srv.URL
	expect(t, r, 1, nil, []string{"needs a token with more scope (admin:write)", want})
	// A script follows the advice as printed.
	r = mcpscope(t, env, "auth", "login", "--redirect-port", "0", "--scope", "mcp:read offline_access admin:write", srv.URL)
	expect(t, r, 0, []string{"logged in to " + srv.URL}, nil)
	for tool, out := range map[string]string{"admin": "admin done with admin:write", "whoami": "hello, logged-in user"} {
		r = mcpscope(t, env, "call", tool, srv.URL)
		expect(t, r, 0, []string{out}, nil)
	}
	// auth login without --scope keeps what was granted too.
	r = mcpscope(t, env, "auth", "login", "--redirect-port", "0", srv.URL)
	expect(t, r, 0, []string{"scopes  mcp:read offline_access admin:write"}, nil)
}

// A client-credentials login that meets a step-up asks for client credentials again
// with the union of the scopes, as the same client: no browser, no registration,
// with or without --login; where the authorization server will not grant the scope,
// --login says why it does not turn to a browser login.
func TestOAuthClientCredentialsStepUp(t *testing.T) {
	t.Parallel()
	for _, never := range []bool{false, true} {
		k := oauthserver.Knobs{StepUpScope: "admin:write", CCClientID: "machine-1", CCClientSecret: "machine-secret-8c1f"}
		if never {
			k.NeverGrant = "admin:write"
		}
		srv := oauthserver.Start(t, k)
		env, _ := oauthEnv(t)
		r := mcpscope(t, env, "auth", "login", "--oauth-grant", "client-credentials", "--client-id", "machine-1", "--client-secret", "machine-secret-8c1f", srv.URL)
		expect(t, r, 0, []string{"logged in to " + srv.URL}, nil)
		if !never {
			r = mcpscope(t, env, "call", "admin", srv.URL)
			expect(t, r, 0, []string{"admin done with admin:write"}, nil)
			r = mcpscope(t, env, "auth", "status", srv.URL)
			expect(t, r, 0, []string{"mcp:read admin:write"}, nil)
		} else {
			r = mcpscope(t, env, "call", "admin", srv.URL, "--login", "--redirect-port", "0")
			expect(t, r, 1, nil, []string{"did not grant admin:write", "client-credentials login (client machine-1)", "not replaced by a browser login"})
		}
		if srv.Codes.Load() != 0 || srv.Registered.Load() != 0 {
			t.Errorf("never=%v: %d browser logins, %d registrations; want none", never, srv.Codes.Load(), srv.Registered.Load())
		}
		if n := srv.ClientCreds.Load(); n != 2 {
			t.Errorf("never=%v: %d client credentials grants, want 2", never, n)
		}
	}
}

// A scope the authorization server never grants: the step-up logs in once, sees in
// the token response that the scope was refused, and says so (it logged in 3 times).
func TestOAuthScopeNeverGranted(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{StepUpScope: "admin:write", NeverGrant: "admin:write"})
	env, _ := oauthEnv(t)
	r := mcpscope(t, env, "auth", "login", "--redirect-port", "0", srv.URL)
	expect(t, r, 0, []string{"logged in to " + srv.URL}, nil)
	r = mcpscope(t, env, "call", "admin", srv.URL, "--login", "--redirect-port", "0")
	expect(t, r, 1, nil, []string{"did not grant admin:write"})
	if n := srv.Codes.Load(); n != 2 {
		t.Errorf("%d logins (the first, then the step-up), want 2", n)
	}
}

// auth logout revokes the refresh and access tokens at the advertised revocation
// endpoint (RFC 7009); --redirect-port 0 reuses the client registered before (a
// loopback redirect's port may vary, RFC 8252 §7.3); auth status says a
// client-credentials login renews itself.
func TestOAuthLogoutRevokesAndPortZeroReusesTheClient(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{CCClientID: "machine-1", CCClientSecret: "machine-secret-8c1f"})
	env, _ := oauthEnv(t)
	for range 2 {
		r := mcpscope(t, env, "auth", "login", "--redirect-port", "0", srv.URL)
		expect(t, r, 0, []string{"logged in to " + srv.URL}, nil)
	}
	if n := srv.Registered.Load(); n != 1 {
		t.Errorf("%d registrations for two logins with --redirect-port 0, want 1", n)
	}
	tok := strings.TrimSpace(mcpscope(t, env, "auth", "token", srv.URL).stdout)
	r := mcpscope(t, env, "auth", "logout", srv.URL)
	expect(t, r, 0, []string{"logged out of " + srv.URL, "revoked the refresh token and the access token at " + srv.Issuer + "/revoke"}, nil)
	revoked := strings.Join(srv.Revoked(), "\n")
	if !strings.Contains(revoked, "refresh_token rt-") || !strings.Contains(revoked, "access_token "+tok) {
		t.Errorf("revoked:\n%s", revoked)
	}
	if srv.HasToken(tok) {
		t.Error("the access token still works after logout")
	}

	env2, _ := oauthEnv(t)
	r = mcpscope(t, env2, "auth", "login", "--oauth-grant", "client-credentials", "--client-id", "machine-1", "--client-secret", "machine-secret-8c1f", srv.URL)
	expect(t, r, 0, []string{"logged in to " + srv.URL}, nil)
	r = mcpscope(t, env2, "auth", "status", srv.URL)
	expect(t, r, 0, []string{"renews itself with client credentials"}, nil)
	if strings.Contains(r.stdout, "no refresh token") {
		t.Errorf("auth status:\n%s", r.stdout)
	}
}

// auth login probes the way a call does: a server that lets initialize through
// and guards the requests after it still gets its login (a bare initialize saw a
// 200 and said the server needs no login).
func TestOAuthLoginProbesLikeACall(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{OpenInitialize: true})
	env, _ := oauthEnv(t)
	r := mcpscope(t, env, "auth", "login", "--redirect-port", "0", srv.URL)
	expect(t, r, 0, []string{"logged in to " + srv.URL, "scopes  mcp:read"}, nil)
	r = mcpscope(t, env, "call", "whoami", srv.URL)
	expect(t, r, 0, []string{"hello, logged-in user"}, nil)
}
