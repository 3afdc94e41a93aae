package workbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/oauth"
	"github.com/mcpscope/mcpscope/target"
)

// newAuthLocked gives an HTTP server its OAuth manager, which lives as long as the
// server is in the session (its token outlives reconnects). The manager never starts
// a browser login by itself: a 401 without a usable stored token makes the server
// "needs login", and Login runs the flow with a person (the TUI's dialog).
func (w *Workbench) newAuthLocked(s *server) {
	if w.opts.OAuth == nil || s.spec.Target.URL == "" || hasAuthorization(s.spec.Target.Header) || hasAuthorization(w.opts.Client.Header) {
		return
	}
	opts := w.opts.OAuth(s.spec.Target)
	name := s.spec.Name
	log := &oauth.Log{}
	log.Subscribe(func(st oauth.Step) {
		cp := st
		w.emit(Event{Server: name, Kind: EventAuth, Auth: &cp, Time: st.Time})
	})
	opts.Log = log
	if opts.Store != nil {
		// A token file that cannot be read is said in the session (the Auth view and a
		// notice), not on stderr under the screen.
		opts.Store = &oauth.Store{Dir: opts.Store.Dir, Warn: func(msg string) {
			st := oauth.Step{Time: time.Now(), Kind: "warning", Text: msg}
			w.emit(Event{Server: name, Kind: EventAuth, Auth: &st, Time: st.Time})
		}}
	}
	opts.Interactive, opts.Unattended = false, true
	opts.Out, opts.Paste, opts.Confirm = io.Discard, nil, nil
	if opts.LoginHint == "" {
		opts.LoginHint = "log in from the workbench (L on the server, or :login " + name + ")"
	}
	s.auth = oauth.New(s.spec.Target.URL, opts)
}

func hasAuthorization(h map[string][]string) bool {
	for k := range h {
		if strings.EqualFold(k, "Authorization") {
			return true
		}
	}
	return false
}

// authorizer is a server's manager as one connection's tap sees it: it notes a 401
// (or a 403 insufficient_scope) that only a person can answer, so that the status
// says "needs login" and the step-up is offered.
type authorizer struct {
	w   *Workbench
	s   *server
	gen int
}

func (a *authorizer) Token(ctx context.Context) (string, error) { return a.s.auth.Token(ctx) }

func (a *authorizer) Challenge(ctx context.Context, status int, header http.Header, sent string) (bool, error) {
	retry, err := a.s.auth.Challenge(ctx, status, header, sent)
	var ne *oauth.NeedLoginError
	if errors.As(err, &ne) {
		a.w.mu.Lock()
		var sess *client.Session
		if a.s.gen == a.gen && a.w.servers[a.s.spec.Name] == a.s {
			a.s.needLogin = ne
			switch {
			case a.s.status.State != StateConnected:
				// Connecting: connect makes the status from needLogin.
			case ne.Scope != "":
				a.s.scopeRefusals++
				a.w.emitLocked(Event{Server: a.s.spec.Name, Kind: EventNeedsScope, Text: ne.Scope})
			default:
				// The token stopped working mid-session (revoked, expired without a
				// refresh token, the refresh refused): the session can do nothing
				// more without a login, so it is ended and the server says it needs
				// one, and why, rather than staying "connected" while every request
				// fails (L logs in only a server that needs login).
				sess = a.w.detachLocked(a.s)
				a.w.setStatusLocked(a.s, Status{State: StateNeedsLogin, Err: ne, Reason: needLoginReason(a.s, ne)})
				if sess != nil {
					// Closed off this goroutine: it is inside one of the session's
					// own requests.
					a.w.wg.Add(1)
				}
			}
		}
		a.w.mu.Unlock()
		if sess != nil {
			go func() { defer a.w.wg.Done(); _ = sess.Close() }()
		}
	}
	return retry, err
}

// needLoginReason is the status line of a server that needs a login: why the stored
// login cannot be used when that is known (expired without a refresh token, the
// refresh refused, the client forgotten), else that there is none.
func needLoginReason(s *server, ne *oauth.NeedLoginError) string {
	if ne != nil && ne.Why != "" {
		return s.spec.Target.URL + " needs an OAuth login: " + ne.Why
	}
	return s.spec.Target.URL + " needs an OAuth login: there is no usable stored token for it"
}

// Authorize and Answered pass the DPoP side of a request (wire.RequestAuthorizer)
// to the manager.
func (a *authorizer) Authorize(req *http.Request, token string) error {
	return a.s.auth.Authorize(req, token)
}

func (a *authorizer) Answered(req *http.Request, status int, header http.Header) bool {
	return a.s.auth.Answered(req, status, header)
}

// authOptionLocked sets the session's authorizer of the server's manager.
func (w *Workbench) authOptionLocked(s *server, gen int, o *client.Options) {
	if s.auth == nil {
		return
	}
	o.Auth = func(_ target.Target, _ func(string), secret func(string)) wire.Authorizer {
		s.auth.OnSecret(secret) // the new tap learns every secret known so far
		return &authorizer{w: w, s: s, gen: gen}
	}
}

// UsesOAuth reports whether the server logs in with OAuth (an HTTP server without a
// --bearer or Authorization header, in a session with OAuth on).
func (w *Workbench) UsesOAuth(name string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.servers[name]
	return ok && s.auth != nil
}

// Login runs the OAuth flow for the server with a person (in: the authorization URL
// goes to it, pasted lines come from it) and, once logged in, connects the server
// anew with the token (also after a step-up: the SDK has ended the session on the
// 403). The other servers are not touched.
func (w *Workbench) Login(ctx context.Context, name string, in *oauth.Interaction) (*oauth.Entry, error) {
	w.mu.Lock()
	s, ok := w.servers[name]
	if !ok {
		err := w.unknownLocked(name)
		w.mu.Unlock()
		return nil, err
	}
	m := s.auth
	w.mu.Unlock()
	if m == nil {
		return nil, fmt.Errorf("%q does not log in with OAuth here (not an HTTP server, or it has a --bearer token or an Authorization header)", name)
	}
	e, err := m.LoginWith(ctx, in)
	if err != nil {
		return nil, err
	}
	// The SDK ends a session on a 403, so a step-up reconnects too.
	return e, w.Restart(name)
}
