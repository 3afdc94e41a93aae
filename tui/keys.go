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
	TabServers, TabTasks                   key.Binding
	AsTask, CancelTask, PollTask           key.Binding
	TaskResult                             key.Binding
	SampleCanned, SampleReject             key.Binding
	ToggleSampling, EditRoots              key.Binding
	AddRoot, RemoveRoot                    key.Binding
	LogLevelShown, LogLevelShownDown       key.Binding
	SetLogLevel                            key.Binding
	CmdLine                                key.Binding
	NextTab, PrevTab                       key.Binding
	ShowRaw, CopyResult, CopyArgs, CopyCmd key.Binding
	SaveResult, Rerun, LoadArgs            key.Binding
	TrafficDir, ReadResource               key.Binding
	DetailUp, DetailDown                   key.Binding
	DetailPageUp, DetailPageDown           key.Binding
}

func defaultKeys() keyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return keyMap{
		Quit:         b("q/ctrl+c", "quit", "q"),
		ForceQuit:    b("ctrl+c", "quit", "ctrl+c"),
		Help:         b("?", "help", "?"),
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
		TabTool:      b("1", "tool", "1"),
		TabResult:    b("2", "result", "2"),
		TabTraffic:   b("3", "traffic", "3"),
		TabLogs:      b("4", "logs", "4"),
		TabStderr:    b("5", "stderr", "5"),
		TabHistory:   b("6", "history", "6"),
		TabServers:   b("7", "servers", "7"),
		TabTasks:     b("0", "tasks", "0"),
		AsTask:       b("ctrl+g", "call as a task", "ctrl+g"),
		CancelTask:   b("x", "cancel a task", "x"),
		PollTask:     b("r", "poll a task again", "r"),
		TaskResult:   b("enter", "a task's result in 2", "enter"),
		SampleCanned: b("ctrl+o", "sampling: a canned reply", "ctrl+o"),
		SampleReject: b("ctrl+x", "sampling: reject", "ctrl+x"),
		// The Servers tab: what is declared to the selected server.
		ToggleSampling: b("S", "servers: declare sampling", "S"),
		EditRoots:      b("o", "servers: edit roots", "o"),
		AddRoot:        b("a", "roots: add a directory", "a"),
		RemoveRoot:     b("d", "roots: remove", "d"),
		// The Logs tab.
		LogLevelShown:     b("f", "logs: raise level shown", "f"),
		LogLevelShownDown: b("F", "logs: lower level shown", "F"),
		SetLogLevel:       b("L", "logs: set server's level", "L"),
		CmdLine:           key.NewBinding(key.WithKeys(":", "ctrl+p"), key.WithHelp(":", "commands (add, remove…)")),
		NextTab:           b("]", "next tab", "]"),
		PrevTab:           b("[", "previous tab", "["),
		ShowRaw:           b("v", "raw JSON (tool or result)", "v"),
		CopyResult:        b("y", "copy result", "y"),
		CopyArgs:          b("Y", "copy arguments", "Y"),
		CopyCmd:           b("c", "copy as mcpscope call", "c"),
		SaveResult:        b("s", "save result to a file", "s"),
		Rerun:             b("enter", "re-run", "enter"),
		LoadArgs:          b("e", "edit arguments", "e"),
		TrafficDir:        b("d", "direction filter", "d"),
		ReadResource:      b("o", "read linked resource", "o"),
		// The tool detail scrolls with shift, so that the form keeps the plain keys.
		DetailUp:       b("shift+↑/↓", "scroll the tool detail", "shift+up"),
		DetailDown:     b("shift+↑/↓", "scroll the tool detail", "shift+down"),
		DetailPageUp:   b("shift+pgup", "tool detail page up", "shift+pgup"),
		DetailPageDown: b("shift+pgdn", "tool detail page down", "shift+pgdown"),
	}
}

// FullHelp groups every binding; the help view (?) is generated from it.
// With one server the Servers tab is off the tab bar, and off the help.
func (k keyMap) FullHelp(several bool) [][]key.Binding {
	tabs := []key.Binding{k.NextPane, k.PrevPane, k.NextTab, k.PrevTab, k.TabTool, k.TabResult, k.TabTraffic, k.TabLogs, k.TabStderr, k.TabHistory}
	if several {
		tabs = append(tabs, k.TabServers)
	}

	return [][]key.Binding{
		tabs,
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End, k.Filter, k.ClearFilter, k.Open, k.Refetch},
		{k.Send, k.SendAnyway, k.RawJSON, k.Editor, k.Cancel, k.ShowRaw, k.CopyResult, k.CopyArgs, k.CopyCmd, k.SaveResult},
		{k.DetailUp, k.DetailDown}, // one entry: the help drops repeats
		{k.ReadResource, k.Rerun, k.LoadArgs, k.TrafficDir, k.Restart, k.CmdLine, k.Record, k.Quit}, // ForceQuit is in Quit's help; ? is on the status bar
		append([]key.Binding{k.TabTasks}, k.tasksHelp()...),
		append(k.logsHelp(), k.samplingHelp()...),
		{k.ToggleSampling, k.EditRoots, k.AddRoot, k.RemoveRoot},
	}
}
