package oauth_test

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testservers/oauthserver"
	"github.com/mcpscope/mcpscope/oauth"
)

// browser is the tests' browser: it fetches the authorization URL and follows the
// authorization server's redirect to the loopback listener, as a browser would.
const browser = "curl -sfL -o /dev/null"

func loginOnce(ctx context.Context, t *testing.T, url string, store *oauth.Store) error {
	t.Helper()
	m := oauth.New(url, oauth.Options{Store: store, RedirectPort: 0, Interactive: true, Browser: browser, Out: io.Discard})
	_, err := m.Login(ctx)
	return err
}

// A login through a kept registration sends the authorization server one
// authorization request: the browser's. Checking the client with an authorization
// request of its own made every login count twice at the server (the conformance
// suite's auth/scope-retry-limit saw 5 attempts for 3 logins) and sent a full
// authorization request (PKCE challenge, scopes, resource) no person asked for.
func TestKeptClientOneAuthorizationRequest(t *testing.T) {
	t.Parallel()
	as := oauthserver.Start(t, oauthserver.Knobs{StrictClients: true})
	store := &oauth.Store{Dir: filepath.Join(t.TempDir(), "oauth")}
	for i := 1; i <= 3; i++ {
		if err := loginOnce(context.Background(), t, as.URL, store); err != nil {
			t.Fatalf("login %d: %v", i, err)
		}
		if n := as.Authorizations.Load(); n != int32(i) {
			t.Fatalf("after %d logins the authorization endpoint saw %d requests, want %d", i, n, i)
		}
	}
	if n := as.Registered.Load(); n != 1 {
		t.Errorf("%d registrations for 3 logins, want 1 (the kept one reused)", n)
	}
}

// An authorization server without RFC 7592 client read that forgot the kept client:
// the browser shows invalid_client and no redirect comes, so that login cannot
// finish. The next one checks the client first (the last login through it did not
// finish), finds it refused, and registers again instead of sending the person to
// the same dead end.
func TestForgottenClientAfterAnUnfinishedLogin(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The person gives up on the stuck login when the AS has refused it.
	as := oauthserver.Start(t, oauthserver.Knobs{StrictClients: true, Refused: func(string) { cancel() }})
	store := &oauth.Store{Dir: filepath.Join(t.TempDir(), "oauth")}
	if err := loginOnce(context.Background(), t, as.URL, store); err != nil {
		t.Fatalf("first login: %v", err)
	}
	as.Forget()
	if err := loginOnce(ctx, t, as.URL, store); !errors.Is(err, context.Canceled) {
		t.Fatalf("the login through the forgotten client: %v, want it to wait until given up", err)
	}
	if err := loginOnce(context.Background(), t, as.URL, store); err != nil {
		t.Fatalf("the login after the unfinished one: %v", err)
	}
	if n := as.Registered.Load(); n != 2 {
		t.Errorf("%d registrations, want 2 (the forgotten client replaced)", n)
	}
	// 1 (first login) + 1 (refused in the browser) + 1 (the check) + 1 (the browser).
	if n := as.Authorizations.Load(); n != 4 {
		t.Errorf("the authorization endpoint saw %d requests, want 4", n)
	}
	// And the login after that one, which finished, sends no check again.
	if err := loginOnce(context.Background(), t, as.URL, store); err != nil {
		t.Fatal(err)
	}
	if n := as.Authorizations.Load(); n != 5 {
		t.Errorf("the authorization endpoint saw %d requests after a login through a client that worked, want 5", n)
	}
}
