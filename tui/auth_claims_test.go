package tui

import (
	"testing"

	"github.com/mcpscope/mcpscope/internal/testservers/oidcas"
	"github.com/mcpscope/mcpscope/oauth"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// Issue 21, "Debuggable", in the workbench: after L logs a server in at a real
// authorization server (oidc-provider, JWT access tokens for the MCP server), the
// Auth view shows the same steps as `auth login -v`: the authorization server's
// metadata with its PKCE, client authentication and iss members, the client as the
// registration answered, and the token's claims, said to be unverified; no token
// or secret.
func TestAuthViewShowsMetadataClientAndClaims(t *testing.T) {
	as := oidcas.Start(t, oidcas.Options{TTL: 600})
	store := &oauth.Store{Dir: t.TempDir()}
	h := newHarnessWith(t, Options{
		Servers: []workbench.Spec{{Name: "sec", Target: target.Target{URL: as.URL}}},
		Theme:   "dark",
		OAuth: func(target.Target) oauth.Options {
			return oauth.Options{Store: store, RedirectPort: 0, Browser: oidcas.Browser(t)}
		},
	}, 160, 60)
	h.until("sec needs login", func(m *model) bool {
		s := m.server("sec")
		return s != nil && s.status().State == workbench.StateNeedsLogin
	})
	h.press("L")
	h.until("sec connected", func(m *model) bool {
		s := m.server("sec")
		return m.loginOpen() == nil && s.state() == stateReady && len(s.tools()) > 0
	})
	h.press(":")
	h.typeText("auth")
	h.press("enter")
	// The last steps: the token, its claims, the store.
	h.contains("claims", "JWT access token (signature not verified", "test-user", as.URL, "store")
	screen := h.screen()
	h.press("g") // the first steps: the metadata and the client
	screen += h.screen()
	h.contains("code_challenge_methods_supported S256", "authorization_response_iss_parameter_supported",
		"token_endpoint_auth_methods_supported", "client", "as the registration answered", "redirect_uris")
	noSecretOnScreen(t, "the Auth view", screen+h.screen(), as.Log().Secrets)
}
