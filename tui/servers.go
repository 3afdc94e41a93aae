package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/workbench"
)

// server is the screen's view of one server of the workbench: what its status events
// said, and its tools. The workbench owns the connection; the model never connects.
type server struct {
	name    string // the workbench's name (server/tool)
	display string // how a single server is named on screen (the target as given)
	gen     int    // bumped on every connection attempt; older tool lists are dropped
	state   connState
	status  workbench.Status
	info    client.Info
	err     error
	exit    *wire.Exit
	tools   []client.Tool
	// stderrFrom is where this attempt's lines start in the model's stderr.
	stderrFrom int
	// everReady: some attempt connected (so quitting after a failure is not an
	// exit-1 "could not connect").
	everReady bool
	last      time.Time // last activity (a request, a status change)
	stderr    []string  // its last stderr lines (safe)
	// reconnecting: a request is reconnecting the idle server (the notice says so).
	reconnecting bool
}

// Messages from the workbench.
type (
	// wbMsg is one event of the workbench's stream other than wire frames (those come
	// batched through the pump).
	wbMsg    struct{ e workbench.Event }
	toolsMsg struct {
		server string
		gen    int
		list   *client.ToolList
		err    error
	}
	wbDoneMsg struct {
		what string
		err  error
	}
)

// specs are the servers the session starts with.
func (m *model) specs() []workbench.Spec {
	if len(m.opts.Servers) > 0 {
		return m.opts.Servers
	}
	name := "main"
	return []workbench.Spec{{Name: name, Target: m.opts.Target, Source: workbench.SourceSession}}
}

// server returns the named server's state (nil when the session has none).
func (m *model) server(name string) *server {
	for _, s := range m.servers {
		if s.name == name {
			return s
		}
	}
	if name == "" && len(m.servers) <= 1 {
		return m.srv // a list set without a workbench (tests of one view)
	}
	return nil
}

// several reports whether the session holds more than one server (tools are then
// shown as server/tool, under server headers).
func (m *model) several() bool { return len(m.servers) > 1 }

// connect starts the workbench with the session's servers; once started, it
// restarts the current server.
func (m *model) connect() tea.Cmd {
	if m.wb != nil {
		return m.restartServer(m.srv)
	}
	opts := m.opts.Client
	parent := opts.Tap
	opts.Tap = nil
	send, pump, onWire := m.send, m.pump, m.opts.OnWire
	if opts.LogLevel == "" {
		opts.LogLevel = "debug" // the Logs tab shows everything the server says
	}
	m.wb = workbench.New(workbench.Options{
		Client:         opts,
		ForServer:      m.forServer(send), // handlers naming the server (asks.go)
		IdleDisconnect: m.opts.IdleDisconnect,
		Configured:     m.opts.Configured,
		OnWire: func(name string, e wire.Event) {
			if parent != nil {
				parent.Emit(e) // listeners the caller attached (a recorder)
			}
			if onWire != nil {
				onWire(name, e)
			}
			if pump != nil {
				pump.listen(name, e)
			}
		},
	})
	events, stop := m.wb.Subscribe()
	m.wbStop = stop
	go func() {
		for e := range events {
			if e.Kind == workbench.EventWire {
				continue
			}
			send(wbMsg{e: e})
		}
	}()
	specs := m.specs()
	for i, sp := range specs {
		s := &server{name: sp.Name, state: stateConnecting}
		if len(specs) == 1 {
			s.display = m.opts.Name
		}
		m.servers = append(m.servers, s)
		if i == 0 {
			m.srv = s
		}
	}
	wb := m.wb
	return func() tea.Msg {
		var errs []string
		for _, sp := range specs {
			if err := wb.Add(sp); err != nil {
				errs = append(errs, err.Error())
			}
		}
		if len(errs) > 0 {
			return noticeMsg{text: strings.Join(errs, "; ")}
		}
		return nil
	}
}

// restartServer restarts one server (the workbench stops its process first).
func (m *model) restartServer(s *server) tea.Cmd {
	if s == nil || m.wb == nil {
		return nil
	}
	m.interruptCalls(s.name)
	wb, name := m.wb, s.name
	return func() tea.Msg {
		return wbDoneMsg{what: "restart " + name, err: wb.Restart(name)}
	}
}

// onWorkbench follows the workbench's events.
func (m *model) onWorkbench(e workbench.Event) tea.Cmd {
	switch e.Kind {
	case workbench.EventAdded:
		if m.server(e.Server) == nil {
			m.servers = append(m.servers, &server{name: e.Server, state: stateConnecting})
			m.refreshTools()
		}
		return nil
	case workbench.EventRemoved:
		for i, s := range m.servers {
			if s.name == e.Server {
				m.servers = append(m.servers[:i:i], m.servers[i+1:]...)
				break
			}
		}
		if m.srv != nil && m.srv.name == e.Server && len(m.servers) > 0 {
			m.srv = m.servers[0]
		}
		m.refreshTools()
		return nil
	}
	s := m.server(e.Server)
	if s == nil {
		return nil
	}
	s.last = e.Time
	switch e.Kind {
	case workbench.EventLog:
		if e.Log != nil {
			prefix := ""
			if m.several() {
				prefix = e.Server + " "
			}
			line := logLine(e.Time, *e.Log)
			if prefix != "" {
				line = safe(prefix) + line
			}
			m.addLog(e.Log.Level, e.Log.Logger, line) // with its level and logger, for the filters
		}
	case workbench.EventToolsChanged:
		if s.state == stateReady {
			m.notice = "the server's tools changed; list refreshed"
			if m.several() {
				m.notice = s.name + ": the server's tools changed; list refreshed"
			}
			return m.fetchTools(s, true)
		}
	case workbench.EventReconnect:
		m.notice = safe(e.Text)
		s.reconnecting = true
	case workbench.EventStatus:
		if e.Status != nil {
			return m.onStatus(s, *e.Status)
		}
	}
	return nil
}

func (m *model) onStatus(s *server, st workbench.Status) tea.Cmd {
	s.status = st
	defer m.refreshTools()
	switch st.State {
	case workbench.StateConnecting:
		s.gen++
		s.state = stateConnecting
		s.err, s.exit = nil, nil
		s.stderrFrom = m.stderr.len()
	case workbench.StateConnected:
		s.state, s.info, s.err, s.exit = stateReady, st.Info, nil, nil
		s.everReady = true
		if s.reconnecting {
			s.reconnecting = false
			m.notice = s.name + " was idle and is connected again for this request"
		} else if !m.several() {
			m.notice = "" // with several servers a notice may be about another one
		}
		return m.fetchTools(s, false)
	case workbench.StateFailed, workbench.StateNeedsLogin:
		s.state, s.err, s.exit = stateFailed, st.Err, st.Exit
		if s.err == nil {
			s.err = errors.New(st.Reason)
		}
		if m.several() {
			m.notice = s.name + " " + s.stateWord() + ": " + oneLine(st.Reason, 200) + " (7 Servers shows why; the other servers go on)"
		}
	case workbench.StateExited:
		s.state, s.exit = stateDied, st.Exit
		if m.several() {
			m.notice = s.name + " " + s.stateWord() + "; the other servers go on (ctrl+r on 7 Servers restarts it)"
		}
	case workbench.StateIdle:
		s.state = stateIdle
	}
	return nil
}

// fetchTools lists a server's tools; fresh asks the server itself, past the SDK's
// 2026-07-28 TTL cache (the user's "r", and after list_changed).
func (m *model) fetchTools(s *server, fresh bool) tea.Cmd {
	if s == nil || m.wb == nil {
		return nil
	}
	wb, name, gen := m.wb, s.name, s.gen
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		sess, release, err := wb.Session(ctx, name)
		if err != nil {
			return toolsMsg{server: name, gen: gen, err: err}
		}
		defer release()
		var list *client.ToolList
		if fresh {
			list, err = sess.RefreshTools(ctx)
		} else {
			list, err = sess.Tools(ctx)
		}
		return toolsMsg{server: name, gen: gen, list: list, err: err}
	}
}

// fetchAllTools refetches the tools of every connected server (the user's "r").
func (m *model) fetchAllTools() tea.Cmd {
	var cmds []tea.Cmd
	for _, s := range m.servers {
		if s.state == stateReady {
			cmds = append(cmds, m.fetchTools(s, true))
		}
	}
	return tea.Batch(cmds...)
}

func (m *model) onTools(msg toolsMsg) tea.Cmd {
	s := m.server(msg.server)
	if s == nil || msg.gen != s.gen {
		return nil
	}
	if msg.err != nil {
		m.notice = "listing tools failed: " + msg.err.Error()
		return nil
	}
	s.tools = msg.list.Tools
	m.refreshTools()
	if len(msg.list.Problems) > 0 {
		m.notice = "tool list: " + strings.Join(msg.list.Problems, "; ")
	}
	m.syncForm()
	return nil
}

// refreshTools puts every server's tools in the list, in the servers' order.
func (m *model) refreshTools() {
	var entries []listTool
	for _, s := range m.servers {
		if !s.callable() && s.state != stateLost {
			continue // only connected (or idle) servers' tools can be called
		}
		for _, t := range s.tools {
			entries = append(entries, listTool{server: s.name, tool: t})
		}
	}
	m.list.setEntries(entries, m.several())
}

// closeSession stops every server; it is called once the program has stopped and
// returns when every process is gone.
func (m *model) closeSession() {
	m.closeMu.Lock()
	defer m.closeMu.Unlock()
	for _, c := range m.cancels {
		c()
	}
	defer m.closeSpools()
	m.asks.shutdown() // dialogs still open give up: closing waits for their handlers
	if m.wb != nil {
		_ = m.wb.Close()
	}
	if m.wbStop != nil {
		m.wbStop()
	}
}

// callable reports whether a request can go to the server now (an idle one is
// reconnected by the request).
func (s *server) callable() bool {
	return s != nil && (s.state == stateReady || s.state == stateIdle)
}

// notConnected says why a server cannot take a request.
func (m *model) notConnected(s *server) string {
	if s == nil {
		return "no server for this tool"
	}
	if m.several() {
		return s.name + " is not connected (" + s.stateWord() + "); ctrl+r restarts it"
	}
	return "not connected; ctrl+r restarts the server"
}

// targetOf is the target of a server, for the copied command line.
func (m *model) targetOf(name string) client.Target {
	for _, sp := range m.specs() {
		if sp.Name == name {
			return sp.Target
		}
	}
	if m.wb != nil {
		for _, s := range m.wb.List() {
			if s.Spec.Name == name {
				return s.Spec.Target
			}
		}
	}
	return m.opts.Target
}

// stateWord is a server's status badge text.
func (s *server) stateWord() string {
	switch s.state {
	case stateConnecting:
		return "connecting"
	case stateReady:
		return "connected"
	case stateFailed:
		if s.status.State == workbench.StateNeedsLogin {
			return "needs login"
		}
		return "failed"
	case stateDied:
		if s.exit != nil {
			return "exited (" + s.exit.String() + ")"
		}
		return "exited"
	case stateLost:
		return "disconnected"
	case stateIdle:
		return "idle"
	}
	return "?"
}

// stderrKeep bounds the stderr lines kept per server for the Servers view (the Stderr
// tab keeps them all).
const stderrKeep = 200

func (s *server) addStderr(line string) {
	s.stderr = append(s.stderr, line)
	if len(s.stderr) > stderrKeep {
		s.stderr = append(s.stderr[:0:0], s.stderr[len(s.stderr)-stderrKeep:]...)
	}
}

func (m *model) onServersKey(k tea.KeyPressMsg) tea.Cmd {
	if cmd, ok := m.onClientSideKey(k); ok { // sampling and roots (roots.go)
		return cmd
	}
	switch {
	case key.Matches(k, m.keys.Up):
		m.srvList.moveBy(-1, len(m.servers))
		m.srvDetail.top()
	case key.Matches(k, m.keys.Down):
		m.srvList.moveBy(1, len(m.servers))
		m.srvDetail.top()
	case key.Matches(k, m.keys.PageUp):
		m.srvDetail.scroll(-(m.height / 2))
	case key.Matches(k, m.keys.PageDown):
		m.srvDetail.scroll(m.height / 2)
	case key.Matches(k, m.keys.Restart):
		if c := m.srvList.cursor; c < len(m.servers) {
			s := m.servers[c]
			m.notice = "restarting " + s.name + "…"
			return m.restartServer(s)
		}
	}
	return nil
}

// badge is a server's status badge.
func (m *model) badge(s *server) string {
	w := s.stateWord()
	switch s.state {
	case stateReady:
		return m.st.ok.Render("● " + w)
	case stateConnecting, stateIdle:
		return m.st.warn.Render("○ " + w)
	}
	return m.st.err.Render("✗ " + w)
}

// serversView is the Servers tab: a row per server, then the selected one's detail.
func (m *model) serversView(width, height int) string {
	lines := []string{m.st.muted.Render("↑/↓ selects · pgup/pgdn scrolls the detail · ctrl+r restarts the selected server · : or ctrl+p for commands")}
	nameW := 4
	for _, s := range m.servers {
		nameW = max(nameW, min(len(s.name), 20))
	}
	// The rows take at most half the tab (the detail needs the rest); more servers
	// than that scroll.
	rowsH := min(len(m.servers), max((height-1)/2, 3))
	rows := m.srvList.draw(len(m.servers), rowsH, func(i int, selected bool) string {
		s := m.servers[i]
		tr := s.info.Transport
		if s.info.Framing != "" {
			tr += " " + string(s.info.Framing)
		}
		caps := capabilityNames(s.info.Capabilities)
		last := "-"
		if !s.last.IsZero() {
			last = s.last.Format("15:04:05")
		}
		row := fmt.Sprintf("%-*s  %s  %s  %s  tools %d  %s  last %s", nameW, truncate(s.name, 21), m.badge(s),
			safe(strings.TrimSpace(s.info.Era+" "+s.info.ProtocolVersion)), safe(tr), len(s.tools), caps, last)
		if s.state == stateFailed || s.state == stateDied {
			row += "  " + m.st.err.Render(safe(oneLine(s.status.Reason, 200)))
		}
		mark := "  "
		if selected {
			mark = m.st.selected.Render("› ")
		}
		return ansi.Truncate(mark+row, width, "…")
	})
	lines = append(lines, rows...)
	lines = append(lines, "")
	if c := m.srvList.cursor; c < len(m.servers) {
		m.srvDetail.setLines(m.serverDetail(m.servers[c], width))
		lines = append(lines, m.srvDetail.view(max(height-len(lines), 1)))
	}
	return strings.Join(lines, "\n")
}

// capabilityNames lists which of resources, prompts, logging… the server offers.
func capabilityNames(raw json.RawMessage) string {
	var caps map[string]json.RawMessage
	if json.Unmarshal(raw, &caps) != nil || len(caps) == 0 {
		return ""
	}
	var names []string
	for _, k := range []string{"resources", "prompts", "logging", "completions", "tasks"} {
		if _, ok := caps[k]; ok {
			names = append(names, k)
		}
	}
	return strings.Join(names, " ")
}

// serverDetail is what is known about one server: serverInfo, instructions, the
// capabilities as sent, the failure, its last stderr lines.
func (m *model) serverDetail(s *server, width int) []string {
	st := m.st
	out := []string{st.title.Render(safe(s.name)) + "  " + m.badge(s)}
	i := s.info
	if i.Name != "" {
		out = append(out, "serverInfo  "+safe(strings.TrimSpace(i.Name+" "+i.Version)))
		if i.Title != "" {
			out = append(out, "title       "+safe(i.Title))
		}
	}
	if i.URL != "" {
		out = append(out, "url         "+safe(i.URL))
	}
	if s.status.Reason != "" {
		out = append(out, "", st.accent.Render("status"))
		out = append(out, wrapText(s.status.Reason, width)...)
	}
	out = append(out, m.clientSideLines(s, width)...) // sampling, roots, log level (roots.go)
	if i.Instructions != "" {
		out = append(out, "", st.accent.Render("instructions"))
		out = append(out, wrapText(i.Instructions, width)...)
	}
	if len(i.Capabilities) > 0 {
		out = append(out, "", st.accent.Render("capabilities (as sent)"))
		out = append(out, jsonLines(st, i.Capabilities, width)...)
	}
	errLines := s.stderr
	if len(errLines) == 0 {
		for _, l := range s.status.Stderr {
			errLines = append(errLines, safe(l))
		}
	}
	if len(errLines) > 0 {
		out = append(out, "", st.accent.Render(fmt.Sprintf("stderr (last %d lines)", len(errLines))))
		for _, l := range errLines {
			out = append(out, wrapText(l, width)...)
		}
	}
	return out
}
