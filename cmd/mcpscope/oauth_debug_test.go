package main_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testservers/oauthserver"
	"github.com/mcpscope/mcpscope/internal/testservers/oidcas"
)

// Issue 21, "Debuggable": what a server's author needs to see where the setup is
// wrong, without --trace. `auth login -v` shows the metadata documents as fetched
// (the authorization server's code_challenge_methods_supported,
// token_endpoint_auth_methods_supported and
// authorization_response_iss_parameter_supported called out), what the registration
// answered, and the access token's claims decoded (oidc-provider issues a JWT whose
// aud is the MCP server), said to be unverified; never a secret.
func TestOIDCLoginVerboseShowsMetadataClientAndClaims(t *testing.T) {
	t.Parallel()
	as := oidcas.Start(t, oidcas.Options{TTL: 600})
	env, _ := oidcEnv(t)
	r := mcpscope(t, env, "auth", "login", "-v", "--redirect-port", "0", as.URL)
	expect(t, r, 0, []string{"logged in to " + as.URL}, []string{
		"protected resource metadata from " + as.URL[:strings.LastIndex(as.URL, "/mcp")] + "/.well-known/oauth-protected-resource/mcp",
		"code_challenge_methods_supported S256",
		"token_endpoint_auth_methods_supported ",
		"authorization_response_iss_parameter_supported true",
		"client       client metadata as the registration answered: client_id ",
		"redirect_uris http://127.0.0.1:",
		"grant_types authorization_code refresh_token",
		"claims       JWT access token (signature not verified by mcpscope)",
		"iss " + as.Issuer,
		"sub test-user",
		"aud " + as.URL,
		"scope ",
		"exp ",
	})
	noSecrets(t, "auth login -v", r.stdout+r.stderr, as.Log().Secrets)
}

// An opaque access token is said to be one; an authorization server that does not
// list S256 in code_challenge_methods_supported is said to, in the metadata step.
func TestOAuthLoginVerboseOpaqueTokenAndMissingS256(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{})
	env, _ := oauthEnv(t)
	r := mcpscope(t, env, "auth", "login", "-v", "--redirect-port", "0", srv.URL)
	expect(t, r, 0, []string{"logged in to " + srv.URL}, []string{
		"authorization_response_iss_parameter_supported false",
		"token_endpoint_auth_methods_supported client_secret_post",
		"claims       opaque token",
	})
	noSecrets(t, "auth login -v", r.stdout+r.stderr, srv.AllSecrets())

	plain := oauthserver.Start(t, oauthserver.Knobs{ChallengeMethods: []string{"plain"}})
	env, _ = oauthEnv(t)
	r = mcpscope(t, env, "auth", "login", "-v", "--redirect-port", "0", plain.URL)
	expect(t, r, 1, nil, []string{"code_challenge_methods_supported plain", "does not list S256"})
}

// auth status --format json carries the issuer's metadata, the client's and the
// token's claims, and no token, refresh token or client secret; the table has one
// line of claims.
func TestOIDCStatusJSONCarriesClaimsAndClientMetadata(t *testing.T) {
	t.Parallel()
	as := oidcas.Start(t, oidcas.Options{TTL: 600})
	env, store := oidcEnv(t)
	r := mcpscope(t, env, "auth", "login", "--redirect-port", "0", as.URL)
	expect(t, r, 0, []string{"logged in to " + as.URL}, nil)
	_, e := storedLogin(t, store)
	var secrets []string
	for _, k := range []string{"access_token", "refresh_token", "client_secret"} {
		if s, _ := e[k].(string); s != "" {
			secrets = append(secrets, s)
		}
	}
	if len(secrets) < 2 {
		t.Fatalf("the stored login lacks its tokens: %v", e)
	}
	secrets = append(secrets, as.Log().Secrets...)
	for _, f := range registrations(t, store) {
		var reg map[string]any
		data, _ := os.ReadFile(f)
		json.Unmarshal(data, &reg)
		for _, k := range []string{"client_secret", "registration_access_token"} {
			if s, _ := reg[k].(string); s != "" {
				secrets = append(secrets, s)
			}
		}
	}

	r = mcpscope(t, env, "auth", "status", "--format", "json", as.URL)
	expect(t, r, 0, nil, nil)
	noSecrets(t, "auth status --format json", r.stdout+r.stderr, secrets)
	for _, part := range strings.Split(e["access_token"].(string), ".") {
		if len(part) > 16 && strings.Contains(r.stdout, part) {
			t.Errorf("auth status --format json holds a part of the access token (%q)", part)
		}
	}
	var out struct {
		Logins []struct {
			Issuer   string `json:"issuer"`
			IssuerMD *struct {
				Issuer                  string   `json:"issuer"`
				CodeChallengeMethods    []string `json:"code_challenge_methods_supported"`
				TokenEndpointAuthMethod []string `json:"token_endpoint_auth_methods_supported"`
				IssParameter            *bool    `json:"authorization_response_iss_parameter_supported"`
			} `json:"issuer_metadata"`
			Client *struct {
				ClientID     string   `json:"client_id"`
				RedirectURIs []string `json:"redirect_uris"`
				GrantTypes   []string `json:"grant_types"`
				AuthMethod   string   `json:"token_endpoint_auth_method"`
			} `json:"client_metadata"`
			Claims *struct {
				Format   string   `json:"format"`
				Verified *bool    `json:"signature_verified"`
				Aud      []string `json:"aud"`
				Iss      string   `json:"iss"`
				Sub      string   `json:"sub"`
				Exp      string   `json:"exp"`
				Iat      string   `json:"iat"`
				Scope    string   `json:"scope"`
				ClientID string   `json:"client_id"`
			} `json:"token_claims"`
		} `json:"logins"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out.Logins) != 1 {
		t.Fatalf("auth status --format json: %v\n%s", err, r.stdout)
	}
	l := out.Logins[0]
	if l.IssuerMD == nil || l.IssuerMD.Issuer != as.Issuer || !strings.Contains(strings.Join(l.IssuerMD.CodeChallengeMethods, " "), "S256") || len(l.IssuerMD.TokenEndpointAuthMethod) == 0 || l.IssuerMD.IssParameter == nil {
		t.Errorf("issuer_metadata: %+v\n%s", l.IssuerMD, r.stdout)
	}
	if l.Client == nil || l.Client.ClientID != e["client_id"] || len(l.Client.RedirectURIs) == 0 || len(l.Client.GrantTypes) == 0 || l.Client.AuthMethod == "" {
		t.Errorf("client_metadata: %+v\n%s", l.Client, r.stdout)
	}
	c := l.Claims
	if c == nil || c.Format != "jwt" || c.Verified == nil || *c.Verified || len(c.Aud) != 1 || c.Aud[0] != as.URL || c.Iss != as.Issuer || c.Sub != "test-user" || c.Exp == "" || c.Iat == "" || !strings.Contains(c.Scope, "mcp:read") {
		t.Errorf("token_claims: %+v\n%s", c, r.stdout)
	}

	r = mcpscope(t, env, "auth", "status", as.URL)
	expect(t, r, 0, []string{"claims  JWT (signature not verified) aud " + as.URL + ", expires in "}, nil)
	noSecrets(t, "auth status", r.stdout+r.stderr, secrets)
}

// Everything an authorization server sends is untrusted: a claim with an escape
// sequence in it reaches the terminal made visible, never as the sequence.
func TestOAuthLoginVerboseClaimsAreMadeSafe(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{JWTSubject: "evil\x1b]52;c;aGVsbG8=\x07user"})
	env, _ := oauthEnv(t)
	r := mcpscope(t, env, "auth", "login", "-v", "--redirect-port", "0", srv.URL)
	expect(t, r, 0, []string{"logged in to " + srv.URL}, []string{"sub evil␛]52;c;aGVsbG8=␇user"})
	r2 := mcpscope(t, env, "auth", "status", srv.URL)
	for _, out := range []string{r.stdout + r.stderr, r2.stdout + r2.stderr} {
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("an escape sequence from the token reached the terminal:\n%q", out)
		}
	}
}
