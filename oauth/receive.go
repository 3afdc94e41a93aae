package oauth

import (
	"context"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"time"

	"github.com/mcpscope/mcpscope/internal/browser"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/shquote"
)

type redirectResult struct {
	code, state, iss string
	errCode, errDesc string
	pasted           string // how it came, when pasted
}

// receive shows the authorization URL (printed always; opened with $BROWSER, else
// xdg-open or open) and waits for the redirect on the loopback listener, or for a
// pasted redirect URL or code on Paste.
//
// A redirect whose state is not this login's (a stale tab, or a forged request from
// any local process or web page that reached the listener first) is refused and the
// wait goes on: it must not end the login the real redirect is about to complete.
// What a person pastes is theirs to judge: a pasted URL with another state ends the
// login with that reason (authorizationCode), a bare code carries no state.
func (m *Manager) receive(ctx context.Context, ln net.Listener, authURL, state string) (*redirectResult, error) {
	got := make(chan *redirectResult, 2)
	refusedCh := make(chan string, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		res := fromQuery(r.URL.Query())
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if res.state != state {
			// Not this login's: say so to whoever sent it, and keep waiting.
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, "<!doctype html><title>mcpscope</title><p>This redirect is not for the login mcpscope is waiting for (its state does not match); it was ignored.</p>")
			// Reported, not queued: a flood of them cannot crowd out the real one.
			select {
			case refusedCh <- "the loopback redirect":
			default:
			}
			return
		}
		if res.errCode != "" {
			fmt.Fprintf(w, "<!doctype html><title>mcpscope</title><p>The login failed: %s. You can close this tab.</p>", html.EscapeString(res.errCode))
		} else {
			fmt.Fprint(w, "<!doctype html><title>mcpscope</title><p>mcpscope received the login. You can close this tab.</p>")
		}
		select {
		case got <- res:
		default:
		}
	})}
	go srv.Serve(ln)
	defer srv.Close()
	done := make(chan struct{})
	defer close(done)

	fmt.Fprintf(m.opts.Out, "To log in to %s, open this URL in a browser:\n\n  %s\n\n", m.server, authURL)
	if m.interaction != nil && m.interaction.AuthURL != nil {
		m.interaction.AuthURL(authURL)
	}
	lines := m.pasteLines()
	if err := m.openBrowser(authURL); err != nil {
		m.step("authorize", "no browser opened (%v); open the URL yourself", err)
		if m.opts.Unattended && lines == nil {
			return nil, errorf("no browser could be started for the login (%v) and no one is here to open the URL or paste the redirect; set $BROWSER, or run mcpscope auth login %s on a terminal", err, shquote.Quote(m.server))
		}
	}
	if lines != nil {
		if m.interaction == nil {
			fmt.Fprintf(m.opts.Out, "Waiting for the redirect to %s. Where the browser cannot reach this machine, paste the URL it was redirected to (or the code) here:\n", ln.Addr())
		}
		go func() {
			var line string
			for line == "" {
				var ok bool
				select {
				case line, ok = <-lines:
					if !ok {
						return
					}
				case <-ctx.Done():
					return
				case <-done:
					return
				}
			}
			res := &redirectResult{pasted: "pasted"}
			if u, err := url.Parse(line); err == nil && u.Scheme != "" && u.RawQuery != "" {
				res = fromQuery(u.Query())
				res.pasted = "pasted URL"
			} else if q, err := url.ParseQuery(line); err == nil && (q.Get("code") != "" || q.Get("error") != "") {
				res = fromQuery(q)
				res.pasted = "pasted query"
			} else {
				res.code = line
			}
			select {
			case got <- res:
			default:
			}
		}()
	}
	wait := time.NewTimer(m.opts.Wait)
	defer wait.Stop()
	refused := 0
	refuse := func(how string) {
		refused++
		m.step("redirect", "refused a redirect via %s whose state does not match this login (a stale tab, or a forged request); still waiting", how)
		fmt.Fprintf(m.opts.Out, "mcpscope: refused a redirect whose state does not match this login (a stale tab, or a forged request from another program or page); still waiting for the login's own redirect\n")
	}
	for {
		select {
		case res := <-got:
			how := "the loopback redirect"
			if res.pasted != "" {
				how = res.pasted
			}
			m.step("redirect", "received via %s: code %s, state %s, iss %s%s", how, mask(res.code), map[bool]string{true: "present", false: "absent"}[res.state != ""], orNone(res.iss),
				map[bool]string{true: ", error " + res.errCode, false: ""}[res.errCode != ""])
			return res, nil
		case how := <-refusedCh:
			refuse(how)
		case <-wait.C:
			more := ""
			if refused > 0 {
				more = " (refused " + plural.Count(refused, "redirect") + " with another state)"
			}
			return nil, errorf("no redirect came back within %v%s; log in again (the URL is printed above), or paste the redirected URL", m.opts.Wait, more)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func fromQuery(q url.Values) *redirectResult {
	return &redirectResult{code: q.Get("code"), state: q.Get("state"), iss: q.Get("iss"), errCode: q.Get("error"), errDesc: q.Get("error_description")}
}

// openBrowser opens the authorization URL (it comes from the authorization server's
// metadata: untrusted) through internal/browser, the rule the workbench and the command
// line share: http and https only, the URL one argument. Browser is a $BROWSER value
// (commands separated by ':', %s replaced by the URL); without one, xdg-open or open.
func (m *Manager) openBrowser(u string) error {
	spec := m.opts.Browser
	if spec == "" {
		spec = "xdg-open"
		if runtime.GOOS == "darwin" {
			spec = "open"
		}
	}
	name, err := browser.Open(u, spec)
	if err != nil {
		return err
	}
	m.step("authorize", "opened the URL with %s", name)
	return nil
}
