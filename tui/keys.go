package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// keyMap is every key binding, as data: the help view is generated from it.
type keyMap struct {
	Quit, ForceQuit, Help                  key.Binding
	NextPane, PrevPane                     key.Binding
	Up, Down, PageUp, PageDown, Home, End  key.Binding
	Filter, ClearFilter, Open, Refetch     key.Binding
	Send, SendAnyway, RawJSON, Editor      key.Binding
	Cancel, Restart, Record                key.Binding
	Login                                  key.Binding
	Subscribe                              key.Binding // the Resources tab
	AsTask, CancelTask, PollTask           key.Binding
	TaskResult                             key.Binding
	SampleCanned, SampleReject, SampleSend key.Binding
	RequestTop, RequestEnd                 key.Binding // scroll a sampling request to its ends
	PickPrev, PickNext                     key.Binding // the log level picker
	Confirm, Leave                         key.Binding // enter and esc in my dialogs' fields
	ToggleSampling, EditRoots              key.Binding
	AddRoot, RemoveRoot                    key.Binding
	LogLevelShown, LogLevelShownDown       key.Binding
	SetLogLevel                            key.Binding
	CmdLine                                key.Binding
	NextTab, PrevTab                       key.Binding
	ShowRaw, CopyResult, CopyArgs, CopyCmd key.Binding
	SaveResult, Rerun, LoadArgs            key.Binding
	TrafficDir, ReadResource               key.Binding
	ServerFilter                           key.Binding
	DetailUp, DetailDown                   key.Binding
	DetailPageUp, DetailPageDown           key.Binding
	CmdPalette                             key.Binding // ctrl+p: the command line even while typing
	HelpAnywhere                           key.Binding // f1: the help even while typing
	Back                                   key.Binding // esc: from the form back to the list
	FilterDone, FilterUp, FilterDown       key.Binding // the tool filter field
	Erase                                  key.Binding // backspace in a one-line field
	OpenFrame, CloseFrame                  key.Binding // Traffic
	SearchDone, SearchClear                key.Binding // Traffic's search field
	ShowResult                             key.Binding // History
	Yes, No                                key.Binding // the yes/no question
	Accept, Decline, Dismiss               key.Binding // the server's input request (elicitation)
	OpenChanges, MarkEntry, SaveMarked     key.Binding
	Bench, BenchForm, StopBench            key.Binding // bench.go
}

func defaultKeys() keyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return keyMap{
		Quit:         b("q/ctrl+c", "quit", "q"),
		ForceQuit:    b("ctrl+c", "quit", "ctrl+c"),
		Help:         b("?/f1", "help", "?", "f1"),
		HelpAnywhere: b("?/f1", "help", "f1"),
		NextPane:     b("tab", "next pane", "tab"),
		PrevPane:     b("shift+tab", "previous pane", "shift+tab"),
		Up:           b("↑/k", "up", "up", "k"),
		Down:         b("↓/j", "down", "down", "j"),
		PageUp:       b("pgup", "page up", "pgup", "ctrl+u"),
		PageDown:     b("pgdn", "page down", "pgdown", "ctrl+d"),
		Home:         b("home/g", "top", "home", "g"),
		End:          b("end/G", "bottom", "end", "G"),
		Filter:       b("/", "filter", "/"),
		ClearFilter:  b("esc", "clear filter", "esc"),
		Open:         b("enter", "open tool form", "enter"),
		Refetch:      b("r", "refetch tools", "r"),
		Send:         b("enter", "call the tool", "enter"),
		SendAnyway:   b("alt+enter", "call even if invalid", "alt+enter"),
		RawJSON:      b("ctrl+j", "form ↔ raw JSON", "ctrl+j"),
		Editor:       b("ctrl+e", "edit arguments in $EDITOR", "ctrl+e"),
		Cancel:       b("x", "cancel the running call", "x"),
		Restart:      b("ctrl+r", "restart the server", "ctrl+r"),
		Record:       b("R", "start/stop recording", "R"),
		Subscribe:    b("u", "(un)subscribe a resource", "u"),
		CmdLine:      b(":/ctrl+p", "commands (add, remove…)", ":", "ctrl+p"),
		CmdPalette:   b(":/ctrl+p", "commands (add, remove…)", "ctrl+p"),
		NextTab:      b("]", "next tab", "]"),
		PrevTab:      b("[", "previous tab", "["),
		ShowRaw:      b("v", "raw JSON (tool or result)", "v"),
		CopyResult:   b("y", "copy result", "y"),
		CopyArgs:     b("Y", "copy arguments", "Y"),
		CopyCmd:      b("c", "copy as mcpscope call", "c"),
		SaveResult:   b("s", "save result to a file", "s"),
		Rerun:        b("enter", "re-run", "enter"),
		LoadArgs:     b("e", "edit arguments", "e"),
		TrafficDir:   b("d", "direction filter", "d"),
		ServerFilter: b("S", "server filter (traffic, logs, stderr)", "S"),
		ReadResource: b("o", "read linked resource", "o"),
		AsTask:       b("ctrl+g", "call as a task", "ctrl+g"),
		CancelTask:   b("x", "cancel a task", "x"),
		PollTask:     b("r", "poll a task again", "r"),
		TaskResult:   b("enter", "a task's result in 2", "enter"),
		SampleCanned: b("ctrl+o", "sampling: a canned reply", "ctrl+o"),
		SampleReject: b("ctrl+x/esc", "sampling: reject", "ctrl+x", "esc"),
		SampleSend:   b("enter", "sampling: send the reply", "enter"),
		RequestTop:   b("ctrl+home", "top of the request", "ctrl+home"),
		RequestEnd:   b("ctrl+end", "end of the request", "ctrl+end"),
		PickPrev:     b("←", "previous level", "left", "up"),
		PickNext:     b("→", "next level", "right", "down"),
		Confirm:      b("enter", "confirm", "enter"),
		Leave:        b("esc", "leave", "esc"),
		// The Servers tab: what is declared to the selected server.
		ToggleSampling: b("S", "servers: declare sampling", "S"),
		EditRoots:      b("o", "servers: edit roots", "o"),
		AddRoot:        b("a", "roots: add a directory", "a"),
		RemoveRoot:     b("d", "roots: remove", "d"),
		// The Logs tab.
		LogLevelShown:     b("f", "raise min level", "f"),
		LogLevelShownDown: b("F", "lower min level", "F"),
		SetLogLevel:       b("l", "set server level", "l"),
		Login:             b("L", "log in (a server that needs login)", "L"),
		// The tool detail scrolls with shift, so that the form keeps the plain keys.
		DetailUp:       b("shift+↑/↓", "scroll the tool detail", "shift+up"),
		DetailDown:     b("shift+↑/↓", "scroll the tool detail", "shift+down"),
		DetailPageUp:   b("shift+pgup", "tool detail page up", "shift+pgup"),
		DetailPageDown: b("shift+pgdn", "tool detail page down", "shift+pgdown"),

		Back:        b("esc", "back to the tool list", "esc"),
		FilterDone:  b("enter", "keep the filter", "enter"),
		FilterUp:    b("↑", "previous tool", "up"),
		FilterDown:  b("↓", "next tool", "down"),
		Erase:       b("backspace", "erase", "backspace"),
		OpenFrame:   b("enter", "open/close the frame", "enter"),
		CloseFrame:  b("esc", "close the frame", "esc"),
		SearchDone:  b("enter", "keep the search", "enter"),
		SearchClear: b("esc", "clear the search", "esc"),
		ShowResult:  b("→/l", "show its result", "right", "l"),
		Yes:         b("y", "yes", "y", "Y"),
		// Any other key answers no: a binding for the help only.
		No:          key.NewBinding(key.WithHelp("any key", "no")),
		Accept:      b("enter/ctrl+a", "accept", "enter", "ctrl+a"),
		Decline:     b("ctrl+x", "decline", "ctrl+x"),
		Dismiss:     b("esc", "cancel (neither)", "esc"),
		OpenChanges: b("C", "what edits changed", "C"),
		MarkEntry:   b("m", "mark (history)", "m"),
		SaveMarked:  b("S", "save marked calls", "S"),
		Bench:       b("b", "bench the tool", "b"),
		BenchForm:   b("ctrl+b", "bench the tool with these arguments", "ctrl+b"),
		StopBench:   b("x", "stop the bench", "x"),
	}
}

// globalHelp is the keys that work whatever has the focus (unless a field takes
// them as text); the help (?) shows them after the focused view's (focusedHelp).
// A view's key is there while keyInHelp says so (views.go): with one server the
// Servers view is off the bar and the help, and Tasks until a task started.
func (m *model) globalHelp() [][]key.Binding {
	k := m.keys
	tabs := []key.Binding{k.NextPane, k.PrevPane, k.NextTab, k.PrevTab}
	for t := range tabCount {
		if m.keyInHelp(t) {
			tabs = append(tabs, *views[t].key)
		}
	}

	return [][]key.Binding{
		tabs,
		{k.CmdLine, k.Restart, k.Record, k.Help, k.Quit}, // ForceQuit is in Quit's help
	}
}

// relabel is b with another description, for a view where the key means more
// than the map's general words ("↑/k up" selects a server in the Servers view).
func relabel(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// binding is one key of a view as one record: its keys and help (the embedded
// key.Binding), what pressing it does, and, when it does nothing now, why. A view's
// table of them (keyTable) is at once its routing (keyTable.route), its group in the
// help (?) and the status bar's hint, so the three cannot drift apart: a key the help
// lists is a key the view routes, and one it cannot act on says why in both places.
type binding struct {
	key.Binding
	// do handles the key. Nil for a key a view lists relabelled but that is caught
	// before the views, because it means the same everywhere (ctrl+r, :, tab):
	// routing skips it, and the help's test checks it is one of globalHelp's.
	do func(tea.KeyPressMsg) tea.Cmd
	// off says why the key does nothing now ("no call is running"), "" when it
	// works. The help shows the reason after the key's words; pressing the key shows
	// it as the notice instead of doing nothing silently.
	off func() string
	// hidden keeps a routed key out of the help and the hint (S with one server:
	// the screen of one server stays as it always was; the key still answers).
	hidden bool
	// to names the field or form a key is handed to when that decides by itself
	// what the key does ("the form": ← picks the previous choice in an enum field
	// and moves the cursor in a text field). Set by bindAll.
	to string
}

// bind makes a binding whose handler does not need the key pressed.
func bind(b key.Binding, do func() tea.Cmd) binding {
	return binding{Binding: b, do: func(tea.KeyPressMsg) tea.Cmd { return do() }}
}

// bindKey makes a binding whose handler looks at the key (a scroll, a field).
func bindKey(b key.Binding, do func(tea.KeyPressMsg) tea.Cmd) binding {
	return binding{Binding: b, do: do}
}

// act is a handler that only changes the model.
func act(f func()) func() tea.Cmd { return func() tea.Cmd { f(); return nil } }

// unless disables b while why returns a reason.
func (b binding) unless(why func() string) binding { b.off = why; return b }

// hide keeps b out of the help and the hint while h holds.
func (b binding) hide(h bool) binding { b.hidden = h; return b }

// why is the reason b does nothing now, "" when it works.
func (b binding) why() string {
	if b.off == nil {
		return ""
	}
	return b.off()
}

// keyTable is the keys of whatever has the keyboard, in the state it is in: its
// name (the help's section title), its bindings in groups (the first group is the
// status bar's hint, so a view puts what it is for first), and rest, what a key no
// binding matched does (text typed into a field; nil: nothing).
type keyTable struct {
	name   string
	groups [][]binding
	rest   func(tea.KeyPressMsg) tea.Cmd
}

// route sends k to the first enabled binding of t that matches it; when only
// disabled ones match, the first one's reason is the notice; when none matches,
// rest has it. Several bindings may share a key in one table when at most one of
// them is enabled at a time.
func (t keyTable) route(m *model, k tea.KeyPressMsg) tea.Cmd {
	var off *binding
	for _, g := range t.groups {
		for i := range g {
			b := &g[i]
			if b.do == nil || !key.Matches(k, b.Binding) {
				continue
			}
			if b.why() != "" {
				if off == nil {
					off = b
				}
				continue
			}
			if m.probe != nil {
				*m.probe = routedKey{table: t.name, key: b.Help().Key, to: b.to}
				return nil
			}
			return b.do(k)
		}
	}
	switch {
	case m.probe != nil && off != nil:
		*m.probe = routedKey{table: t.name, key: off.Help().Key, off: off.why()}
	case m.probe != nil:
		*m.probe = routedKey{table: t.name}
	case off != nil:
		m.notice = off.why()
	case t.rest != nil:
		return t.rest(k)
	}
	return nil
}

// routedKey is where a key went through a keyTable: the table, the key of the
// binding that took it ("" for rest), and the reason when it was disabled. With
// model.probe set (the help's test), route records it there instead of acting, which
// proves each key the help lists is routed to the binding it shows.
type routedKey struct{ table, key, to, off string }

// help is t's groups as the help and the hint show them: hidden bindings left out,
// a disabled one with its reason after its words.
func (t keyTable) help() [][]key.Binding {
	out := make([][]key.Binding, 0, len(t.groups))
	for _, g := range t.groups {
		var kept []key.Binding
		for _, b := range g {
			if b.hidden {
				continue
			}
			if why := b.why(); why != "" {
				b.Binding = relabel(b.Binding, b.Help().Desc+" ("+why+")")
			}
			kept = append(kept, b.Binding)
		}
		out = append(out, kept)
	}
	return out
}

// hint is t's first group as the status bar shows it: what works now.
func (t keyTable) hint() []key.Binding {
	var out []key.Binding
	for _, b := range t.groups[0] {
		if !b.hidden && b.why() == "" {
			out = append(out, b.Binding)
		}
	}
	return out
}

// moves is the six moving keys of a list or a text (↑/↓, pgup/pgdn, home/end),
// each handled by do.
func (k keyMap) moves(do func(tea.KeyPressMsg) tea.Cmd) []binding {
	var out []binding
	for _, b := range []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End} {
		out = append(out, bindKey(b, do))
	}
	return out
}

// bindAll makes one binding per key.Binding, all handed to the field or form to
// (by do), which decides itself what each of them does (the argument form).
func bindAll(to string, bs []key.Binding, do func(tea.KeyPressMsg) tea.Cmd) []binding {
	out := make([]binding, 0, len(bs))
	for _, b := range bs {
		bb := bindKey(b, do)
		bb.to = to
		out = append(out, bb)
	}
	return out
}

// viewKeys is the table of the view that has the keyboard: the tool filter's while
// it is typed, the tool list's while the list has the focus, else the shown tab's.
func (m *model) viewKeys() keyTable {
	switch {
	case m.list.filtering:
		return m.filterKeys()
	case m.focus == paneList:
		return m.listKeys()
	}
	return views[m.tab].keys(m)
}
