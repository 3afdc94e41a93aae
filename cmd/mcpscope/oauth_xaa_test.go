package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testservers/oauthserver"
)

// Enterprise-managed authorization (cross-app access, SEP-990) against the Go test
// AS playing the enterprise IdP too: auth login exchanges the person's ID token at
// the IdP's token endpoint for an ID-JAG (RFC 8693), then logs in at the MCP
// server's authorization server with it as a jwt-bearer assertion (RFC 7523) as
// the pre-registered client: no browser, no registration. -v shows both steps with
// every secret masked; the IdP is sent the IdP client's identity, never the MCP
// client's secret; a call uses the stored token, and an expired one is renewed by
// exchanging the ID token again (there is no refresh token). None of the ID token,
// the ID-JAG, the access token or either client secret reaches the trace, the
// recording or auth status.
func TestOAuthEnterpriseManagedLogin(t *testing.T) {
	t.Parallel()
	const secret, idpSecret = "xaa-secret-6b0e2f", "idp-secret-94c1d7"
	srv := oauthserver.Start(t, oauthserver.Knobs{XAAClientID: "xaa-client-1", XAAClientSecret: secret, IDPClientID: "idp-client-1"})
	env, store := oauthEnv(t)
	env = append(env, "MCPSCOPE_TEST_ID_TOKEN="+srv.IDToken, "MCPSCOPE_TEST_XAA_SECRET="+secret)
	flags := []string{"--oauth-grant", "id-jag", "--id-token-env", "MCPSCOPE_TEST_ID_TOKEN", "--idp-token-endpoint", srv.IDPTokenEndpoint,
		"--idp-client-id", "idp-client-1", "--idp-client-secret", idpSecret, "--client-id", "xaa-client-1", "--client-secret-env", "MCPSCOPE_TEST_XAA_SECRET"}
	secrets := func() []string { return append(srv.AllSecrets(), secret, idpSecret) }

	r := mcpscope(t, env, append(append([]string{"auth", "login", "-v"}, flags...), srv.URL)...)
	expect(t, r, 0, []string{"logged in to " + srv.URL}, []string{
		"POST " + srv.IDPTokenEndpoint + " grant_type=urn:ietf:params:oauth:grant-type:token-exchange (subject_token: the ID token [redacted",
		"audience " + srv.Issuer, "resource " + srv.URL, "IdP client idp-client-1",
		`issued_token_type "urn:ietf:params:oauth:token-type:id-jag"`,
		"grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer (assertion: the ID-JAG [redacted",
	})
	noSecrets(t, "auth login -v", r.stdout+r.stderr, secrets())
	if srv.Exchanges.Load() != 1 || srv.JWTBearers.Load() != 1 {
		t.Errorf("%d token exchanges and %d jwt-bearer grants, want 1 each", srv.Exchanges.Load(), srv.JWTBearers.Load())
	}
	if srv.Codes.Load() != 0 || srv.Registered.Load() != 0 {
		t.Errorf("%d browser logins and %d registrations, want none", srv.Codes.Load(), srv.Registered.Load())
	}
	for _, f := range srv.ExchangeForms() {
		if strings.Contains(f.Encode(), "xaa-client-1") || strings.Contains(f.Encode(), secret) {
			t.Errorf("the IdP was sent the MCP client's identity or secret: %s", f.Encode())
		}
	}

	r = mcpscope(t, env, "auth", "status", srv.URL)
	expect(t, r, 0, []string{"renews by exchanging the ID token again"}, nil)
	noSecrets(t, "auth status", r.stdout+r.stderr, secrets())

	files, _ := filepath.Glob(filepath.Join(store, "tokens", "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files: %v", files)
	}
	expireStored(t, files[0])
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	r = mcpscope(t, env, append(append([]string{"call", "whoami", "--record", rec, "--trace"}, flags...), srv.URL)...)
	expect(t, r, 0, []string{"hello, logged-in user"}, []string{"oauth: exchange: POST " + srv.IDPTokenEndpoint})
	if srv.Exchanges.Load() != 2 || srv.JWTBearers.Load() != 2 {
		t.Errorf("after the token expired: %d token exchanges and %d jwt-bearer grants, want 2 each", srv.Exchanges.Load(), srv.JWTBearers.Load())
	}
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	noSecrets(t, "the trace", r.stdout+r.stderr, secrets())
	noSecrets(t, "the recording", string(data), secrets())

	// Expired again, and this call was not given the ID token: the renewal step says
	// how such a login renews (not "no offline access"); the token is still sent,
	// and this server, whose own clock says it lives an hour, takes it.
	expireStored(t, files[0])
	r = mcpscope(t, env, "call", "whoami", "--trace", srv.URL)
	expect(t, r, 0, []string{"hello, logged-in user"}, []string{"an id-jag login has no refresh token and is renewed by exchanging the ID token again"})
	if strings.Contains(r.stderr, "offline access") {
		t.Errorf("the renewal blames offline access:\n%s", r.stderr)
	}
}

// A config entry's oauth block says the same as the flags: the IdP's token
// endpoint and client, and the ID token (a placeholder); the login needs no flag.
func TestOAuthEnterpriseManagedConfigEntry(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{XAAClientID: "xaa-client-1", XAAClientSecret: "xaa-secret-2", IDPClientID: "idp-client-1"})
	home, work := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(work, ".mcp.json"), `{"mcpServers": {"corp": {"type": "http", "url": "`+srv.URL+`",
  "oauth": {"clientId": "xaa-client-1", "clientSecret": "${MCPSCOPE_TEST_XAA_SECRET}", "idpTokenEndpoint": "`+srv.IDPTokenEndpoint+`",
    "idpClientId": "idp-client-1", "idToken": "${MCPSCOPE_TEST_ID_TOKEN}"}}}}`)
	env := []string{"MCPSCOPE_TEST_ID_TOKEN=" + srv.IDToken, "MCPSCOPE_TEST_XAA_SECRET=xaa-secret-2"}
	r := mcpscopeIn(t, work, home, env, "call", "whoami", "--trace", "corp")
	expect(t, r, 0, []string{"hello, logged-in user"}, []string{"oauth: exchange: POST " + srv.IDPTokenEndpoint})
	noSecrets(t, "the trace", r.stdout+r.stderr, append(srv.AllSecrets(), "xaa-secret-2"))
	if srv.Exchanges.Load() != 1 || srv.JWTBearers.Load() != 1 || srv.Codes.Load() != 0 {
		t.Errorf("%d exchanges, %d jwt-bearer grants, %d browser logins; want 1, 1, 0", srv.Exchanges.Load(), srv.JWTBearers.Load(), srv.Codes.Load())
	}
}

// The id-jag grant's flags: each misuse gets one message and the usage exit code.
func TestOAuthEnterpriseManagedUsage(t *testing.T) {
	t.Parallel()
	env, _ := oauthEnv(t)
	base := []string{"--oauth-grant", "id-jag", "--client-id", "c", "--client-secret", "s"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{base, "--oauth-grant id-jag needs the ID token from your identity provider: --id-token-file FILE or --id-token-env VAR"},
		{append(base, "--id-token-env", "HOME"), "--oauth-grant id-jag needs --idp-token-endpoint URL"},
		{[]string{"--oauth-grant", "id-jag", "--id-token-env", "HOME", "--idp-token-endpoint", "https://idp.example/token", "--idp-client-id", "i"}, "--oauth-grant id-jag needs --client-id"},
		{[]string{"--id-token-env", "HOME"}, "--id-token-file, --id-token-env, --idp-token-endpoint and --idp-client-id/--idp-client-secret are for --oauth-grant id-jag"},
		{append(base, "--id-token-env", "HOME", "--idp-token-endpoint", "http://idp.example/token", "--idp-client-id", "i"), "--idp-token-endpoint http://idp.example/token: the ID token and the IdP client's secret go there: it must be https (or http on this machine)"},
	} {
		r := mcpscope(t, env, append([]string{"call", "x"}, append(tc.args, "http://127.0.0.1:9/mcp")...)...)
		expect(t, r, 2, nil, []string{tc.want})
	}
}
