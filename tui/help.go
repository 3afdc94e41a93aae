package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
)

// focusedHelp is the keys of whatever has the keyboard, with its name: the help (?)
// shows them first, then the global keys (globalHelp); the status bar shows the
// first group's keys as far as they fit, so put a view's main keys first.
//
// Below the dialogs, it is the focused view's key table (viewKeys): a new view
// registers its table in views (views.go) and adds nothing here.
func (m *model) focusedHelp() (string, [][]key.Binding) {
	if name, groups, ok := m.dialogHelp(); ok {
		return name, groups // the front dialog's keys (dialog.go)
	}
	t := m.viewKeys()
	return t.name, t.help()
}

// helpEntry is one line of the help: a key and what it does.
type helpEntry struct{ k, d string }

// helpSections is the help's content: the focused view's keys, then the global
// ones; a key shown once is not repeated.
func (m *model) helpSections() (names []string, sections [][]helpEntry) {
	seen := map[string]bool{}
	add := func(name string, groups [][]key.Binding) {
		var es []helpEntry
		for _, g := range groups {
			for _, b := range g {
				h := b.Help()
				if h.Key == "" || seen[h.Key+h.Desc] {
					continue
				}
				seen[h.Key+h.Desc] = true
				es = append(es, helpEntry{h.Key, h.Desc})
			}
		}
		if len(es) > 0 {
			names, sections = append(names, name), append(sections, es)
		}
	}
	name, groups := m.focusedHelp()
	add(name, groups)
	add("Everywhere", m.globalHelp())
	if m.usesOAuth() {
		add("OAuth", [][]key.Binding{{m.keys.Login}}) // only where a server logs in with OAuth
	}
	return names, sections
}

// helpView flows the keys of each section into as many columns as fit, so the help
// shows whole even at 80×24 (it scrolls when it cannot).
func (m *model) helpView(width int) string {
	names, sections := m.helpSections()
	keyW, descW := 0, 0
	for _, es := range sections {
		for _, e := range es {
			keyW = max(keyW, ansi.StringWidth(e.k))
			descW = max(descW, ansi.StringWidth(e.d))
		}
	}
	colW := keyW + 1 + descW + 2
	cols := max(width/colW, 1)
	if cols < 3 && width/(keyW+1+18+2) >= 3 {
		// Three columns with descriptions cut short read better than two long ones.
		cols, descW = 3, width/3-keyW-3
	} else if cols < 2 && width/(keyW+1+14+2) >= 2 {
		cols, descW = 2, width/2-keyW-3
	}
	lines := []string{m.st.title.Render("Keys") + m.st.muted.Render("  (j/k scroll; any other key closes this help)")}
	for s, es := range sections {
		if s > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, m.st.accent.Render(names[s]))
		rows := (len(es) + cols - 1) / cols
		for r := 0; r < rows; r++ {
			var b strings.Builder
			for c := 0; c < cols; c++ {
				i := c*rows + r
				if i >= len(es) {
					break
				}
				d := ansi.Truncate(es[i].d, descW, "…")
				b.WriteString(m.st.statusKey.Render(fmt.Sprintf("%-*s", keyW, es[i].k)) + " " +
					m.st.muted.Render(d) + strings.Repeat(" ", descW-ansi.StringWidth(d)+2))
			}
			lines = append(lines, b.String())
		}
	}
	lines = append(lines, "", m.st.muted.Render("Badges: RO read-only · DESTR destructive · IDEM idempotent · OPEN open-world · APP an MCP Apps view."),
		m.st.muted.Render("Capitals: set by the server; faint lower case: the spec default it left unset."))
	return strings.Join(lines, "\n")
}

// keyHints is the status bar's hint: the focused view's main keys (the first group
// of focusedHelp; of a view's table, those enabled now), as many as fit in width
// cells, then "? help".
func (m *model) keyHints(width int) string {
	st := m.st
	out := st.statusKey.Render("?") + st.muted.Render(" help")
	front := m.dialogs.front()
	switch {
	case front != nil && front.traits().hintless:
		out = "" // the dialog takes every key: no help until it is answered
	case m.typing():
		out = st.statusKey.Render("f1") + st.muted.Render(" help") // ? is text here
	}
	name, groups := m.focusedHelp()
	if t := m.viewKeys(); t.name == name && len(t.groups) > 0 {
		// The view has the keys: its hint is what works now, so a disabled key
		// (x with no call running) is in the help with why, not here.
		groups = [][]key.Binding{t.hint()}
	}
	if len(groups) == 0 || front != nil && front.traits().layer == layerScreen {
		return out // the help itself is open
	}
	used := ansi.StringWidth(out)
	// Moving keys are the same in every list: they are in the help, not here.
	moving := map[string]bool{}
	for _, b := range []key.Binding{m.keys.Up, m.keys.Down, m.keys.PageUp, m.keys.PageDown, m.keys.Home, m.keys.End} {
		moving[b.Help().Key] = true
	}
	var parts []string
	for _, b := range groups[0] {
		h := b.Help()
		if h.Key == "" || moving[h.Key] {
			continue
		}
		p := st.statusKey.Render(h.Key) + st.muted.Render(" "+h.Desc)
		w := ansi.StringWidth(p) + 3 // and " · "
		if used+w > width {
			break
		}
		used += w
		parts = append(parts, p)
	}
	if out != "" {
		parts = append(parts, out)
	}
	return strings.Join(parts, st.muted.Render(" · "))
}
