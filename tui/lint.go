package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpscope/mcpscope/lint"
	"github.com/mcpscope/mcpscope/surface"
)

// lintView is the Lint tab: what each server's tools cost a model's context (bytes,
// and o200k_base tokens) and what `mcpscope lint` finds in them (schemas a provider
// rejects, hidden characters, instructions aimed at the model, names another server
// of the session shadows), each finding opening its tool. The lint runs in a command
// on the tool lists the workbench holds (the tokenizer's first load alone takes a
// few hundred milliseconds), again whenever a list changes; never in Update.
type lintView struct {
	list
	reports []lint.Report
	of      string // the tool lists the reports are of (lintKey)
	running string // the tool lists a lint is under way for
	rows    []lintRow
	width   int
	// cost is the tool lists' cost (cost.go): the Servers view's totals and the
	// tool list's column.
	cost costs
}

// lintRow is one line of the view; a finding on a tool names it (enter opens it).
type lintRow struct {
	text         string
	server, tool string
	pointer      string // a finding's JSON pointer into the tool's definition
}

// lintMsg is a finished lint of the tool lists key names.
type lintMsg struct {
	key     string
	reports []lint.Report
}

func (msg lintMsg) handle(m *model) tea.Cmd {
	v := &m.lint
	if msg.key != v.running {
		return nil // lists changed meanwhile: the newer lint's answer is the one
	}
	v.reports, v.of, v.running, v.width = msg.reports, msg.key, "", 0
	return nil
}

// lintKey names the tool lists the view shows: each server's list by its identity
// (a refetch or a restart replaces the list).
func (m *model) lintKey() string {
	var b strings.Builder
	for _, s := range m.servers {
		fmt.Fprintf(&b, "%s@%d:%p;", s.name, s.snap.ToolsGen, s.snap.Tools)
	}
	return b.String()
}

// ensureLint starts a lint when the tool lists differ from the ones shown and none
// is under way for them (the view's shown hook: cheap otherwise).
func (m *model) ensureLint() tea.Cmd {
	v := &m.lint
	k := m.lintKey()
	if k == v.of || k == v.running {
		return nil
	}
	v.running = k
	in := make([]lint.Input, 0, len(m.servers))
	for _, s := range m.servers {
		if s.snap.Tools == nil {
			continue
		}
		in = append(in, lint.Input{Name: s.name, Surface: &surface.Surface{Tools: s.tools(), HasTools: true}})
	}
	return func() tea.Msg { return lintMsg{key: k, reports: lint.Run(in, lint.Options{})} }
}

// lintRows lays the reports out for width.
func (m *model) lintRows(width int) []lintRow {
	st := m.st
	var rows []lintRow
	add := func(text, server, tool string, pointer ...string) {
		rows = append(rows, lintRow{text: truncate(text, width), server: server, tool: tool, pointer: strings.Join(pointer, "")})
	}
	for _, r := range m.lint.reports {
		head := fmt.Sprintf("%d tokens in %s (%s of it descriptions) for %d tools", r.Total.Tokens, sizeWord(int64(r.Total.Bytes)), sizeWord(int64(r.Total.Description)), len(r.Costs))
		if m.several() {
			head = safe(r.Server) + ": " + head
		}
		add(st.accent.Render(head), "", "")
		for i, c := range r.Costs {
			if i == 5 {
				add(st.muted.Render(fmt.Sprintf("    … %d lighter", len(r.Costs)-5)), "", "")
				break
			}
			add(fmt.Sprintf("  %6d tok %9s  %s", c.Tokens, sizeWord(int64(c.Bytes)), safe(c.Name)), r.Server, c.Name)
		}
		if len(r.Findings) == 0 {
			add(st.ok.Render("  no findings"), "", "")
		}
		for _, f := range r.Findings {
			sev := fmt.Sprintf("%-7s", f.Severity)
			switch f.Severity {
			case lint.Error:
				sev = st.err.Render(sev)
			case lint.Warning:
				sev = st.warn.Render(sev)
			default:
				sev = st.muted.Render(sev)
			}
			where := f.Object
			if f.Name != "" {
				where += " " + safe(f.Name)
			}
			tool := ""
			if f.Object == surface.ObjTool {
				tool = f.Name
			}
			add("  "+sev+" "+f.Rule+"  "+where+st.muted.Render(" "+safe(f.Pointer)), r.Server, tool, f.Pointer)
			add(st.muted.Render("          "+safe(f.Message)), r.Server, tool, f.Pointer)
		}
		add("", "", "")
	}
	return rows
}

// lintTabView draws the Lint tab.
func (m *model) lintTabView(width, height int) string {
	v := &m.lint
	st := m.st
	hint := "what the tools cost a model (o200k_base tokens: an estimate for other models) and what lint finds · enter opens the tool at the finding · mcpscope lint --rules cites every rule"
	lines := []string{st.muted.Render(truncate(hint, width))}
	if v.running != "" {
		lines = append(lines, m.spin()+" linting the tool lists…")
	}
	if v.of == "" && v.running == "" {
		lines = append(lines, st.muted.Render("No tool list yet."))
	}
	if v.width != width {
		v.rows, v.width = m.lintRows(width), width
	}
	lines = append(lines, v.draw(len(v.rows), max(height-len(lines), 1), func(i int, selected bool) string {
		if selected && v.rows[i].tool != "" {
			return st.selected.Render(truncate(ansi.Strip(v.rows[i].text), width))
		}
		return v.rows[i].text
	})...)
	return strings.Join(lines, "\n")
}

// lintKeys is the Lint tab's table: the list keys, and enter opens the tool of the
// selected row (by its server and name, never by a row's place in the tool list).
func (m *model) lintKeys() keyTable {
	v, k := &m.lint, m.keys
	open := key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open the tool at the finding"))
	move := func(kp tea.KeyPressMsg) tea.Cmd {
		v.keyMove(kp, k, len(v.rows))
		return nil
	}
	return keyTable{name: "Lint", groups: [][]binding{
		{bind(open, func() tea.Cmd {
			if v.cursor >= len(v.rows) || v.rows[v.cursor].tool == "" {
				return nil
			}
			r := v.rows[v.cursor]
			if !m.selectTool(r.server, r.tool) {
				m.notice = "the tool list (as filtered) does not show " + r.tool + ": esc clears the filter"
				return nil
			}
			m.openTab(tabTool)
			if r.pointer != "" {
				// The detail scrolled to the finding's place (its property in the
				// schema tree, its hint, its description), laid out at the width this
				// view was: the Tool view is drawn in the same pane.
				if t, ok := m.list.selected(); ok {
					m.toolRaw = false
					m.detail.offset = max(detailLineAt(m.st, t, v.width, r.pointer)-1, 0)
				}
			}
			return nil
		})},
		bindAll("", []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End}, move),
	}, rest: move}
}

// lintSpec is the Lint view's registration (views.go): no digit (]/[ and :lint open
// it), on the bar once opened (it would crowd the bar of every session otherwise).
func lintSpec() viewSpec {
	return viewSpec{name: "Lint",
		visible: func(m *model) bool { return m.lint.of != "" || m.lint.running != "" },
		draw:    (*model).lintTabView, keys: (*model).lintKeys,
		enter: (*model).ensureLint, shown: (*model).ensureLint,
		scroll: func(m *model, d int) { m.lint.moveBy(d, len(m.lint.rows)) }}
}
