package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"charm.land/bubbles/v2/key"
)

// History (6): every call of the session, newest first, in a windowed list
// (m.hist over m.calls). enter re-runs a call on its own server (asking first when
// the tool is destructive), e loads its arguments into the tool's form, →/l shows
// its result.

func (m *model) onHistoryKey(k tea.KeyPressMsg) tea.Cmd {
	if len(m.calls) == 0 {
		return m.onScrollKey(k)
	}
	m.hist.clamp(len(m.calls))
	idx := len(m.calls) - 1 - m.hist.cursor // newest first on screen
	o := m.calls[idx]
	switch {
	case key.Matches(k, m.keys.Rerun):
		// The entry's own tool, whatever the list shows or has selected.
		t, ok := m.toolByName(o.server, o.tool.Name)
		if !ok {
			m.notice = o.tool.Name + " is not in the server's tool list any more; nothing was called"
			return nil
		}
		return m.requestCall(o.server, t, o.args)
	case key.Matches(k, m.keys.LoadArgs):
		if _, ok := m.toolByName(o.server, o.tool.Name); !ok {
			m.notice = o.tool.Name + " is not in the server's tool list any more; its form cannot be opened"
			return nil
		}
		if !m.selectTool(o.server, o.tool.Name) {
			m.list.setFilter("") // the filter hides it: show every tool
			m.selectTool(o.server, o.tool.Name)
		}
		if m.form != nil {
			if err := m.form.SetValue(o.args); err != nil {
				m.notice = "could not load the arguments into the form: " + err.Error()
			}
		}
		m.tab = tabTool
		return nil
	case key.Matches(k, m.keys.ShowResult):
		m.current = o
		m.tab = tabResult
		m.result.top()
		m.resultVer++
		return nil
	}
	return m.onScrollKey(k)
}

func (m *model) historyView(width, height int) string {
	if len(m.calls) == 0 {
		return m.st.muted.Render("No calls yet.")
	}
	lines := []string{m.st.muted.Render("enter re-runs · e loads the arguments into the form · → shows the result")}
	if m.opts.Browse != nil {
		lines[0] += m.st.muted.Render(" · ▶ from the recording")
	}
	// Row k is the k-th newest call.
	rows := m.hist.draw(len(m.calls), max(height-1, 1), func(k int, selected bool) string {
		o := m.calls[len(m.calls)-1-k]
		mark := ""
		if o.recorded || o.mocked {
			mark = "▶ " // from the recording
		}
		name := o.tool.Name
		if m.several() && o.server != "" {
			name = o.server + "/" + name
		}
		row := safe(fmt.Sprintf("%s  %s%-10s %-12s %s", o.started.Format("15:04:05"), mark, o.status(), name, oneLine(string(o.args), 200)))
		row = truncate(row, width-2)
		switch o.status() {
		case "failed":
			row = m.st.err.Render(row)
		case "tool error":
			row = m.st.toolErr.Render(row)
		}
		if selected {
			return m.st.selected.Render("›") + " " + row
		}
		return "  " + row
	})
	lines = append(lines, rows...)
	return strings.Join(lines, "\n")
}
