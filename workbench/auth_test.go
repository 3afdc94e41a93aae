package workbench_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testservers/oauthserver"
	"github.com/mcpscope/mcpscope/oauth"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// oauthBench is a workbench whose HTTP servers log in with OAuth, with a token store
// of its own and a "browser" that follows the authorization server's redirect.
func oauthBench(t *testing.T, dir string) *workbench.Workbench {
	return newBench(t, workbench.Options{OAuth: func(target.Target) oauth.Options {
		return oauth.Options{Store: &oauth.Store{Dir: dir}, RedirectPort: 0, Browser: "curl -sfL -o /dev/null"}
	}})
}

func authSteps(r *recorder, server string) []oauth.Step {
	var out []oauth.Step
	for _, e := range r.snapshot() {
		if e.Server == server && e.Kind == workbench.EventAuth {
			out = append(out, *e.Auth)
		}
	}
	return out
}

// A server behind OAuth without a stored token is "needs login" (the others connect);
// Login runs the flow with a person, the server connects with the token and its tools
// answer; every step is on the stream, without a secret. A 403 insufficient_scope is
// offered as a step-up (EventNeedsScope) and a login with that scope answers it.
func TestLoginFromTheWorkbench(t *testing.T) {
	srv := oauthserver.Start(t, oauthserver.Knobs{StepUpScope: "admin:write"})
	dir := t.TempDir()
	w := oauthBench(t, dir)
	r := record(t, w)
	must(t, w.Add(workbench.Spec{Name: "sec", Target: target.Target{URL: srv.URL}}))
	must(t, w.Add(host(t, "host")))
	st := wait(t, w, "sec")
	if st.State != workbench.StateNeedsLogin || !strings.Contains(st.Reason, "needs an OAuth login: there is no usable stored token") {
		t.Fatalf("sec: %+v; want needs login", st)
	}
	if st := wait(t, w, "host"); st.State != workbench.StateConnected {
		t.Fatalf("host: %+v", st)
	}
	if !w.UsesOAuth("sec") || w.UsesOAuth("host") {
		t.Errorf("UsesOAuth: sec %v, host %v", w.UsesOAuth("sec"), w.UsesOAuth("host"))
	}
	var mu sync.Mutex
	var shown string
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if _, err := w.Login(ctx, "sec", &oauth.Interaction{AuthURL: func(u string) { mu.Lock(); shown = u; mu.Unlock() }}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if !strings.HasPrefix(shown, srv.Issuer+"/authorize?") {
		t.Errorf("the person was shown %q, not the authorization URL", shown)
	}
	mu.Unlock()
	if st := wait(t, w, "sec"); st.State != workbench.StateConnected {
		t.Fatalf("sec after the login: %+v", st)
	}
	res, err := w.Call(ctx, workbench.ToolID{Server: "sec", Tool: "whoami"}, []byte(`{}`), client.CallOptions{})
	if err != nil || !strings.Contains(string(res.Raw), "hello, logged-in user") {
		t.Fatalf("whoami: %v %v", res, err)
	}
	waitFor(t, "the store step", func() bool {
		for _, s := range authSteps(r, "sec") {
			if s.Kind == "store" {
				return true
			}
		}
		return false
	})
	kinds := map[string]bool{}
	for _, s := range authSteps(r, "sec") {
		kinds[s.Kind] = true
		for _, secret := range srv.AllSecrets() {
			if strings.Contains(s.Text, secret) {
				t.Errorf("step %q shows the secret %q", s, secret)
			}
		}
	}
	for _, k := range []string{"metadata", "registration", "authorize", "redirect", "token", "store"} {
		if !kinds[k] {
			t.Errorf("no %q step among %v", k, authSteps(r, "sec"))
		}
	}

	// Step-up.
	if _, err := w.Call(ctx, workbench.ToolID{Server: "sec", Tool: "admin"}, []byte(`{}`), client.CallOptions{}); err == nil {
		t.Fatal("admin answered without the scope")
	}
	waitFor(t, "the step-up offer", func() bool {
		for _, e := range r.snapshot() {
			if e.Kind == workbench.EventNeedsScope && e.Server == "sec" && strings.Contains(e.Text, "admin:write") {
				return true
			}
		}
		return false
	})
	if _, err := w.Login(ctx, "sec", &oauth.Interaction{Scopes: []string{"mcp:read", "admin:write"}}); err != nil {
		t.Fatal(err)
	}
	res, err = w.Call(ctx, workbench.ToolID{Server: "sec", Tool: "admin"}, []byte(`{}`), client.CallOptions{})
	if err != nil || !strings.Contains(string(res.Raw), "admin done") {
		t.Fatalf("admin after the step-up: %v %v", res, err)
	}

	// The next session finds the stored login and connects without one.
	w2 := oauthBench(t, dir)
	must(t, w2.Add(workbench.Spec{Name: "sec", Target: target.Target{URL: srv.URL}}))
	if st := wait(t, w2, "sec"); st.State != workbench.StateConnected {
		t.Fatalf("a later session with the stored login: %+v", st)
	}
	if n := srv.Codes.Load(); n != 2 {
		t.Errorf("%d authorization codes; the later session should need none", n)
	}
}

// A server that refuses every token: after the login limit the status says so, as a
// failure a login does not fix.
func TestLoginLimit(t *testing.T) {
	srv := oauthserver.Start(t, oauthserver.Knobs{RejectAll: true})
	w := oauthBench(t, t.TempDir())
	must(t, w.Add(workbench.Spec{Name: "sec", Target: target.Target{URL: srv.URL}}))
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	var st workbench.Status
	for i := 0; i < 5; i++ {
		if st = wait(t, w, "sec"); st.State != workbench.StateNeedsLogin {
			break
		}
		if _, err := w.Login(ctx, "sec", &oauth.Interaction{}); err != nil {
			t.Fatal(err)
		}
	}
	if st.State != workbench.StateFailed || !strings.Contains(st.Reason, "still answers HTTP 401 after 3 tries") {
		t.Fatalf("after the logins: %+v", st)
	}
}

// A corrupt token file is named on the stream (not on stderr) and the server goes on
// to "needs login".
func TestCorruptTokenFileInTheWorkbench(t *testing.T) {
	srv := oauthserver.Start(t, oauthserver.Knobs{})
	dir := t.TempDir()
	w := oauthBench(t, dir)
	r := record(t, w)
	store := &oauth.Store{Dir: dir}
	must(t, store.Save(&oauth.Entry{Server: srv.URL, Issuer: srv.Issuer, Resource: srv.URL, AccessToken: "x"}))
	bad := corruptTokenFile(t, dir)
	must(t, w.Add(workbench.Spec{Name: "sec", Target: target.Target{URL: srv.URL}}))
	if st := wait(t, w, "sec"); st.State != workbench.StateNeedsLogin {
		t.Fatalf("sec: %+v", st)
	}
	waitFor(t, "a warning naming "+bad, func() bool {
		for _, s := range authSteps(r, "sec") {
			if s.Kind == "warning" && strings.Contains(s.Text, bad) {
				return true
			}
		}
		return false
	})
}

// Bad input met during a login from the workbench: one clear error from Login, the
// server stays "needs login" (L can try again), and nothing else is disturbed.
func TestLoginBadInput(t *testing.T) {
	cases := []struct {
		name  string
		knobs oauthserver.Knobs
		want  string
	}{
		{"metadata not JSON", oauthserver.Knobs{MetadataNotJSON: true}, "not JSON"},
		{"another issuer", oauthserver.Knobs{WrongIssuer: true}, `names the issuer "https://evil.example"`},
		{"plain-HTTP authorization server", oauthserver.Knobs{PlainHTTPAS: "http://auth.example.com"}, "uses plain HTTP and is not on this machine; refusing"},
		{"wrong iss", oauthserver.Knobs{WrongIss: true}, `the redirect comes from the issuer "https://evil.example"`},
		{"no access_token", oauthserver.Knobs{NoAccessToken: true}, "no access_token"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := oauthserver.Start(t, tc.knobs)
			w := oauthBench(t, t.TempDir())
			r := record(t, w)
			must(t, w.Add(workbench.Spec{Name: "sec", Target: target.Target{URL: srv.URL}}))
			if st := wait(t, w, "sec"); st.State != workbench.StateNeedsLogin {
				t.Fatalf("sec: %+v", st)
			}
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			_, err := w.Login(ctx, "sec", &oauth.Interaction{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Login: %v; want %q", err, tc.want)
			}
			if st, _ := w.Status("sec"); st.State != workbench.StateNeedsLogin {
				t.Errorf("after the failed login: %+v", st)
			}
			waitFor(t, "the error step", func() bool {
				for _, s := range authSteps(r, "sec") {
					if s.Kind == "error" && strings.Contains(s.Text, tc.want) {
						return true
					}
				}
				return false
			})
		})
	}
}

// A token revoked mid-session (the server answers 401 to it, and the refresh is
// refused with invalid_grant): the server is no longer "connected" but "needs login",
// with the reason (the refresh refused), so that L logs it in again; a login
// connects it again.
func TestRevokedMidSessionNeedsLogin(t *testing.T) {
	srv := oauthserver.Start(t, oauthserver.Knobs{})
	w := oauthBench(t, t.TempDir())
	must(t, w.Add(workbench.Spec{Name: "sec", Target: target.Target{URL: srv.URL}}))
	if st := wait(t, w, "sec"); st.State != workbench.StateNeedsLogin {
		t.Fatalf("sec: %+v", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if _, err := w.Login(ctx, "sec", &oauth.Interaction{}); err != nil {
		t.Fatal(err)
	}
	if st := wait(t, w, "sec"); st.State != workbench.StateConnected {
		t.Fatalf("sec after the login: %+v", st)
	}
	srv.RevokeAll()
	if _, err := w.Call(ctx, workbench.ToolID{Server: "sec", Tool: "whoami"}, []byte(`{}`), client.CallOptions{}); err == nil {
		t.Fatal("whoami answered with a revoked token")
	}
	var st workbench.Status
	waitFor(t, "sec needs login after the revocation", func() bool {
		st, _ = w.Status("sec")
		return st.State == workbench.StateNeedsLogin
	})
	for _, want := range []string{"refused the refresh token", "invalid_grant"} {
		if !strings.Contains(st.Reason, want) || st.Err == nil || !strings.Contains(st.Err.Error(), want) {
			t.Errorf("the status does not say why (%q): %+v", want, st)
		}
	}
	if !strings.Contains(st.Err.Error(), "L on the server") {
		t.Errorf("the status does not say how to log in: %v", st.Err)
	}
	if _, err := w.Login(ctx, "sec", &oauth.Interaction{}); err != nil {
		t.Fatal(err)
	}
	if st := wait(t, w, "sec"); st.State != workbench.StateConnected {
		t.Fatalf("sec after the second login: %+v", st)
	}
	res, err := w.Call(ctx, workbench.ToolID{Server: "sec", Tool: "whoami"}, []byte(`{}`), client.CallOptions{})
	if err != nil || !strings.Contains(string(res.Raw), "hello, logged-in user") {
		t.Fatalf("whoami after the second login: %v %v", res, err)
	}
}
