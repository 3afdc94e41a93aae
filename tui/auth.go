package tui

import (
	"fmt"
	"strings"

	"github.com/mcpscope/mcpscope/oauth"
)

// authView is the Auth tab: every step of every server's OAuth login as it happens
// (which metadata URL was tried and what it answered, the registration, the
// authorization URL, the redirect, the token response with its secrets masked,
// scopes and expiry), so that a server's author sees where the setup is wrong.
type authView struct {
	steps []authStep
	lines scroller
	width int  // the width the lines were wrapped for
	dirty bool // steps arrived since the lines were made
}

type authStep struct {
	server string
	step   oauth.Step
}

// authKeep bounds the steps kept (a login is a few dozen).
const authKeep = 5000

func (v *authView) add(server string, s oauth.Step) {
	v.steps = append(v.steps, authStep{server: server, step: s})
	if len(v.steps) > authKeep {
		v.steps = append(v.steps[:0:0], v.steps[len(v.steps)-authKeep:]...)
	}
	v.dirty = true
	v.lines.follow = true
}

// usesOAuth reports whether a server of the session has used OAuth: a step was
// logged (a 401, a stored login, a login); the Auth tab is on the tab bar then. An
// HTTP server that needs no login logs none.
func (m *model) usesOAuth() bool { return len(m.auth.steps) > 0 }

func (m *model) authLines(width int) []string {
	st := m.st
	var out []string
	for _, a := range m.auth.steps {
		head := a.step.Time.Format("15:04:05") + " "
		if m.several() {
			head += safe(a.server) + " "
		}
		kind := fmt.Sprintf("%-12s ", a.step.Kind)
		switch a.step.Kind {
		case "error", "warning":
			kind = st.err.Render(kind)
		default:
			kind = st.accent.Render(kind)
		}
		indent := len(head) + 13
		// A URL is one word longer than the pane: broken, never cut with … (the
		// user copies it from here).
		w := max(width-indent, 20)
		var rows []string
		for _, r := range wrapText(a.step.Text, w) {
			rows = append(rows, wrapHard(r, w)...)
		}
		for i, r := range rows {
			if i == 0 {
				out = append(out, st.muted.Render(head)+kind+r)
			} else {
				out = append(out, strings.Repeat(" ", indent)+r)
			}
		}
	}
	return out
}

// authTabView draws the Auth tab.
func (m *model) authTabView(width, height int) string {
	hint := "each OAuth step as it happens; secrets are masked · L logs in a server that needs it · :login NAME"
	if len(m.auth.steps) == 0 {
		return m.st.muted.Render("No OAuth login has run in this session yet.") + "\n" + m.st.muted.Render(hint)
	}
	if m.auth.dirty || m.auth.width != width {
		m.auth.lines.setLines(m.authLines(width))
		m.auth.dirty, m.auth.width = false, width
	}
	return m.st.muted.Render(truncate(hint, width)) + "\n" + m.auth.lines.view(max(height-1, 1))
}

// authKeys is the Auth tab's table: L (caught before the views, as everywhere: it
// logs in the server that needs it), and scrolling.
func (m *model) authKeys() keyTable {
	k := m.keys
	return keyTable{name: "Auth", groups: [][]binding{{{Binding: k.Login}}, k.moves(m.onScrollKey)}}
}

// authSpec is the Auth view's registration (views.go): off the bar until a server
// logs in with OAuth, no digit (]/[ and :auth open it).
func authSpec() viewSpec {
	return viewSpec{name: "Auth", visible: (*model).usesOAuth,
		draw: (*model).authTabView, keys: (*model).authKeys,
		scroll: func(m *model, d int) { m.auth.lines.scroll(d) }}
}
