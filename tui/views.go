package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// tab is a view of the right pane, by its place in the registry (views): the
// order of the tab bar and of ]/[.
type tab int

// The views, in the order of the bar. A view's constant here and its entry in
// views (below) are its one registration; everything else is in its own file.
const (
	tabTool tab = iota
	tabResult
	tabTraffic
	tabLogs
	tabStderr
	tabHistory
	tabServers
	tabResources // 8
	tabPrompts   // 9
	tabTasks     // 0
	tabSkills    // no digit: ]/[ and :skills
	tabChanges   // no digit: ]/[, :changes, C from the tool list (changes.go)
	tabAuth      // no digit: ]/[ and :auth
	tabLint      // no digit: ]/[ and :lint
	tabBench     // no digit: b on a tool, ]/[ and :bench (bench.go)
	tabCount
)

// viewSpec is everything the screen needs to know about a view (a tab): the bar,
// the digit keys, ]/[, the body of the right pane, the key routing, the help and
// the mouse wheel are all generated from the registry of them (views), so that no
// switch over the tabs has to learn a new one.
type viewSpec struct {
	name string
	// key opens the view from everywhere (its digit: the bar shows it before the
	// name, the help lists it under "Everywhere"); nil for a view without one, which
	// ]/[ and a command reach.
	key *key.Binding
	// visible says whether the view is on the bar (nil: always). The view shown is
	// on the bar whatever it says, and its key opens it either way: an empty view
	// (no task yet, no change yet) stays off the bar so that it does not crowd it.
	visible func(*model) bool
	// keyOffHelp takes the key out of the help too while the view is not visible
	// (Servers with one server: that screen looks as it always did; Tasks before
	// the first task).
	keyOffHelp bool
	// badge follows the name on the bar ("Result ⠋" while a call runs, "Changes (2)").
	badge func(*model) string
	// draw is the view's body: at most width × height.
	draw func(m *model, width, height int) string
	// keys is the view's key table in the state it is in (keys.go: routing, help
	// and hint come from it).
	keys func(*model) keyTable
	// enter is what opening the view needs (its key, ]/[): a list it has not
	// fetched yet. Nil: nothing.
	enter func(*model) tea.Cmd
	// shown runs after every message while the view is shown (a list lost to a
	// reconnect is fetched again). Nil: nothing. It must be cheap: say what is
	// missing and return the command that fetches it.
	shown func(*model) tea.Cmd
	// typing says keys are text in one of the view's fields now, or otherwise
	// the view's own until it is done (a picker): q, the digits, ]/[, ? and : are
	// then the view's, not commands (model.typing asks it, onKey obeys). Nil: the
	// view has no field.
	typing func(*model) bool
	// tabs says tab (or shift+tab: k) moves between the view's fields now, so it
	// goes to the view's key table instead of switching panes (onKey asks it while
	// the view has the keyboard). Nil: tab always switches panes.
	tabs func(m *model, k tea.KeyPressMsg) bool
	// scroll is the mouse wheel over the view. Nil: the wheel does nothing there.
	scroll func(m *model, delta int)
}

// views is the registry, indexed by tab. It is filled in init, not by an
// initializer: its entries name the views' methods, and a method that opens a
// view reads views, which Go would refuse as an initialization cycle.
var views [tabCount]viewSpec

func init() {
	views = [tabCount]viewSpec{
		tabTool: {name: "Tool", key: digit("1", "tool (enter: its form)"),
			draw: (*model).toolTab, keys: (*model).toolKeys,
			typing: func(m *model) bool { return m.focus == paneRight && m.form != nil && !m.toolRaw },
			// The form's tab moves between its fields, and leaves the form only when
			// there is nothing to move to; the tool's detail shown instead of the
			// form (v) takes no tab.
			tabs:   func(m *model, k tea.KeyPressMsg) bool { return m.form != nil && !m.toolRaw && !m.formEdgeTab(k) },
			scroll: func(m *model, d int) { m.detail.scroll(d) }},
		tabResult: {name: "Result", key: digit("2", "result"),
			badge: func(m *model) string {
				if m.current != nil && m.current.running {
					return " " + m.spin()
				}
				return ""
			},
			draw: (*model).resultView, keys: (*model).resultKeys,
			scroll: func(m *model, d int) { m.result.scroll(d) }},
		tabTraffic: {name: "Traffic", key: digit("3", "traffic"),
			draw: func(m *model, w, h int) string { return m.traffic.view(m.st, w, h) }, keys: (*model).trafficKeys,
			typing: func(m *model) bool { return m.traffic.typing }, // the search field, wherever the focus
			scroll: func(m *model, d int) {
				if m.traffic.open {
					m.traffic.detail.scroll(d)
				} else {
					m.traffic.move(d)
				}
			}},
		tabLogs: {name: "Logs", key: digit("4", "logs"),
			draw: (*model).logsTabView, keys: (*model).logsKeys,
			typing: func(m *model) bool { return m.logFilter.takesKeys() }, // the logger field or the level picker, wherever the focus
			scroll: func(m *model, d int) {
				if m.logFilter.active() {
					m.logFilter.view.scroll(d)
				} else {
					m.logs.scroll(d)
				}
			}},
		tabStderr: {name: "Stderr", key: digit("5", "stderr"),
			draw: func(m *model, w, h int) string {
				return m.linesView(&m.stderr, "The server has written nothing to stderr.", w, h)
			},
			keys: (*model).stderrKeys, scroll: func(m *model, d int) { m.stderr.scroll(d) }},
		tabHistory: {name: "History", key: digit("6", "history"),
			draw: (*model).historyView, keys: (*model).historyKeys, scroll: (*model).histScroll,
			typing: func(m *model) bool { return m.focus == paneRight && m.histTyping() }},
		tabServers: {name: "Servers", key: digit("7", "servers"),
			visible: (*model).several, keyOffHelp: true, // one server: the screen looks as it always did
			draw: (*model).serversView, keys: (*model).serversKeys,
			enter:  (*model).fetchAllCounts,
			scroll: func(m *model, d int) { m.srvDetail.scroll(d) }},
		tabResources: {name: "Resources", key: digit("8", "resources"),
			visible: (*model).hasResources,
			draw:    (*model).resourcesView, keys: (*model).resourcesKeys,
			enter:  (*model).enterResources,
			typing: func(m *model) bool { return m.focus == paneRight && m.res.typing() },
			tabs:   func(m *model, _ tea.KeyPressMsg) bool { return m.res.tpl != nil && m.res.tpl.form != nil }, // a template's variables
			scroll: func(m *model, d int) { m.res.scroll(d) }},
		tabPrompts: {name: "Prompts", key: digit("9", "prompts"),
			visible: (*model).hasPrompts,
			draw:    (*model).promptsView, keys: (*model).promptsKeys, shown: (*model).ensurePrompts,
			typing: func(m *model) bool { return m.focus == paneRight && m.prompts.typing() },
			tabs:   func(m *model, _ tea.KeyPressMsg) bool { return m.prompts.wantsTab() }}, // an open prompt's arguments
		tabTasks: {name: "Tasks", key: digit("0", "tasks"),
			visible: func(m *model) bool { return len(m.tasks.items) > 0 }, keyOffHelp: true,
			draw: (*model).tasksTabView, keys: (*model).tasksKeys},
		tabSkills: {name: "Skills", visible: (*model).hasSkills,
			draw: (*model).skillsView, keys: (*model).skillsKeys, shown: (*model).ensureSkills},
		tabChanges: {name: "Changes",
			visible: func(m *model) bool { return len(m.changes.sets) > 0 },
			badge: func(m *model) string {
				if n := m.changes.unseen; n > 0 {
					return fmt.Sprintf(" (%d)", n)
				}
				return ""
			},
			draw: (*model).changesTab, keys: (*model).changesKeys},
		tabAuth:  authSpec(),  // auth.go: a view registered as a new one is
		tabLint:  lintSpec(),  // lint.go
		tabBench: benchSpec(), // bench.go
	}
}

// digit is a view's key: d opens it, desc is what the help says it opens.
func digit(d, desc string) *key.Binding {
	b := key.NewBinding(key.WithKeys(d), key.WithHelp(d, desc))
	return &b
}

func (t tab) String() string { return views[t].name }

// viewNamed is the view a command names (":lint", ":changes"): its name on the bar,
// in any case.
func viewNamed(name string) (tab, bool) {
	for t := range tabCount {
		if strings.EqualFold(views[t].name, name) {
			return t, true
		}
	}
	return 0, false
}

// onBar reports whether t is on the tab bar: the view shown always is.
func (m *model) onBar(t tab) bool {
	v := &views[t]
	return t == m.tab || v.visible == nil || v.visible(m)
}

// keyInHelp reports whether t's key is listed in the help's "Everywhere".
func (m *model) keyInHelp(t tab) bool {
	v := &views[t]
	return v.key != nil && (!v.keyOffHelp || v.visible == nil || v.visible(m))
}

// tabKeys is every view's key, in the bar's order (the help lists them so).
func tabKeys() []key.Binding {
	var out []key.Binding
	for t := range tabCount {
		if b := views[t].key; b != nil {
			out = append(out, *b)
		}
	}
	return out
}

// tabOf is the view k opens, false when k is no view's key.
func tabOf(k tea.KeyPressMsg) (tab, bool) {
	for t := range tabCount {
		if b := views[t].key; b != nil && key.Matches(k, *b) {
			return t, true
		}
	}
	return 0, false
}

// viewTyping reports whether the shown view takes keys as its own now (its typing).
func (m *model) viewTyping() bool {
	t := views[m.tab].typing
	return t != nil && t(m)
}

// viewTakesTab reports whether tab or shift+tab (k) goes to the view that has the
// keyboard, to move between its fields, rather than switching panes.
func (m *model) viewTakesTab(k tea.KeyPressMsg) bool {
	t := views[m.tab].tabs
	return m.focus == paneRight && t != nil && t(m, k)
}

// enterTab does what opening the shown view needs (its enter).
func (m *model) enterTab() tea.Cmd {
	if e := views[m.tab].enter; e != nil {
		return e(m)
	}
	return nil
}

// shownTab is the shown view's shown hook, run by Update after every message.
func (m *model) shownTab() tea.Cmd {
	if s := views[m.tab].shown; s != nil {
		return s(m)
	}
	return nil
}

// barForm is how much of the bar's labels fit: compact drops the padding; the
// last short digit views are named by the start of their name ("9 Pro…"), or
// with bare by their digit alone.
type barForm struct {
	compact, bare bool
	short         int
}

// tabBar is the views on the bar, as much of each as fits in width: padded, then
// without padding (80 columns), then the last ones shortened from the right.
func (m *model) tabBar(width int) string {
	digits := len(tabKeys())
	bar := m.renderBar(barForm{}, digits)
	if ansi.StringWidth(bar) > width {
		bar = m.renderBar(barForm{compact: true}, digits)
	}
	for _, bare := range []bool{false, true} {
		for short := 1; ansi.StringWidth(bar) > width && short <= digits; short++ {
			bar = m.renderBar(barForm{compact: true, short: short, bare: bare}, digits)
		}
	}
	return truncate(bar, width)
}

// renderBar draws the bar in one form; digits is how many views have a key.
func (m *model) renderBar(f barForm, digits int) string {
	var parts []string
	sep, rank := false, 0
	for t := range tabCount {
		v := &views[t]
		r := rank // the place among the views with a key
		if v.key != nil {
			rank++
		}
		if !m.onBar(t) {
			continue
		}
		if f.bare && f.short > 0 && v.key == nil && !sep {
			// After bare digits, the views without one stand apart: "8 9 · Skills",
			// never "8 9 Skills", which reads as a tab 9 named Skills.
			parts = append(parts, m.st.muted.Render("·"))
			sep = true
		}
		style := m.st.tab
		if t == m.tab {
			style = m.st.activeTab
		}
		if f.compact {
			style = style.Padding(0)
		}
		parts = append(parts, style.Render(m.tabLabel(t, r >= digits-f.short && t != m.tab, f.bare)))
	}
	if f.compact {
		return strings.Join(parts, " ")
	}
	return strings.Join(parts, "")
}

// tabLabel is t's label: "3 Traffic", shortened "3 Tra…" or bare "3" (a view with
// a key only), then its badge.
func (m *model) tabLabel(t tab, short, bare bool) string {
	v := &views[t]
	label := v.name
	if v.key != nil {
		d := v.key.Help().Key
		switch {
		case short && bare:
			label = d
		case short:
			label = d + " " + string([]rune(v.name)[:3]) + "…"
		default:
			label = d + " " + v.name
		}
	}
	if v.badge != nil {
		label += v.badge(m)
	}
	return label
}
