package main_test

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testservers/oauthserver"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// oauthEnv is a user's environment for the login tests: its own config directory
// (the token store) and a browser that follows the authorization server's redirect
// without a person.
func oauthEnv(t *testing.T) (env []string, store string) {
	dir := t.TempDir()
	return []string{"XDG_CONFIG_HOME=" + dir, "BROWSER=curl -sfL -o /dev/null"}, filepath.Join(dir, "mcpscope", "oauth")
}

func noSecrets(t *testing.T, what, text string, secrets []string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(text, s) {
			t.Errorf("%s holds the secret %q", what, s)
		}
	}
}

// A login is stored (0600), shown without its token, shared by two processes that
// both find it about to expire (one refresh between them), used by a later call
// without a terminal, and removed by logout, after which the call says what to run.
func TestOAuthLoginStoreRefreshLogout(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{ExpiresIn: 30, RefreshExpiresIn: 3600})
	env, store := oauthEnv(t)
	r := mcpscope(t, env, "auth", "login", "--redirect-port", "0", srv.URL)
	expect(t, r, 0, []string{"logged in to " + srv.URL, "issuer  " + srv.Issuer, "mcp:read"}, []string{"open this URL"})
	files, _ := filepath.Glob(filepath.Join(store, "tokens", "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files: %v", files)
	}
	if fi, err := os.Stat(files[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file %s: mode %v, %v; want 0600", files[0], fi.Mode().Perm(), err)
	}
	r = mcpscope(t, env, "auth", "status")
	expect(t, r, 0, []string{srv.URL, srv.Issuer, "mcp:read", "refreshable"}, nil)
	noSecrets(t, "auth status", r.stdout+r.stderr, srv.AllSecrets())

	// Two processes at once, the token expired (a 30 s token is renewed only in
	// the last tenth of its life): one refreshes, the other waits on the lock and
	// takes the refreshed token.
	expireStored(t, files[0])
	before := srv.Refreshes.Load()
	var wg sync.WaitGroup
	out := make([]result, 2)
	for i := range out {
		wg.Add(1)
		go func() { defer wg.Done(); out[i] = mcpscope(t, env, "auth", "token", srv.URL) }()
	}
	wg.Wait()
	for _, o := range out {
		expect(t, o, 0, nil, nil)
	}
	if n := srv.Refreshes.Load() - before; n != 1 {
		t.Errorf("%d refreshes by two processes, want 1", n)
	}
	if a, b := strings.TrimSpace(out[0].stdout), strings.TrimSpace(out[1].stdout); a != b || !strings.HasPrefix(a, "at-") {
		t.Errorf("the two processes printed %q and %q; want one refreshed token", a, b)
	}

	r = mcpscope(t, env, "call", "whoami", srv.URL)
	expect(t, r, 0, []string{"hello, logged-in user"}, nil)

	r = mcpscope(t, env, "auth", "logout", srv.URL)
	expect(t, r, 0, []string{"logged out of " + srv.URL}, nil)
	r = mcpscope(t, env, "call", "whoami", srv.URL)
	expect(t, r, 1, nil, []string{"needs an OAuth login", "mcpscope auth login " + srv.URL})
	if srv.Registered.Load() != 1 {
		t.Errorf("%d dynamic registrations; the one kept for the issuer should serve every login", srv.Registered.Load())
	}
}

// Where no browser reaches the loopback listener, the redirected URL is pasted.
func TestOAuthPaste(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{NoRedirect: true})
	dir := t.TempDir()
	got := filepath.Join(dir, "redirect.txt")
	cmd := exec.Command(testutil.Mcpscope(t), "auth", "login", "--paste", "--redirect-port", "0", srv.URL)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "BROWSER=curl -sf -o "+got)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan result, 1)
	go func() { done <- runCommand(t, cmd) }()
	redirect := testutil.WaitFile(t, got, "") // the browser command fetched the authorization URL
	io.WriteString(stdin, string(redirect)+"\n")
	stdin.Close()
	r := <-done
	expect(t, r, 0, []string{"logged in to " + srv.URL}, []string{"paste the URL it was redirected to"})
}

// A login over --record and --trace: no token, code, verifier or client secret in
// either.
func TestOAuthRedaction(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{})
	env, _ := oauthEnv(t)
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	r := mcpscope(t, env, "call", "whoami", "--login", "--redirect-port", "0", "--record", rec, "--trace", srv.URL)
	expect(t, r, 0, []string{"hello, logged-in user"}, []string{"oauth: token: access token [redacted", "Authorization: Bearer [redacted]"})
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	secrets := srv.AllSecrets()
	if len(secrets) < 5 { // client secret, code, verifier, access and refresh token
		t.Fatalf("the server handed out only %d secrets: %v", len(secrets), secrets)
	}
	noSecrets(t, "the recording", string(data), secrets)
	noSecrets(t, "the trace", r.stdout+r.stderr, secrets)
}

// Bad input: one clear message and exit 1 each.
func TestOAuthBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		knobs oauthserver.Knobs
		args  []string
		want  []string
	}{
		{"metadata not JSON", oauthserver.Knobs{MetadataNotJSON: true}, nil, []string{"authorization server metadata at", "is unusable", "not JSON"}},
		{"another issuer", oauthserver.Knobs{WrongIssuer: true}, nil, []string{`names the issuer "https://evil.example"`, "refusing it"}},
		{"plain-HTTP authorization server", oauthserver.Knobs{PlainHTTPAS: "http://auth.example.com"}, nil, []string{"http://auth.example.com uses plain HTTP and is not on this machine; refusing"}},
		{"wrong iss", oauthserver.Knobs{WrongIss: true}, nil, []string{`the redirect comes from the issuer "https://evil.example"`}},
		{"no access_token", oauthserver.Knobs{NoAccessToken: true}, nil, []string{"the token request to", "no access_token"}},
		{"no browser, no person", oauthserver.Knobs{}, []string{"call", "whoami", "--login"}, []string{"no browser could be started for the login", "set $BROWSER"}},
		{"401 forever", oauthserver.Knobs{RejectAll: true}, []string{"call", "whoami", "--login"}, []string{"still answers HTTP 401 after 3 tries to log in (or refresh) in this session; stopping"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := oauthserver.Start(t, tc.knobs)
			env, _ := oauthEnv(t)
			if tc.name == "no browser, no person" {
				env = append(env, "BROWSER=mcpscope-no-such-browser")
			}
			args := tc.args
			if args == nil {
				args = []string{"auth", "login"}
			}
			r := mcpscope(t, env, append(args, "--redirect-port", "0", srv.URL)...)
			expect(t, r, 1, nil, tc.want)
			if n := strings.Count(r.stderr, "mcpscope: "); n != 1 {
				t.Errorf("%d messages, want one:\n%s", n, r.stderr)
			}
		})
	}
}

// A corrupt token file is named, skipped, and the command goes on (logs in anew).
func TestOAuthCorruptTokenFile(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{})
	env, store := oauthEnv(t)
	bad := filepath.Join(store, "tokens", "0123456789abcdef01234567.json")
	writeFile(t, bad, "{not json")
	r := mcpscope(t, env, "auth", "status")
	expect(t, r, 0, []string{"no stored logins"}, []string{"warning: the token file " + bad + " cannot be read", "it is ignored"})
	r = mcpscope(t, env, "call", "whoami", "--login", "--redirect-port", "0", srv.URL)
	expect(t, r, 0, []string{"hello, logged-in user"}, []string{bad})
}

// A config entry's oauth block is the pre-registered client: no dynamic
// registration, and its secret (a placeholder) never printed.
func TestOAuthConfigEntryClient(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{})
	home, work := t.TempDir(), t.TempDir()
	const secret = "entry-secret-5d1c9a7e"
	writeFile(t, filepath.Join(work, ".mcp.json"), `{"mcpServers": {"secured": {"type": "http", "url": "`+srv.URL+`",
  "oauth": {"clientId": "pre-registered-1", "clientSecret": "${MCPSCOPE_TEST_OAUTH_SECRET}"}}}}`)
	env := []string{"BROWSER=curl -sfL -o /dev/null", "MCPSCOPE_TEST_OAUTH_SECRET=" + secret}
	r := mcpscopeIn(t, work, home, env, "auth", "login", "-v", "--redirect-port", "0", "secured")
	expect(t, r, 0, []string{"logged in to " + srv.URL}, []string{"client: pre-registered client pre-registered-1", "client auth client_secret_post"})
	if n := srv.Registered.Load(); n != 0 {
		t.Errorf("%d dynamic registrations despite the entry's client", n)
	}
	noSecrets(t, "auth login -v", r.stdout+r.stderr, append(srv.AllSecrets(), secret))
	r = mcpscopeIn(t, work, home, env, "call", "whoami", "secured")
	expect(t, r, 0, []string{"hello, logged-in user"}, nil)
}

// The legacy HTTP+SSE transport logs in the same way: the token goes on the GET
// stream and on the POSTs to the endpoint it announces.
func TestOAuthLegacySSE(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{})
	env, _ := oauthEnv(t)
	sse := strings.TrimSuffix(srv.URL, "/mcp") + "/sse"
	r := mcpscope(t, env, "call", "whoami", "--login", "--transport", "sse", "--redirect-port", "0", sse)
	expect(t, r, 0, []string{"hello, logged-in user"}, nil)
	r = mcpscope(t, env, "auth", "status", sse)
	expect(t, r, 0, []string{sse, srv.Issuer}, nil)
}

// A server that wants no credentials needs no login: auth login says so and
// opens no browser.
func TestOAuthLoginNotNeeded(t *testing.T) {
	t.Parallel()
	host := testutil.EverythingHTTP(t, "streamableHttp")
	env, _ := oauthEnv(t)
	r := mcpscope(t, env, "auth", "login", "--redirect-port", "0", "http://"+host.Addr+"/mcp")
	expect(t, r, 1, nil, []string{"without asking for credentials and publishes no OAuth metadata: it needs no login"})
	if strings.Contains(r.stderr, "open this URL") {
		t.Errorf("a login was started:\n%s", r.stderr)
	}
}

// expireStored makes the stored login in the token file expired a second ago.
func expireStored(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var e map[string]any
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	e["expiry"] = time.Now().Add(-time.Second).UTC().Format(time.RFC3339Nano)
	if data, err = json.Marshal(e); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
