package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/oauth"
	"github.com/mcpscope/mcpscope/workbench"
)

// loginDialog is an OAuth login running for one server (L on a server that needs
// login, :login NAME, a step-up): the authorization URL (opened in the browser as the
// CLI does), and a field for the redirected URL or the code where the browser cannot
// reach this machine. The other servers go on meanwhile.
type loginDialog struct {
	server string
	scopes []string // a step-up's scopes
	url    string   // the authorization URL, raw (drawn through safe)
	text   string   // the paste field
	sent   int      // lines pasted so far
	paste  chan string
	cancel context.CancelFunc
	err    string // the login failed: why (the dialog stays until esc)
	// stepUp: started by a step-up's y; the call refused for want of scope runs
	// again once the login connected the server anew (after gen, the server's
	// connection when the login started), as the CLI does.
	stepUp  bool
	gen     int
	started time.Time
}

// rerunPending is a call refused for want of scope, to run again once its server
// connected after the step-up's login (a connection newer than afterGen) and listed
// its tools.
type rerunPending struct {
	o        *outcome
	afterGen int
}

// loginKeys is the dialog's key map.
type loginKeys struct {
	Send, Cancel, Erase, Copy key.Binding
}

func defaultLoginKeys() loginKeys {
	return loginKeys{
		Send:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send the pasted URL or code")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel the login")),
		Erase:  key.NewBinding(key.WithKeys("backspace"), key.WithHelp("backspace", "erase")),
		// A control key: letters are text in the paste field.
		Copy: key.NewBinding(key.WithKeys("ctrl+y"), key.WithHelp("ctrl+y", "copy the authorization URL (OSC 52)")),
	}
}

type (
	loginURLMsg struct {
		server, url string
	}
	loginDoneMsg struct {
		d      *loginDialog
		server string
		entry  *oauth.Entry
		err    error
	}
)

func (msg loginURLMsg) handle(m *model) tea.Cmd {
	m.onLoginURL(msg)
	return nil
}

func (msg loginDoneMsg) handle(m *model) tea.Cmd { return m.onLoginDone(msg) }

// loginWait bounds one login (the person has this long to finish it).
const loginWait = 10 * time.Minute

// startLogin opens the login dialog for a server and runs the flow in a command.
func (m *model) startLogin(name string, scopes []string) tea.Cmd {
	if m.wb == nil {
		m.notice = "no workbench yet"
		return nil
	}
	if m.server(name) == nil {
		m.notice = fmt.Sprintf("no server %q in the session; it has: %s", name, strings.Join(m.serverNames(), ", "))
		return nil
	}
	if !m.wb.UsesOAuth(name) {
		m.notice = name + " does not log in with OAuth here (not an HTTP server, or it has a --bearer token, an Authorization header, or --no-oauth)"
		return nil
	}
	old := m.loginOpen()
	if old != nil && old.err == "" {
		m.notice = "a login to " + old.server + " is running; finish it or press esc"
		return nil
	}
	if old != nil {
		m.closeDialog(old) // a failed login's dialog gives way to the new one
	}
	ctx, cancel := context.WithTimeout(context.Background(), loginWait)
	d := &loginDialog{server: name, scopes: scopes, paste: make(chan string, 8), cancel: cancel, gen: m.server(name).gen(), started: time.Now()}
	m.openDialog(d)
	m.notice = ""
	wb, send := m.wb, m.send
	in := &oauth.Interaction{Paste: d.paste, Scopes: scopes, AuthURL: func(u string) {
		if send != nil {
			send(loginURLMsg{server: name, url: u})
		}
	}}
	return func() tea.Msg {
		defer cancel()
		e, err := wb.Login(ctx, name, in)
		if err == nil {
			return loginDoneMsg{d: d, server: name, entry: e}
		}
		if ctx.Err() == context.Canceled {
			err = context.Canceled
		}
		return loginDoneMsg{d: d, server: name, err: err}
	}
}

func (m *model) onLoginURL(msg loginURLMsg) {
	if d := m.loginOpen(); d != nil && d.server == msg.server {
		d.url = msg.url
	}
}

func (m *model) onLoginDone(msg loginDoneMsg) tea.Cmd {
	d := m.loginOpen()
	mine := d != nil && d == msg.d // a cancelled login's end does not close a newer one
	switch {
	case msg.err == nil:
		if mine {
			m.closeDialog(d)
		}
		e := msg.entry
		m.notice = fmt.Sprintf("logged in to %s (issuer %s, scopes %s); connecting with the token…", msg.server, safe(e.Issuer), safe(strings.Join(e.Scopes, " ")))
		if o := m.refusedForScope(msg.d); o != nil {
			o.rerun = true
			m.rerun = &rerunPending{o: o, afterGen: msg.d.gen}
			m.notice += " " + m.toolLabel(o.server, o.tool.Name) + " runs again once connected"
			return m.rerunAfterLogin()
		}
	case errors.Is(msg.err, context.Canceled):
		if mine {
			m.closeDialog(d)
			m.notice = "login to " + msg.server + " cancelled"
		}
	case mine:
		d.err = msg.err.Error()
	default:
		m.notice = "login to " + msg.server + " failed: " + oneLine(msg.err.Error(), 300)
	}
	return nil
}

// refusedForScope is the call a step-up's login was for: the newest call to its
// server, refused for want of scope before the login started, not run again yet.
func (m *model) refusedForScope(d *loginDialog) *outcome {
	if d == nil || !d.stepUp {
		return nil
	}
	for i := len(m.calls) - 1; i >= 0; i-- {
		o := m.calls[i]
		if o.server == d.server && o.stepUp != "" && !o.rerun && !o.running && o.started.Before(d.started) {
			return o
		}
	}
	return nil
}

// rerunAfterLogin runs the call refused for want of scope again once its server
// connected after the login and listed its tools: to the same server, tool and
// arguments, and only while the tool is listed with the schema it was called with
// (the form owner rule: nothing else decides where a call goes). It goes through
// requestCall, so a destructive tool asks again.
func (m *model) rerunAfterLogin() tea.Cmd {
	p := m.rerun
	if p == nil {
		return nil
	}
	s := m.server(p.o.server)
	if s == nil {
		m.rerun = nil
		return nil
	}
	if s.gen() <= p.afterGen || s.snap.ToolsGen != s.gen() || !s.callable() {
		return nil // not connected anew yet, or its tools not listed on this connection
	}
	m.rerun = nil
	name := m.toolLabel(s.name, p.o.tool.Name)
	i := slices.IndexFunc(s.tools(), func(t client.Tool) bool { return t.Name == p.o.tool.Name })
	if i < 0 {
		m.notice = name + " is no longer in " + safe(s.name) + "'s tool list after the login; the refused call was not run again"
		return nil
	}
	if t := s.tools()[i]; string(t.InputSchema) != string(p.o.tool.InputSchema) {
		m.notice = name + "'s input schema changed after the login; the refused call was not run again"
		return nil
	}
	return m.requestCall(s.name, s.tools()[i], p.o.args)
}

// dropRerun forgets the call to run again when its server failed after the login.
func (m *model) dropRerun(s *server, why string) {
	if p := m.rerun; p != nil && p.o.server == s.name && s.gen() > p.afterGen {
		m.rerun = nil
		m.notice = s.name + " " + why + " after the login; " + m.toolLabel(s.name, p.o.tool.Name) + " was not run again"
	}
}

// loginOpen is the open login dialog, or nil.
func (m *model) loginOpen() *loginDialog { return findDialog[*loginDialog](&m.dialogs) }

func (d *loginDialog) traits() dialogTraits {
	return dialogTraits{layer: layerPane, typing: true}
}

func (d *loginDialog) about(*model) string { return safe(d.server) }

func (d *loginDialog) help(m *model) (string, [][]key.Binding) {
	l := m.loginKeys
	return "OAuth login", [][]key.Binding{{l.Send, l.Copy, l.Cancel, l.Erase}}
}

func (d *loginDialog) update(m *model, msg tea.Msg) tea.Cmd {
	if p, ok := msg.(tea.PasteMsg); ok {
		if d.err == "" && len(d.text) < 16<<10 {
			d.text += strings.TrimSpace(strings.ReplaceAll(p.Content, "\n", ""))
		}
		return nil
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, m.loginKeys.Cancel):
		d.cancel()
		m.closeDialog(d)
		if d.err == "" {
			m.notice = "login to " + d.server + " cancelled"
		}
	case key.Matches(k, m.loginKeys.Copy):
		if d.url == "" {
			m.notice = "no authorization URL yet"
			return nil
		}
		// The whole URL, whatever the pane wrapped: copying it off the screen over
		// SSH picks up the borders and the line breaks.
		m.notice = "authorization URL copied (OSC 52)"
		return tea.SetClipboard(d.url)
	case d.err != "":
		if key.Matches(k, m.loginKeys.Send) {
			m.closeDialog(d) // enter closes a failed login's dialog too
		}
	case key.Matches(k, m.loginKeys.Send):
		line := strings.TrimSpace(d.text)
		if line == "" {
			return nil
		}
		select {
		case d.paste <- line:
			d.sent++
			d.text = ""
		default:
		}
	case key.Matches(k, m.loginKeys.Erase):
		if r := []rune(d.text); len(r) > 0 {
			d.text = string(r[:len(r)-1])
		}
	default:
		if k.Text != "" && len(d.text) < 16<<10 {
			d.text += k.Text
		}
	}
	return nil
}

// maskedField shows what was pasted without showing it: a redirected URL carries the
// code, a secret.
func maskedField(s string) string {
	n := len([]rune(s))
	if n == 0 {
		return ""
	}
	return strings.Repeat("•", min(n, 24)) + fmt.Sprintf(" (%d chars)", n)
}

// loginView is the dialog, drawn instead of the tabs.
func (d *loginDialog) view(m *model, width, height int) string {
	st := m.st
	lines := []string{st.title.Render("Log in to " + safe(d.server) + " (OAuth)")}
	if len(d.scopes) > 0 {
		lines = append(lines, "asking for more scope: "+safe(strings.Join(d.scopes, " ")))
	}
	lines = append(lines, "")
	switch {
	case d.err != "":
		lines = append(lines, st.err.Render("The login failed"))
		lines = append(lines, wrapText(d.err, width)...)
		for _, l := range wrapText("esc or enter closes · the Auth view (]/[ or :auth) shows each step · L tries again", width) {
			lines = append(lines, st.muted.Render(l))
		}
		return strings.Join(fitLines(lines, height), "\n")
	case d.url == "":
		lines = append(lines, m.spin()+" finding the server's authorization server and registering…")
	default:
		lines = append(lines, wrapText("The browser ($BROWSER, else xdg-open) was asked to open this URL; open it yourself if it did not (ctrl+y copies the URL whole; a terminal that knows links opens it from any of its lines):", width)...)
		link := linkable(d.url)
		for _, l := range wrapHard(safe(d.url), max(width, 10)) {
			l = st.accent.Render(l)
			if link {
				// Every piece links to the whole URL (OSC 8), so a click on any
				// line opens it, and a terminal's "copy link" copies it whole.
				l = ansi.SetHyperlink(d.url) + l + ansi.ResetHyperlink()
			}
			lines = append(lines, l)
		}
		lines = append(lines, "", m.spin()+" waiting for the redirect to this machine…")
	}
	lines = append(lines, "")
	lines = append(lines, wrapText("Where the browser cannot reach this machine, paste the URL it was redirected to (or the code):", width)...)
	lines = append(lines, st.accent.Render("> ")+maskedField(d.text)+st.accent.Render("▏"))
	if d.sent > 0 {
		lines = append(lines, st.muted.Render("sent "+plural.Count(d.sent, "pasted line")+"; checking…"))
	}
	lines = append(lines, "", st.muted.Render("enter sends what is pasted · esc cancels · the other servers go on"))
	return strings.Join(fitLines(lines, height), "\n")
}

// linkable reports whether a URL may go into an OSC 8 hyperlink: it comes from the
// authorization server, so only http(s), and only printable ASCII (no escape, no
// control, nothing that could end the sequence early).
func linkable(u string) bool {
	if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return false
	}
	for i := 0; i < len(u); i++ {
		if u[i] <= ' ' || u[i] >= 0x7f {
			return false
		}
	}
	return true
}

func fitLines(lines []string, height int) []string {
	if height > 0 && len(lines) > height {
		return lines[:height]
	}
	return lines
}

// loginTarget is the server an L press is about: the selected row of the Servers
// tab, else the server the screen shows; "" when it does not need a login.
func (m *model) loginTarget() string {
	s := m.srv
	if m.tab == tabServers && m.srvList.cursor < len(m.servers) {
		s = m.servers[m.srvList.cursor]
	}
	if s == nil || s.status().State != workbench.StateNeedsLogin {
		return ""
	}
	return s.name
}

// onNeedsScope asks before a step-up: the server refused a request for want of
// scope; y logs in again asking for it.
func (m *model) onNeedsScope(server, scope string) {
	if m.loginOpen() != nil || findDialog[*question](&m.dialogs) != nil {
		m.notice = server + " asks for more scope (" + safe(scope) + "); :login " + server + " asks for it"
		return
	}
	scopes := strings.Fields(scope)
	m.askQuestion(&question{
		subject: safe(server),
		text:    fmt.Sprintf("%s refused the request for want of scope: it asks for %s. Log in again to ask for it (a browser login)? y/n", server, safe(scope)),
		yes: func() tea.Cmd {
			cmd := m.startLogin(server, scopes)
			if d := m.loginOpen(); cmd != nil && d != nil && d.server == server {
				d.stepUp = true // the refused call runs again after the login
			}
			return cmd
		},
		no: "not asking for more scope; the request stays refused (:login " + server + " asks later)",
	})
}
