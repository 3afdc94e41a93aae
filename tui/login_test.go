package tui

import (
	"fmt"
	"github.com/charmbracelet/x/ansi"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/internal/testservers/oauthserver"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/oauth"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// oauthHarness opens the workbench on a server behind OAuth (first) and the bundled
// host, with a token store of its own and the given browser command.
func oauthHarness(t *testing.T, srv *oauthserver.Server, browser string, withHost bool) *harness {
	store := &oauth.Store{Dir: t.TempDir()}
	specs := []workbench.Spec{{Name: "sec", Target: target.Target{URL: srv.URL}}}
	if withHost {
		specs = append(specs, workbench.Spec{Name: "host", Target: hostTarget(t)})
	}
	return newHarnessWith(t, Options{
		Servers: specs,
		Theme:   "dark",
		OAuth: func(target.Target) oauth.Options {
			return oauth.Options{Store: store, RedirectPort: 0, Browser: browser}
		},
	}, 120, 40)
}

func noSecretOnScreen(t *testing.T, what, screen string, secrets []string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(screen, s) {
			t.Errorf("%s shows the secret %q:\n%s", what, s, screen)
		}
	}
}

// The paste flow: where the browser cannot reach this machine, the redirected URL is
// pasted into the dialog (masked there: it carries the code); the server then
// connects with the token, its tools appear, and the Auth view lists the steps
// without a secret. The other server stayed usable throughout.
func TestLoginPasteFlow(t *testing.T) {
	srv := oauthserver.Start(t, oauthserver.Knobs{NoRedirect: true})
	got := filepath.Join(t.TempDir(), "redirect.txt")
	h := oauthHarness(t, srv, "curl -sf -o "+got, true)
	h.until("sec needs login", func(m *model) bool {
		s := m.server("sec")
		return s != nil && s.status().State == workbench.StateNeedsLogin && m.server("host").state() == stateReady
	})
	h.press("7")
	h.contains("needs login", "L logs in", "L logs in the selected server", "Auth")
	h.press("L")
	h.until("the authorization URL in the dialog", func(m *model) bool { return m.loginOpen() != nil && m.loginOpen().url != "" })
	h.contains("Log in to sec (OAuth)", srv.Issuer+"/authorize?", "paste the URL it was")
	// Meanwhile the other server answers.
	if !h.m.server("host").callable() || len(h.m.server("host").tools()) == 0 {
		t.Fatalf("the host is not usable during the login: %+v", h.m.server("host"))
	}
	redirect := testutil.WaitFile(t, got, "") // the browser command fetched the authorization URL
	h.update(tea.PasteMsg{Content: string(redirect) + "\n"})
	screen := h.screen()
	if !strings.Contains(screen, "•••") || strings.Contains(screen, "code=") {
		t.Errorf("the pasted URL is not masked:\n%s", screen)
	}
	h.press("enter")
	h.until("sec connected with its tools", func(m *model) bool {
		s := m.server("sec")
		return m.loginOpen() == nil && s.state() == stateReady && len(s.tools()) > 0
	})
	h.contains("sec/whoami")
	h.press(":")
	h.typeText("auth")
	h.press("enter")
	// The login has more steps than a screen holds (the metadata as fetched, the
	// client, the claims): read them all, a page at a time from the top.
	h.press("g")
	screen = h.screen()
	for i := 0; i < 30; i++ {
		h.press("pgdown")
		screen += h.screen()
	}
	for _, want := range []string{"metadata", "registration", "authorize", "redirect", "received via pasted URL", "token", "[redacted,"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the Auth view lacks %q:\n%s", want, screen)
		}
	}
	noSecretOnScreen(t, "the Auth view", screen, srv.AllSecrets())
}

// One server that needs login says so on the Tool pane's failure view, with the key and
// the shell command; esc cancels a login, and a bad pasted line fails it with the
// reason in the dialog.
func TestLoginFailureViewAndBadPaste(t *testing.T) {
	srv := oauthserver.Start(t, oauthserver.Knobs{NoRedirect: true})
	h := oauthHarness(t, srv, "mcpscope-no-such-browser", false)
	h.until("sec needs login", func(m *model) bool {
		s := m.server("sec")
		return s != nil && s.status().State == workbench.StateNeedsLogin
	})
	h.contains("Needs login", "needs an OAuth login", "L logs in", "mcpscope auth login", srv.URL)
	h.press("L")
	h.until("the dialog", func(m *model) bool { return m.loginOpen() != nil && m.loginOpen().url != "" })
	h.press("esc")
	h.until("the login cancelled", func(m *model) bool { return m.loginOpen() == nil && strings.Contains(m.notice, "cancelled") })
	h.press("L")
	h.until("the dialog again", func(m *model) bool { return m.loginOpen() != nil && m.loginOpen().url != "" })
	h.typeText("http://127.0.0.1:1/callback?code=forged&state=forged")
	h.press("enter")
	h.until("the login failed", func(m *model) bool { return m.loginOpen() != nil && m.loginOpen().err != "" })
	h.contains("The login failed", "state does not match")
	h.press("esc")
	if h.m.loginOpen() != nil {
		t.Fatal("esc did not close the failed login")
	}
}

// Step-up: a tool that needs more scope is refused (403 insufficient_scope); the
// screen asks y/n before logging in for the scope; y runs the login (the browser
// follows the redirect) and the call answers after it.
func TestLoginStepUpAsks(t *testing.T) {
	srv := oauthserver.Start(t, oauthserver.Knobs{StepUpScope: "admin:write"})
	h := oauthHarness(t, srv, "curl -sfL -o /dev/null", false)
	h.until("sec needs login", func(m *model) bool {
		return m.server("sec").status().State == workbench.StateNeedsLogin
	})
	h.press("L")
	h.until("sec connected", func(m *model) bool {
		s := m.server("sec")
		return m.loginOpen() == nil && s.state() == stateReady && len(s.tools()) == 2
	})
	if !h.m.selectTool("sec", "admin") {
		t.Fatal("no admin tool")
	}
	h.press("enter", "enter")
	h.until("the step-up question", func(m *model) bool { return questionOf(m) != nil })
	h.contains("asks for mcp:read admin:write", "Log in again to ask for it")
	if srv.Codes.Load() != 1 {
		t.Fatalf("%d logins before the answer; the step-up must wait for it", srv.Codes.Load())
	}
	gen := h.m.server("sec").gen()
	h.press("y")
	h.until("connected again with the scope", func(m *model) bool {
		s := m.server("sec")
		return m.loginOpen() == nil && s.gen() > gen && s.state() == stateReady && len(s.tools()) == 2 && srv.Codes.Load() == 2
	})
	if !h.m.selectTool("sec", "admin") {
		t.Fatal("no admin tool after the step-up")
	}
	h.press("1", "enter", "enter") // the selected tool; enter fills in its form, enter calls it
	h.until("the admin result", func(m *model) bool {
		return m.current != nil && !m.current.running && strings.Contains(h.screen(), "admin done with admin:write")
	})
}

// A token revoked mid-session (401 to it, the refresh refused with invalid_grant):
// the server is no longer shown connected; its row on 7 Servers says it needs a
// login and why; L there opens the login for that server, which connects it again.
func TestRevokedMidSessionLForThatServer(t *testing.T) {
	srv := oauthserver.Start(t, oauthserver.Knobs{})
	h := oauthHarness(t, srv, "curl -sfL -o /dev/null", true)
	h.until("sec needs login", func(m *model) bool {
		s := m.server("sec")
		return s != nil && s.status().State == workbench.StateNeedsLogin && m.server("host").state() == stateReady
	})
	h.press("7", "L")
	h.until("sec connected", func(m *model) bool {
		s := m.server("sec")
		return m.loginOpen() == nil && s.state() == stateReady && len(s.tools()) > 0
	})
	srv.RevokeAll()
	if !h.m.selectTool("sec", "whoami") {
		t.Fatal("no whoami tool")
	}
	h.press("1", "enter", "enter") // the selected tool; enter fills in its form, enter calls it
	h.until("sec needs login again", func(m *model) bool {
		return m.current != nil && !m.current.running && m.server("sec").status().State == workbench.StateNeedsLogin
	})
	h.press("7")
	h.until("the row on sec", func(m *model) bool { return m.srvList.cursor == 0 })
	screen := h.screen()
	for _, want := range []string{"needs login", "L logs in", "refused the refresh token"} {
		if !strings.Contains(screen, want) {
			t.Errorf("7 Servers lacks %q after the revocation:\n%s", want, screen)
		}
	}
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "› sec ") && !strings.Contains(l, "✗ needs login") {
			t.Errorf("sec's row does not say it needs login: %s", l)
		}
	}
	codes := srv.Codes.Load()
	h.press("L")
	h.until("sec connected after the login", func(m *model) bool {
		s := m.server("sec")
		return m.loginOpen() == nil && s.state() == stateReady && len(s.tools()) > 0 && srv.Codes.Load() == codes+1
	})
}

// After a step-up's y and the login, the refused call is run again by itself (as the
// CLI does), to the same server, tool and arguments, and the result shown is the
// re-run's, not the refusal.
func TestStepUpRerunsTheCall(t *testing.T) {
	srv := oauthserver.Start(t, oauthserver.Knobs{StepUpScope: "admin:write"})
	h := oauthHarness(t, srv, "curl -sfL -o /dev/null", true)
	h.until("sec needs login", func(m *model) bool {
		return m.server("sec").status().State == workbench.StateNeedsLogin && m.server("host").state() == stateReady
	})
	h.press("7", "L")
	h.until("sec connected", func(m *model) bool {
		s := m.server("sec")
		return m.loginOpen() == nil && s.state() == stateReady && len(s.tools()) == 2
	})
	if !h.m.selectTool("sec", "admin") {
		t.Fatal("no admin tool")
	}
	h.press("1", "enter", "enter")
	h.until("the step-up question", func(m *model) bool { return questionOf(m) != nil })
	h.contains("sec refused the request for want of scope")
	failed := h.m.current
	// The cursor moves elsewhere meanwhile: the re-run still goes to sec/admin.
	if !h.m.selectTool("host", "echo") {
		t.Fatal("no host/echo")
	}
	h.press("y")
	h.until("the re-run's result", func(m *model) bool {
		o := m.current
		return o != nil && o != failed && !o.running && o.result != nil && m.loginOpen() == nil
	})
	o := h.m.current
	if o.server != "sec" || o.tool.Name != "admin" || string(o.args) != string(failed.args) {
		t.Errorf("the re-run went to %s/%s with %s; want sec/admin with %s", o.server, o.tool.Name, o.args, failed.args)
	}
	h.press("2")
	h.until("the admin result on screen", func(m *model) bool { return strings.Contains(h.screen(), "admin done with admin:write") })
}

// The authorization URL copies whole: ctrl+y in the login dialog puts it on the
// clipboard (OSC 52), the dialog draws it as an OSC 8 link to the whole URL, and the
// Auth view shows the authorize step in full (wrapped, never cut with …).
func TestLoginURLCopiesWhole(t *testing.T) {
	srv := oauthserver.Start(t, oauthserver.Knobs{NoRedirect: true})
	h := oauthHarness(t, srv, "mcpscope-no-such-browser", false)
	h.until("sec needs login", func(m *model) bool {
		return m.server("sec").status().State == workbench.StateNeedsLogin
	})
	h.press("L")
	h.until("the authorization URL in the dialog", func(m *model) bool { return m.loginOpen() != nil && m.loginOpen().url != "" })
	u := h.m.loginOpen().url
	if len(u) < 120 {
		t.Fatalf("the URL is too short to wrap: %s", u)
	}
	h.contains("ctrl+y copies the URL whole")
	cmd := h.m.onKey(keyMsg("ctrl+y"))
	if cmd == nil {
		t.Fatal("ctrl+y did nothing")
	}
	if got := fmt.Sprintf("%v", cmd()); !strings.Contains(got, u) {
		t.Errorf("ctrl+y did not copy the URL: %q", got)
	}
	if h.m.loginOpen() == nil || h.m.loginOpen().text != "" {
		t.Errorf("ctrl+y typed into the paste field: %+v", h.m.loginOpen())
	}
	if v := h.m.loginOpen().view(h.m, 80, 40); !strings.Contains(v, "\x1b]8;") || !strings.Contains(v, u) {
		t.Errorf("the dialog has no OSC 8 link to the whole URL:\n%q", v)
	}
	h.press("esc", ":")
	h.typeText("auth")
	h.press("enter")
	h.contains("each OAuth step as it happens")
	// The dialog shows the URL as soon as the login has it; its step reaches the
	// Auth tab through the workbench's events, which may come a moment later.
	h.until("the authorization URL's step", func(m *model) bool {
		for _, a := range m.auth.steps {
			if strings.Contains(a.step.Text, u) {
				return true
			}
		}
		return false
	})
	h.screen() // drawn with that step
	// Every line the Auth tab draws, at the width it drew them, joined without their
	// indent: the URL must be there whole (broken over lines, never cut with …). How
	// far down it is depends on the warnings the server's metadata and the temp
	// dir's mode earn, so this reads the lines rather than a screen.
	var joined strings.Builder
	width := h.m.auth.width
	if width <= 0 {
		t.Fatal("the Auth tab was not drawn")
	}
	for _, l := range h.m.authLines(width) {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("a line %d wide in a pane %d wide is cut with … when drawn: %q", w, width, ansi.Strip(l))
		}
		joined.WriteString(strings.TrimSpace(ansi.Strip(l)))
	}
	if !strings.Contains(joined.String(), u) {
		t.Errorf("the Auth view does not show the authorization URL whole (%s):\n%s", u, joined.String())
	}
}
