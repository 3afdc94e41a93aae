package main_test

import (
	"net/http"
	"os"
	"path/filepath"
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
