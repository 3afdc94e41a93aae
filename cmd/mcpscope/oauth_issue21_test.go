package main_test

import (
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
