package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testservers/oauthserver"
)

// A server that wants DPoP-bound tokens (RFC 9449; its resource metadata says
// dpop_bound_access_tokens_required, its authorization server lists ES256) and a
// nonce of its own at both ends: the login sends a proof with its token request and
// retries it with the authorization server's nonce, the call presents the token as
// "Authorization: DPoP" with a fresh proof (htm, htu, iat, jti, ath) and retries
// with the resource's nonce; the proof key is kept with the token (0600), so that a
// later process refreshes with a proof of the same key. Neither the key, the
// tokens nor a proof reach --trace or the recording.
func TestOAuthDPoP(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{DPoP: true, DPoPNonce: true, ExpiresIn: 30, RefreshExpiresIn: 3600})
	env, store := oauthEnv(t)
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	r := mcpscope(t, env, "call", "whoami", "--login", "--redirect-port", "0", "--record", rec, "--trace", srv.URL)
	expect(t, r, 0, []string{"hello, logged-in user"}, []string{"Authorization: DPoP [redacted]", "Dpop: [redacted]"})
	if p := srv.DPoPProblems(); len(p) > 0 {
		t.Errorf("the server refused proofs:\n%s", strings.Join(p, "\n"))
	}
	as, rs, proofs := srv.DPoPCounts()
	if as == 0 || rs == 0 || proofs == 0 {
		t.Errorf("use_dpop_nonce answered by the token endpoint %d times, by the MCP endpoint %d times; %d requests with a valid proof", as, rs, proofs)
	}

	files, _ := filepath.Glob(filepath.Join(store, "tokens", "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files: %v", files)
	}
	if fi, err := os.Stat(files[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file %s: mode %v, %v; want 0600", files[0], fi.Mode().Perm(), err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var stored struct {
		TokenType, AccessToken, DPoPKey string
	}
	var raw map[string]any
	json.Unmarshal(data, &raw)
	stored.TokenType, _ = raw["token_type"].(string)
	stored.AccessToken, _ = raw["access_token"].(string)
	stored.DPoPKey, _ = raw["dpop_key"].(string)
	if stored.TokenType != "DPoP" || stored.DPoPKey == "" || !srv.DPoPBound(stored.AccessToken) {
		t.Fatalf("the stored login: token_type %q, a proof key: %v, its token bound: %v", stored.TokenType, stored.DPoPKey != "", srv.DPoPBound(stored.AccessToken))
	}
	recorded, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	// The key is a PEM block: its base64 lines are what must not leak.
	secrets := srv.AllSecrets() // tokens, codes, the client secret and every proof the server saw
	for _, l := range strings.Split(stored.DPoPKey, "\n") {
		if len(l) > 20 && !strings.HasPrefix(l, "-----") {
			secrets = append(secrets, l)
		}
	}
	noSecrets(t, "the recording", string(recorded), secrets)
	noSecrets(t, "the trace", r.stdout+r.stderr, secrets)

	// Another process, the token expired: it refreshes with a proof of the kept key
	// (the server binds the refresh token to it) and calls again.
	before := srv.Refreshes.Load()
	expireStored(t, files[0])
	r = mcpscope(t, env, "call", "whoami", srv.URL)
	expect(t, r, 0, []string{"hello, logged-in user"}, nil)
	if srv.Refreshes.Load() == before {
		t.Errorf("the expired DPoP token was not refreshed")
	}
	if p := srv.DPoPProblems(); len(p) > 0 {
		t.Errorf("the server refused proofs:\n%s", strings.Join(p, "\n"))
	}
}

// A resource that does not say it wants DPoP (a Bearer challenge, no
// dpop_bound_access_tokens_required) behind an authorization server that binds
// every token: only the user's --dpop, or the config entry's "oauth": {"dpop":
// true}, makes the login send proofs.
func TestOAuthDPoPAsked(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{DPoP: true, DPoPUnadvertised: true})
	env, _ := oauthEnv(t)
	r := mcpscope(t, env, "call", "whoami", "--login", "--redirect-port", "0", srv.URL)
	expect(t, r, 1, nil, []string{"invalid_dpop_proof"})
	refused := len(srv.DPoPProblems())

	r = mcpscope(t, env, "call", "whoami", "--login", "--dpop", "--redirect-port", "0", srv.URL)
	expect(t, r, 0, []string{"hello, logged-in user"}, nil)

	home, work := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(work, ".mcp.json"), `{"mcpServers": {"bound": {"type": "http", "url": "`+srv.URL+`", "oauth": {"dpop": true}}}}`)
	r = mcpscopeIn(t, work, home, []string{"BROWSER=curl -sfL -o /dev/null"}, "call", "whoami", "--login", "--redirect-port", "0", "bound")
	expect(t, r, 0, []string{"hello, logged-in user"}, nil)
	if p := srv.DPoPProblems(); len(p) != refused {
		t.Errorf("the server refused %d proofs, want only the first login's missing ones (%d):\n%s", len(p), refused, strings.Join(p, "\n"))
	}
}
