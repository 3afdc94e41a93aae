package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testservers/oauthserver"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// Issue 12: the workbench on a server behind OAuth (the test authorization server)
// and the bundled host: the server "needs login", L logs in with BROWSER set to a
// command that follows the redirect at once, its tools appear while the host stayed
// usable, the Auth view lists the steps; no secret is on the screen (Auth, Traffic)
// or in the session's recording.
func TestEndToEndLogin(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	srv := oauthserver.Start(t, oauthserver.Knobs{})
	dir := t.TempDir()
	cfg := filepath.Join(dir, "servers.json")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"mcpServers":{"local":{"command":%q,"args":["host"]}}}`, bin)), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "session.jsonl")
	x := newTmux(t, 150, 50, fmt.Sprintf(`sh -c 'XDG_CONFIG_HOME=%s BROWSER="curl -sfL -o /dev/null" %s --config %s --redirect-port 0 --record %s --server sec=%s --server local=local; echo mcpscope-exited:$?; sleep 30'`,
		dir, bin, cfg, rec, srv.URL))
	x.waitFor("▾ local")
	x.waitFor("sec needs login")
	x.keys("7")
	x.waitFor("L logs in the selected server")
	x.keys("L")
	x.waitFor("logged in to sec")
	x.waitFor("sec/whoami")
	x.keys("Tab") // to the list
	x.callIn("sec/whoami", "", "hello, logged-in user")
	x.callIn("local/echo", "still-here", "still-here")

	x.keys(":")
	x.typeText("auth")
	x.keys("Enter")
	x.waitFor("each OAuth step as it happens")
	x.keys("g")
	screens := x.waitFor("metadata")
	// The login has more steps than the pane holds (the metadata as fetched, the
	// client, the claims): page down until each step has been on screen, in order.
	for _, want := range []string{"registration", "authorize", "authorization URL", "received via the loopback redirect", "[redacted,"} {
		for i := 0; !strings.Contains(screens, want); i++ {
			if i == 40 {
				t.Fatalf("the Auth view never showed %q:\n%s", want, screens)
			}
			before := x.screen()
			x.keys("NPage")
			screens += x.waitUntil("the next page or "+want, func(s string) bool { return s != before || strings.Contains(s, want) })
		}
	}
	x.keys("G")
	screens += x.waitFor("token")
	x.keys("3")
	screens += x.waitFor("tools/call")
	x.keys("q")
	x.waitFor("mcpscope-exited:0")

	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "hello, logged-in user") {
		t.Fatalf("the recording lacks the call:\n%.2000s", data)
	}
	secrets := srv.AllSecrets()
	if len(secrets) < 5 { // client secret, code, verifier, access and refresh token
		t.Fatalf("the server handed out only %d secrets: %v", len(secrets), secrets)
	}
	for _, s := range secrets {
		if strings.Contains(screens, s) {
			t.Errorf("the screen shows the secret %q", s)
		}
		if strings.Contains(string(data), s) {
			t.Errorf("the recording holds the secret %q", s)
		}
	}
}
