package tui

import "charm.land/bubbles/v2/key"

// keyMap is every key binding, as data: the help view is generated from it.
type keyMap struct {
	Quit, ForceQuit, Help                  key.Binding
	NextPane, PrevPane                     key.Binding
	Up, Down, PageUp, PageDown, Home, End  key.Binding
	Filter, ClearFilter, Open, Refetch     key.Binding
	Send, SendAnyway, RawJSON, Editor      key.Binding
	Cancel, Restart, Record                key.Binding
	TabTool, TabResult, TabTraffic         key.Binding
	TabLogs, TabStderr, TabHistory         key.Binding
	TabServers, TabResources, TabPrompts   key.Binding
	Login                                  key.Binding
	Subscribe                              key.Binding // the Resources tab
	TabTasks                               key.Binding
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
		TabTool:      b("1", "tool (enter: its form)", "1"),
		TabResult:    b("2", "result", "2"),
		TabTraffic:   b("3", "traffic", "3"),
		TabLogs:      b("4", "logs", "4"),
		TabStderr:    b("5", "stderr", "5"),
		TabHistory:   b("6", "history", "6"),
		TabServers:   b("7", "servers", "7"),
		TabResources: b("8", "resources", "8"),
		TabPrompts:   b("9", "prompts", "9"),
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
		TabTasks:     b("0", "tasks", "0"),
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
	}
}

// globalHelp is the keys that work whatever has the focus (unless a field takes
// them as text); the help (?) shows them after the focused view's (focusedHelp).
// With one server the Servers tab is off the tab bar, and off the help.
func (k keyMap) globalHelp(several bool) [][]key.Binding {
	tabs := []key.Binding{k.NextPane, k.PrevPane, k.NextTab, k.PrevTab}
	for t, b := range k.tabKeys() {
		if tab(t) == tabServers && !several {
			continue
		}
		tabs = append(tabs, b)
	}

	return [][]key.Binding{
		tabs,
		{k.CmdLine, k.Restart, k.Record, k.Help, k.Quit}, // ForceQuit is in Quit's help
	}
}

// tabKeys is the key of each tab, by its place in the tab enum: tabKeys()[t]
// opens tab t. A tab without a digit (Skills, Changes, Auth) has none here.
func (k keyMap) tabKeys() []key.Binding {
	return []key.Binding{k.TabTool, k.TabResult, k.TabTraffic, k.TabLogs, k.TabStderr, k.TabHistory, k.TabServers, k.TabResources, k.TabPrompts, k.TabTasks}
}

// relabel is b with another description, for a view where the key means more
// than the map's general words ("↑/k up" selects a server in the Servers view).
func relabel(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}
