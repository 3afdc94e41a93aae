package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpscope/mcpscope/deprecated"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// server is the screen's side of one server of the workbench. What is true of the
// server (its status and generation, handshake, tools, stderr, counts, when it was
// heard) is the workbench's, held here as the last Snapshot taken and replaced
// whole, never patched from events (refresh); the rest is presentation: how it is
// named, the notices about it, the detail as last laid out. The workbench owns the
// connection; the model never connects.
type server struct {
	name    string // the workbench's name (server/tool)
	display string // how a single server is named on screen (the target as given)
	// snap is the workbench's state of the server as last taken (refresh): in the
	// handler of an event about it, of a tool list, of a count, of a batch of its
	// frames. View reads it and never takes one.
	snap workbench.Snapshot
	// stderrFrom is where this attempt's lines start in the Stderr tab's lines.
	stderrFrom int
	// reconnecting: a request is reconnecting the idle server (the notice says so);
	// wokeForCall: until the next call's result, which says so again.
	reconnecting, wokeForCall bool
	// restartedFor names the watched files whose change is restarting the server,
	// until the restart connects or fails (the notice then says which).
	restartedFor string
	// counting: a count of its resources and prompts (CountLists) is in flight.
	counting bool
	// detail is the Servers tab's detail of this server as last made (detailFor says
	// from what).
	detail    []string
	detailFor detailKey
}

// refresh takes the server's state from the workbench, whole. It runs in Update
// (a handler), never in View: the workbench's lock is held only for the copy.
func (m *model) refresh(s *server) {
	if s == nil || m.wb == nil {
		return
	}
	if snap, ok := m.wb.Snapshot(s.name); ok {
		listed := snap.Tools != s.snap.Tools
		s.snap = snap
		if listed {
			// The list pane shows the tools of the snapshot the server is drawn
			// from, always: taken here (any event refreshes), a new tool list is on
			// screen in the same message, not one message later when its toolsMsg
			// comes (a row, a count and the list never disagree).
			m.refreshTools()
			m.syncForm()
		}
	}
}

// gen is the server's generation: the workbench's connection attempt
// (Status.Gen), never a count kept here.
func (s *server) gen() int { return s.snap.Status.Gen }

// status is the workbench's status of the server.
func (s *server) status() workbench.Status { return s.snap.Status }

// state is the status as the screen words it: an HTTP server that no longer answers
// is "disconnected" while the workbench still holds its session.
func (s *server) state() connState { return stateOf(s.snap.Status, s.snap.Unreachable) }

// stateOf words a workbench status (and an HTTP server's unreachable reason).
func stateOf(st workbench.Status, unreachable string) connState {
	switch st.State {
	case workbench.StateConnected:
		if unreachable != "" {
			return stateLost
		}
		return stateReady
	case workbench.StateFailed, workbench.StateNeedsLogin:
		return stateFailed
	case workbench.StateExited:
		return stateDied
	case workbench.StateIdle:
		return stateIdle
	}
	return stateConnecting // also before the first status
}

// err is why the server cannot take a request (nil when it can, or is starting).
func (s *server) err() error {
	st := s.snap.Status
	switch s.state() {
	case stateFailed:
		if st.Err != nil {
			return st.Err
		}
		return errors.New(st.Reason)
	case stateLost:
		return errors.New(s.snap.Unreachable)
	}
	return nil
}

// exit is how its process ended (a failure's or an exit's), nil otherwise.
func (s *server) exit() *wire.Exit {
	if st := s.state(); st == stateFailed || st == stateDied {
		return s.snap.Status.Exit
	}
	return nil
}

// info is the last handshake's outcome (kept while it is down).
func (s *server) info() client.Info { return s.snap.Info }

// tools are the tools of its last listing (a down server keeps its last ones).
func (s *server) tools() []client.Tool {
	if s.snap.Tools == nil {
		return nil
	}
	return s.snap.Tools.Tools
}

// refused are the tools of its last listing that mcpscope does not offer, with why.
func (s *server) refused() []client.RefusedTool {
	if s.snap.Tools == nil {
		return nil
	}
	return s.snap.Tools.Refused
}

// counts are its resources and prompts as the workbench counted them, and whether
// they are shown: counted on this connection, or the last ones while it is not
// connected (a restart shows them until it connects).
func (s *server) counts() (workbench.Counts, bool) {
	c := s.snap.Counts
	if c == nil || (c.Gen != s.gen() && s.state() == stateReady) {
		return workbench.Counts{}, false
	}
	return *c, true
}

// wbQueue bounds the workbench events that wait for the screen (see connect).
const wbQueue = 1024

// screenExcept are the workbench events the screen leaves out: the wire frames and
// the logs, which reach it through OnWire and OnLog and the pump (every line of a
// burst: the pump bounds what waits, a bounded subscription would drop logs whenever
// its reader fell a moment behind the server's reader). It follows every other kind,
// those added later too (a list of the kinds it follows once missed two new ones).
var screenExcept = []workbench.EventKind{workbench.EventWire, workbench.EventLog}

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
	// countsMsg: the workbench counted a server's resources and prompts (they are
	// in its snapshot).
	countsMsg struct{ server string }
)

func (msg wbMsg) handle(m *model) tea.Cmd    { return m.onWorkbench(msg.e) }
func (msg toolsMsg) handle(m *model) tea.Cmd { return m.onTools(msg) }

func (msg wbDoneMsg) handle(m *model) tea.Cmd {
	m.onWbDone(msg)
	return nil
}

func (msg countsMsg) handle(m *model) tea.Cmd {
	m.onCounts(msg)
	return nil
}

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

// nameWidth is the width of the server column of Traffic, Logs and Stderr.
func (m *model) nameWidth() int {
	w := 0
	for _, s := range m.servers {
		w = max(w, len(s.name))
	}
	if m.tap != nil {
		w = max(w, len(m.tap.label)) // its lines are named too (labelled)
	}
	return min(w, 16)
}

// linesView draws Logs or Stderr: with several servers a header with the server
// filter (S), then the lines.
func (m *model) linesView(v *lineView, empty string, width, height int) string {
	var head string
	if m.several() || v.server != "" {
		head = m.st.muted.Render(fmt.Sprintf("%d lines · server ", v.len())) + serverFilterLabel(m.st, v.server) + m.st.muted.Render(" (S cycles)")
		if v.scanning {
			head += m.st.muted.Render(" · searching older lines…")
		}
		height--
	}
	var body string
	switch {
	case v.len() == 0 && v.server != "":
		body = m.st.muted.Render(safe(v.server) + " has nothing here yet.")
	case v.len() == 0:
		body = m.st.muted.Render(empty)
	default:
		body = v.wrapView(height, width)
	}
	if head == "" {
		return body
	}
	return head + "\n" + body
}

// onServerFilterKey is S on Traffic, Logs and Stderr: the next server filter.
func (m *model) onServerFilterKey() tea.Cmd {
	if !m.several() {
		m.notice = "one server: there is no server to filter by"
		return nil
	}
	switch m.tab {
	case tabTraffic:
		m.traffic.server = nextServer(m.traffic.server, m.serverNames())
		m.traffic.open = false
		return m.traffic.refilter() // a query scans the spilled events again
	case tabLogs:
		// The level and logger filters' rows are found again with the server's.
		return tea.Batch(m.logs.setServer(nextServer(m.logs.server, m.serverNames())), m.logFilter.refilter(&m.logs))
	case tabStderr:
		return m.stderr.setServer(nextServer(m.stderr.server, m.serverNames()))
	}
	return nil
}

// several reports whether the session holds more than one server (tools are then
// shown as server/tool, under server headers).
func (m *model) several() bool { return len(m.servers) > 1 }

// labelled reports whether Traffic, Logs and Stderr name each line's server: with
// several servers, and beside an attached tap (whose lines are "tap:NAME"'s).
func (m *model) labelled() bool { return m.several() || m.tap != nil }

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
	// The caller's tap gets every server's events; in a session started with one
	// server it is that server's (the recording of one server, version 1, listens
	// there): a server added later has ids of its own that would mix with them.
	own := ""
	if specs := m.specs(); len(specs) == 1 {
		own = specs[0].Name
	}
	if opts.LogLevel == "" {
		opts.LogLevel = "debug" // the Logs tab shows everything the server says
	}
	m.wb = workbench.New(workbench.Options{
		Client:         opts,
		ForServer:      m.forServer(send), // handlers naming the server (asks.go)
		IdleDisconnect: m.opts.IdleDisconnect,
		Configured:     m.opts.Configured,
		OAuth:          m.opts.OAuth,
		OnAdd:          m.opts.OnAdd,
		OnWire: func(name string, e wire.Event) {
			if parent != nil && (own == "" || name == own) {
				parent.Emit(e) // listeners the caller attached (a recorder)
			}
			if onWire != nil {
				onWire(name, e)
			}
			if pump != nil {
				pump.listen(name, e)
			}
		},
		OnLog: func(name string, t time.Time, l client.LogMessage) {
			if pump != nil {
				pump.log(name, t, l)
			}
		},
	})
	// Every kind but the wire frames and the logs (they come through OnWire and OnLog
	// to the pump, which bounds them), with a bound: while the screen takes no
	// messages (an $EDITOR runs) this reader waits with an event in hand, and what
	// comes behind it waits here, within wbQueue.
	sub := m.wb.SubscribeWith(workbench.SubscribeOptions{Except: screenExcept, Max: wbQueue})
	m.wbSub = sub
	go func() {
		for e := range sub.C {
			switch {
			case e.Kind == workbench.EventDropped && pump != nil:
				pump.dropped(e.Dropped[workbench.EventLog])
				if e.Dropped[workbench.EventResourceUpdated] == 0 {
					continue
				}
			case e.Kind == workbench.EventStatus && pump != nil:
				pump.flush() // the wire events before this status come first
			}
			send(wbMsg{e: e})
		}
	}()
	specs := m.specs()
	for i, sp := range specs {
		s := &server{name: sp.Name} // connecting until its first status
		if len(specs) == 1 {
			s.display = m.opts.Name
		}
		m.servers = append(m.servers, s)
		if i == 0 {
			m.srv = s
		}
	}
	wb := m.wb
	return tea.Batch(m.openHistories(), m.followTap(), func() tea.Msg {
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
	})
}

// restartServer restarts one server (the workbench stops its process first).
func (m *model) restartServer(s *server) tea.Cmd {
	if s == nil || m.wb == nil {
		return nil
	}
	m.interruptCalls(s.name, "the server was restarted before it answered")
	wb, name := m.wb, s.name
	return func() tea.Msg {
		return wbDoneMsg{what: "restart " + name, err: wb.Restart(name)}
	}
}

// notRecorded says why a server added during the session is not in the recording
// ("" when it is, or nothing is recorded).
func (m *model) notRecorded(name string) string {
	if m.opts.Recording == "" || m.opts.OnAdd != nil {
		return ""
	}
	return safe(name) + " is not recorded: " + m.opts.Recording + " records one server (to record several, start with --server NAME=TARGET for each)"
}

// The workbench's events, routed by kind (onWorkbench). A kind the screen does not
// follow has no entry; a new kind gets one here, its handler in the file of the
// part of the screen it changes.
var (
	// listEvents change the list of servers, or say what the subscription dropped:
	// they come before a server is on the screen (added) or after it left it.
	listEvents = map[workbench.EventKind]func(m *model, e workbench.Event) tea.Cmd{
		workbench.EventAdded:   (*model).onAdded,
		workbench.EventRemoved: (*model).onRemoved,
		workbench.EventDropped: (*model).onDropped,
	}
	// serverEvents are about one server on the screen (an event about a server
	// that is not, one removed meanwhile, is dropped).
	serverEvents = map[workbench.EventKind]func(m *model, s *server, e workbench.Event) tea.Cmd{
		workbench.EventStatus:       (*model).onStatusEvent,
		workbench.EventLog:          (*model).onLogEvent,
		workbench.EventToolsChanged: (*model).onToolsChangedEvent,
		workbench.EventReconnect:    (*model).onReconnect,
		workbench.EventAuth:         (*model).onAuthEvent,
		workbench.EventPromptsChanged: func(m *model, s *server, _ workbench.Event) tea.Cmd {
			return m.onPromptsChanged(s) // prompts.go
		},
		workbench.EventWatch:          (*model).onWatch,          // devloop.go
		workbench.EventSurfaceChanged: (*model).onSurfaceChanged, // devloop.go
		workbench.EventResourceUpdated: func(m *model, s *server, e workbench.Event) tea.Cmd {
			return m.onResourceEvent(s, "updated", e.Text) // resources.go
		},
		workbench.EventResourcesChanged: func(m *model, s *server, _ workbench.Event) tea.Cmd {
			return m.onResourceEvent(s, "list", "") // resources.go
		},
		workbench.EventNeedsScope: func(m *model, s *server, e workbench.Event) tea.Cmd {
			m.onNeedsScope(e.Server, e.Text) // login.go
			return nil
		},
		workbench.EventTaskStatus: func(m *model, s *server, e workbench.Event) tea.Cmd {
			if e.Task == nil {
				return nil
			}
			return m.onTaskStatus(e.Server, *e.Task) // tasks.go
		},
		workbench.EventURLRequired: func(m *model, s *server, e workbench.Event) tea.Cmd {
			if e.URLRequired != nil {
				m.urlRequired(e.Server, *e.URLRequired) // elicit.go
			}
			return nil
		},
	}
)

// onWorkbench follows the workbench's events: by kind, through listEvents and
// serverEvents.
func (m *model) onWorkbench(e workbench.Event) tea.Cmd {
	if on := listEvents[e.Kind]; on != nil {
		return on(m, e)
	}
	s := m.server(e.Server)
	if s == nil {
		return nil
	}
	// What the event says of the server is in the workbench's snapshot, taken whole
	// before the handler runs (it may already be newer than the event: the handler
	// reads the event for what happened, the snapshot for what is).
	m.refresh(s)
	if on := serverEvents[e.Kind]; on != nil {
		return on(m, s, e)
	}
	return nil
}

// onAdded puts a server the workbench added on the screen.
func (m *model) onAdded(e workbench.Event) tea.Cmd {
	if s := m.server(e.Server); s != nil {
		// The session's own servers are on the screen before they are added; a
		// name added again overrides a configured server (its snapshot says so).
		m.refresh(s)
		return nil
	}
	// In the workbench's order: a configured server that :remove brings back (its
	// override removed) keeps its place.
	at := len(m.servers)
	if m.wb != nil {
		if i := slices.Index(m.wb.Names(), e.Server); i >= 0 && i < at {
			at = i
		}
	}
	s := &server{name: e.Server}
	m.refresh(s)
	m.servers = slices.Insert(m.servers, at, s)
	m.refreshTools()
	if why := m.notRecorded(e.Server); why != "" {
		m.notice = why
	}
	return m.onServerAdded(e.Server)
}

// onDropped says what the bounded subscription dropped while the screen was busy.
func (m *model) onDropped(e workbench.Event) tea.Cmd {
	if n := e.Dropped[workbench.EventResourceUpdated]; n > 0 {
		m.notice = fmt.Sprintf("%d resource updates were dropped while the screen was busy; enter on a resource reads it again", n)
	}
	if n := e.Dropped[workbench.EventLog]; n > 0 && m.pump == nil {
		m.onLogs([]logEntry{{line: fmt.Sprintf("… %d log lines were dropped while the screen was busy", n)}})
	}
	return nil
}

// onRemoved takes a removed server off the screen.
func (m *model) onRemoved(e workbench.Event) tea.Cmd {
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

func (m *model) onStatusEvent(s *server, e workbench.Event) tea.Cmd {
	if e.Status == nil {
		return nil
	}
	return tea.Batch(m.onStatus(s, *e.Status), m.resourcesOnStatus())
}

// onLogEvent: a log comes this way only without a pump (tests of one view); else
// it is batched through the pump.
func (m *model) onLogEvent(s *server, e workbench.Event) tea.Cmd {
	if e.Log != nil {
		m.onLogs([]logEntry{{server: e.Server, level: e.Log.Level, logger: e.Log.Logger, line: logLine(e.Time, *e.Log)}})
	}
	return nil
}

func (m *model) onToolsChangedEvent(s *server, _ workbench.Event) tea.Cmd {
	if s.state() != stateReady {
		return nil
	}
	m.notice = "the server's tools changed; list refreshed"
	if m.several() {
		m.notice = s.name + ": the server's tools changed; list refreshed"
	}
	return m.fetchToolsChanged(s)
}

// onReconnect: an idle server is being connected again for a request.
func (m *model) onReconnect(s *server, e workbench.Event) tea.Cmd {
	m.notice = safe(e.Text)
	s.reconnecting, s.wokeForCall = true, true
	return nil
}

// onAuthEvent adds a login's step to the Auth tab; a warning is said at once.
func (m *model) onAuthEvent(s *server, e workbench.Event) tea.Cmd {
	if e.Auth == nil {
		return nil
	}
	m.auth.add(e.Server, *e.Auth)
	if e.Auth.Kind == "warning" {
		m.notice = e.Server + ": " + safe(oneLine(e.Auth.Text, 300))
	}
	return nil
}

// onStatus does what a status event calls for: notices, the tool list fetched once
// connected, a rerun dropped when the server went down. What the server is now is
// its snapshot (refresh, taken before), which may already be newer than st: the
// words of the notices come from st, the event.
func (m *model) onStatus(s *server, st workbench.Status) tea.Cmd {
	defer m.refreshTools()
	word := stateWordOf(stateOf(st, ""), st)
	switch st.State {
	case workbench.StateConnecting:
		s.stderrFrom = m.stderr.total()
	case workbench.StateConnected:
		s.restartedFor = ""
		if s.reconnecting {
			s.reconnecting = false
			m.notice = s.name + " was idle and is connected again for this request"
		} else if !m.several() {
			// With several servers a notice may be about another one. What the start
			// said (config entries left out) outlives the first connection.
			m.notice, m.startNotice = m.startNotice, ""
		}
		return m.fetchTools(s, false) // then its counts (onTools)
	case workbench.StateFailed, workbench.StateNeedsLogin:
		m.dropRerun(s, "it is "+word)
		if changed := s.restartedFor; changed != "" {
			s.restartedFor = ""
			m.notice = changed + " changed and the server failed to start (1 Tool shows why, with its stderr); the next change restarts it again"
			if m.several() {
				m.notice = s.name + ": " + m.notice
			}
			break
		}
		if m.several() && st.State == workbench.StateNeedsLogin {
			m.notice = s.name + " needs login: L on 7 Servers (or :login " + s.name + ") logs in; the other servers go on"
		} else if m.several() {
			m.notice = s.name + " " + word + ": " + oneLine(st.Reason, 200) + " (7 Servers shows why; the other servers go on)"
		}
	case workbench.StateExited:
		m.dropRerun(s, "exited")
		if m.several() {
			m.notice = s.name + " " + word + "; the other servers go on (ctrl+r on 7 Servers restarts it)"
		}
	}
	return nil
}

// fetchTools lists a server's tools; fresh asks the server itself, past the SDK's
// 2026-07-28 TTL cache (the user's "r", and after list_changed).
func (m *model) fetchTools(s *server, fresh bool) tea.Cmd {
	if s == nil || m.wb == nil {
		return nil
	}
	// An idle server is reconnected by the request: its answer comes on the next
	// connection (reqGen).
	wb, name, gen := m.wb, s.name, s.reqGen()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		// The workbench keeps the list (Snapshot) and says which connection it
		// came on: that, not a guess made here, decides whether it is stale.
		list, on, err := wb.ListTools(ctx, name, fresh)
		if on == 0 {
			on = gen // no session: the failure is about the connection asked for
		}
		return toolsMsg{server: name, gen: on, list: list, err: err}
	}
}

// fetchCounts has the workbench count a connected server's resources and prompts
// (each only when it declares the capability), in a command, unless they are
// counted on this connection or being counted. The counts are the workbench's
// (Snapshot.Counts); the answer only says to take them.
func (m *model) fetchCounts(s *server) tea.Cmd {
	if s == nil || m.wb == nil || !s.callable() || s.counting {
		return nil
	}
	if c := s.snap.Counts; c != nil && c.Gen == s.gen() {
		return nil
	}
	// An idle server is reconnected by the count, as by a call.
	s.counting = true
	wb, name := m.wb, s.name
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		_, _ = wb.CountLists(ctx, name) // a failure is kept in the counts too
		return countsMsg{server: name}
	}
}

// fetchAllCounts counts what every connected server lacks (the Servers tab opened).
func (m *model) fetchAllCounts() tea.Cmd {
	var cmds []tea.Cmd
	for _, s := range m.servers {
		cmds = append(cmds, m.fetchCounts(s))
	}
	return tea.Batch(cmds...)
}

func (m *model) onCounts(msg countsMsg) {
	if s := m.server(msg.server); s != nil {
		s.counting = false
		m.refresh(s)
	}
}

// fetchAllTools refetches the tools of every connected server (the user's "r").
func (m *model) fetchAllTools() tea.Cmd {
	var cmds []tea.Cmd
	for _, s := range m.servers {
		if s.callable() { // an idle server is reconnected by the refetch, as by a call
			cmds = append(cmds, m.fetchTools(s, true))
		}
	}
	return tea.Batch(cmds...)
}

func (m *model) onTools(msg toolsMsg) tea.Cmd {
	s := m.server(msg.server)
	// The workbench kept the list with the connection it came on; the snapshot
	// taken now says whether that connection is still the server's.
	m.refresh(s)
	if !s.answers(msg.gen) {
		return nil
	}
	if msg.err != nil {
		m.notice = "listing tools failed: " + msg.err.Error()
		return nil
	}
	m.refreshTools()
	m.settleNotice(refetchingTools, "tools refetched")
	if len(msg.list.Problems) > 0 {
		m.notice = "tool list: " + strings.Join(msg.list.Problems, "; ")
	}
	m.syncForm()
	rerun := tea.Batch(m.rerunAfterLogin(), m.retryWhenListed())
	if m.several() || m.tab == tabServers {
		// Resources and prompts are counted once the tools are on screen (they do not
		// hold up the first screen). One server: when the Servers tab is opened, so
		// that its Traffic holds what it always did.
		return tea.Batch(rerun, m.fetchCounts(s))
	}
	return rerun
}

// refreshTools puts every server's tools in the list, in the servers' order. A server
// that cannot take a call now (exited, failed, restarting) keeps its last tools in
// the list, marked down: dropping them moved the selection, and the open form, onto
// another server's tool, where enter then sent what was typed for this one.
func (m *model) refreshTools() {
	var entries []listTool
	down := map[string]string{}
	var bare []bareServer
	order := make(map[string]int, len(m.servers))
	for i, s := range m.servers {
		order[s.name] = i
		if !s.callable() {
			down[s.name] = s.stateWord()
			if len(s.tools()) == 0 && s.state() != stateConnecting {
				// Failed (or exited) before it listed a tool: its header says so.
				bare = append(bare, bareServer{name: s.name, why: safe(oneLine(s.status().Reason, 300))})
			}
		}
		for _, t := range s.tools() {
			entries = append(entries, listTool{server: s.name, tool: t})
		}
	}
	m.list.down, m.list.bare, m.list.order = down, bare, order
	m.list.setEntries(entries, m.several())
	m.evictForms()
}

// closeSession stops every server; it is called once the program has stopped and
// returns when every process is gone.
func (m *model) closeSession() {
	m.closeMu.Lock()
	defer m.closeMu.Unlock()
	if d := m.loginOpen(); d != nil {
		d.cancel() // a login waiting for its redirect ends with the session
	}
	for _, c := range m.cancels {
		c()
	}
	if m.bench.cancel != nil {
		m.bench.cancel() // a bench holds its server's session until it ends
	}
	if m.tapStream != nil {
		_ = m.tapStream.Close() // the tap's reader ends
	}
	defer m.closeSpools()
	m.asks.shutdown() // dialogs still open give up: closing waits for their handlers
	if m.wb != nil {
		_ = m.wb.Close()
	}
	if m.wbSub != nil {
		m.wbSub.Close()
	}
}

// callable reports whether a request can go to the server now (an idle one is
// reconnected by the request).
func (s *server) callable() bool {
	return s != nil && (s.state() == stateReady || s.state() == stateIdle)
}

// reqGen is the connection (gen) whose answer a request sent now brings: the
// current one, or for an idle server the reconnect that the request (or any other
// sent before it) makes, which the next connecting status numbers gen+1. An answer
// tagged with it is then taken once that connection is up, not dropped as stale.
func (s *server) reqGen() int {
	if s.state() == stateIdle {
		return s.gen() + 1
	}
	return s.gen()
}

// answers reports whether an answer fetched on connection gen is for this server as it
// is now: its current connection, or the reconnect of an idle server, whose answer
// may come before its connecting status (reqGen). Anything older is stale (a restart
// came since) and is dropped. Every per-server answer (tools, counts, lists) is
// accepted by this one rule.
func (s *server) answers(gen int) bool {
	return s != nil && (gen == s.gen() || gen == s.reqGen())
}

// notConnected says why a server cannot take a request.
func (m *model) notConnected(s *server) string {
	if s == nil {
		return "no server for this tool"
	}
	if m.several() {
		return s.name + " is " + s.stateWord() + "; nothing was sent (ctrl+r restarts it)"
	}
	return "not connected (" + s.stateWord() + "); nothing was sent (ctrl+r restarts the server)"
}

// targetOf is the target of a server, for the copied command line.
func (m *model) targetOf(name string) target.Target {
	for _, sp := range m.specs() {
		if sp.Name == name {
			return sp.Target
		}
	}
	if s := m.server(name); s != nil && s.snap.Name == name {
		return s.snap.Spec.Target // added during the session (from its snapshot: no lock in View)
	}
	return m.opts.Target
}

// stateWord is a server's status badge text.
func (s *server) stateWord() string { return stateWordOf(s.state(), s.snap.Status) }

// stateWordOf is the badge text of a state, from the status it came of.
func stateWordOf(c connState, st workbench.Status) string {
	switch c {
	case stateConnecting:
		return "connecting"
	case stateReady:
		return "connected"
	case stateFailed:
		if st.State == workbench.StateNeedsLogin {
			return "needs login"
		}
		return "failed"
	case stateDied:
		if st.Exit != nil {
			return "exited (" + st.Exit.String() + ")"
		}
		return "exited"
	case stateLost:
		return "disconnected"
	case stateIdle:
		return "idle"
	}
	return "?"
}

// serversKeys is the Servers tab's table. ctrl+r and : are caught before the views
// (they work everywhere); restartTarget makes ctrl+r restart the highlighted row
// here, which is what this hint promises.
func (m *model) serversKeys() keyTable {
	k := m.keys
	sel := func(d int) func() tea.Cmd {
		return act(func() { m.srvList.moveBy(d, len(m.servers)); m.srvDetail.top() })
	}
	noServer := func() string {
		if s := m.selectedServer(); s == nil || s.name == "" {
			return "no server selected"
		}
		return ""
	}
	return keyTable{name: "Servers", groups: [][]binding{{
		{Binding: relabel(k.Restart, "restart the selected server")},
		bind(relabel(k.Up, "select"), sel(-1)),
		bind(relabel(k.Down, "select"), sel(1)),
		bind(relabel(k.PageUp, "scroll the detail"), act(func() { m.srvDetail.scroll(-(m.height / 2)) })),
		bind(relabel(k.PageDown, "scroll the detail"), act(func() { m.srvDetail.scroll(m.height / 2) })),
		{Binding: k.CmdLine},
		bind(k.ToggleSampling, m.toggleSampling).unless(noServer),
		bind(k.EditRoots, act(m.editRoots)).unless(noServer),
	}}}
}

// badge is a server's status badge.
func (m *model) badge(s *server) string {
	w := s.stateWord()
	switch s.state() {
	case stateReady:
		return m.st.ok.Render("● " + w)
	case stateConnecting, stateIdle:
		return m.st.warn.Render("○ " + w)
	}
	return m.st.err.Render("✗ " + w)
}

// serversView is the Servers tab: a row per server, then the selected one's detail.
func (m *model) serversView(width, height int) string {
	hint := "↑/↓ selects · pgup/pgdn scrolls the detail · ctrl+r restarts the selected server · : or ctrl+p for commands"
	for _, s := range m.servers {
		if s.status().State == workbench.StateNeedsLogin {
			hint = "↑/↓ selects · L logs in the selected server · ctrl+r restarts it · : or ctrl+p for commands"
			break
		}
	}
	lines := []string{m.st.muted.Render(hint)}
	nameW := 4
	for _, s := range m.servers {
		nameW = max(nameW, min(len(s.name), 20))
	}
	// The rows take at most half the tab (the detail needs the rest); more servers
	// than that scroll.
	rowsH := min(len(m.servers), max((height-1)/2, 3))
	rows := m.srvList.draw(len(m.servers), rowsH, func(i int, selected bool) string {
		s := m.servers[i]
		tr := s.info().Transport
		if s.info().Framing != "" {
			tr += " " + string(s.info().Framing)
		}
		caps := capabilityNames(s.info().Capabilities)
		c, counted := s.counts()
		last := "-"
		if !s.snap.Heard.IsZero() {
			last = s.snap.Heard.Format("15:04:05")
		}
		badge := m.badge(s)
		if s.snap.Overrides { // first: a long row is cut at the right
			badge += "  " + m.st.warn.Render("overrides the configured "+safe(s.name))
		}
		row := fmt.Sprintf("%-*s  %s  %s  %s  tools %d  resources %s  prompts %s  last %s", nameW, truncate(s.name, 21), badge,
			safe(strings.TrimSpace(s.info().Era+" "+s.info().ProtocolVersion)), safe(tr), len(s.tools()),
			showCount(c.Resources, counted), showCount(c.Prompts, counted), last)
		if cost := m.serverCost(s.name); cost != "" {
			row += "  tools cost " + cost // in a model's context (cost.go)
		}
		if s.status().State == workbench.StateNeedsLogin {
			row += "  " + m.st.err.Render("L logs in")
		} else if s.state() == stateFailed || s.state() == stateDied {
			row += "  " + m.st.err.Render(safe(oneLine(s.status().Reason, 200)))
		}
		if caps != "" {
			row += "  " + m.st.muted.Render(caps)
		}
		mark := "  "
		if selected {
			mark = m.st.selected.Render("› ")
		}
		return ansi.Truncate(mark+row, width, "…")
	})
	lines = append(lines, rows...)
	lines = append(lines, m.refusedRows(nameW, width)...)
	lines = append(lines, "")
	if c := m.srvList.cursor; c < len(m.servers) {
		m.srvDetail.setLines(m.serverDetailCached(m.servers[c], width))
		lines = append(lines, m.srvDetail.view(max(height-len(lines), 1)))
	}
	return strings.Join(lines, "\n")
}

// maxRefusedRows bounds the rows of config entries left out: the detail needs the rest.
const maxRefusedRows = 5

// refusedRows are the config entries mcpscope could not use (opts.Refused), one row
// each under the servers, saying why: they are not in the session, and the start's
// notice said only the first. Not selectable: nothing can be done to them here.
func (m *model) refusedRows(nameW, width int) []string {
	var out []string
	n := 0
	for _, r := range m.opts.Refused {
		if m.server(r.Name) != nil {
			continue // given in the session under that name
		}
		n++
		if n > maxRefusedRows {
			continue
		}
		row := fmt.Sprintf("  %-*s  %s  %s", nameW, truncate(safe(r.Name), 21), m.st.err.Render("✗ not in the session"), m.st.muted.Render(safe(oneLine(r.Why, 300))))
		out = append(out, ansi.Truncate(row, width, "…"))
	}
	if n > maxRefusedRows {
		out = append(out, m.st.muted.Render(fmt.Sprintf("  and %d more left out (:add NAME says why)", n-maxRefusedRows)))
	}
	return out
}

// showCount is one count as a row shows it: "-" when the server does not offer
// the list, "…" until it has been counted.
func showCount(n int, counted bool) string {
	switch {
	case !counted:
		return "…"
	case n < 0:
		return "-"
	}
	return fmt.Sprint(n)
}

// countOf is a count from the workbench's counts in words ("1 resource", "- prompts"
// when the server offers none).
func countOf(n int, noun string) string {
	if n < 0 {
		return showCount(n, true) + " " + plural.Noun(2, noun)
	}
	return plural.Count(n, noun)
}

// capabilityNames lists which of logging, completions and tasks the server offers
// (resources and prompts have their counts).
func capabilityNames(raw json.RawMessage) string {
	var caps map[string]json.RawMessage
	if json.Unmarshal(raw, &caps) != nil || len(caps) == 0 {
		return ""
	}
	var names []string
	for _, k := range []string{"logging", "completions", "tasks"} {
		if _, ok := caps[k]; ok {
			names = append(names, k)
		}
	}
	return strings.Join(names, " ")
}

// detailKey says what a server's detail was made from: it is made again only when
// one of these changed, not on every frame (instructions and capabilities can be big).
type detailKey struct {
	width, gen, tools, stderr int
	state                     connState
	status                    workbench.State
	reason                    string
	counts                    workbench.Counts
	counted                   bool
	lastStderr                string
}

func (m *model) serverDetailCached(s *server, width int) []string {
	errLines := s.snap.Stderr
	k := detailKey{width: width, gen: s.gen(), tools: len(s.tools()), stderr: len(errLines), state: s.state(),
		status: s.status().State, reason: s.status().Reason}
	k.counts, k.counted = s.counts()
	if n := len(errLines); n > 0 {
		k.lastStderr = errLines[n-1]
	}
	if s.detail == nil || s.detailFor != k {
		s.detail, s.detailFor = m.serverDetail(s, width), k
	}
	return s.detail
}

// maxInstructions bounds the instructions laid out (the rest is counted, not shown).
const maxInstructions = 256 << 10

// serverDetail is what is known about one server: serverInfo (name, title, version,
// description, website, icons), the failure, its instructions, the capabilities as
// sent, the server/discover result (2026-07-28), its last stderr lines. Every string
// of it came from the server: safe and safeText (through wrapText and jsonLines).
func (m *model) serverDetail(s *server, width int) []string {
	st := m.st
	out := []string{st.title.Render(safe(s.name)) + "  " + m.badge(s)}
	field := func(label, v string) {
		if v == "" {
			return
		}
		lines := wrapText(v, max(width-12, 10))
		out = append(out, fmt.Sprintf("%-12s", label)+lines[0])
		for _, l := range lines[1:] {
			out = append(out, strings.Repeat(" ", 12)+l)
		}
	}
	i := s.info()
	if spec := m.targetOf(s.name); len(spec.Argv) > 0 || spec.URL != "" {
		what := spec.URL
		if what == "" {
			what = strings.Join(spec.Argv, " ")
		}
		field("target", what)
	}
	field("serverInfo", strings.TrimSpace(i.Name+" "+i.Version))
	field("title", i.Title)
	field("description", i.Description)
	field("website", i.WebsiteURL)
	for n, ic := range i.Icons {
		what := oneLine(ic.Src, 200)
		if strings.HasPrefix(ic.Src, "data:") {
			// A data: URI holds the picture itself: show what it is, not its bytes.
			head, _, _ := strings.Cut(ic.Src, ",")
			what = oneLine(head, 80) + fmt.Sprintf(",… (%d bytes)", len(ic.Src))
		}
		var about []string
		if ic.MIMEType != "" {
			about = append(about, ic.MIMEType)
		}
		if len(ic.Sizes) > 0 {
			about = append(about, strings.Join(ic.Sizes, " "))
		}
		if ic.Theme != "" {
			about = append(about, ic.Theme+" theme")
		}
		if len(about) > 0 {
			what += " (" + strings.Join(about, ", ") + ")"
		}
		label := "icon"
		if len(i.Icons) > 1 {
			label = fmt.Sprintf("icon %d", n+1)
		}
		if n == 8 && len(i.Icons) > 9 {
			field(label, fmt.Sprintf("… and %d more", len(i.Icons)-n))
			break
		}
		field(label, what)
	}
	field("url", i.URL)
	if c, counted := s.counts(); counted {
		field("lists", plural.Count(len(s.tools()), "tool")+", "+countOf(c.Resources, "resource")+", "+countOf(c.Prompts, "prompt"))
		if c.Err != "" {
			out = append(out, st.err.Render("listing failed: ")+safe(oneLine(c.Err, 300)))
		}
	}
	if s.status().Reason != "" {
		out = append(out, "", st.accent.Render("status"))
		out = append(out, wrapText(s.status().Reason, width)...)
	}
	out = append(out, m.clientSideLines(s, width)...) // sampling, roots, log level (roots.go)
	// What the handshake shows of deprecated features (its capabilities, the
	// transport); --inspect also names the requests a server sent.
	if ns := deprecated.Find(deprecated.Use{Capabilities: i.Capabilities, Transport: i.Transport}); len(ns) > 0 {
		out = append(out, "", st.accent.Render("deprecated"))
		for _, n := range ns {
			out = append(out, wrapText(n.String(), width)...)
		}
	}
	if i.Instructions != "" {
		out = append(out, "", st.accent.Render("instructions"))
		text := i.Instructions
		if len(text) > maxInstructions {
			text = text[:maxInstructions]
		}
		out = append(out, instructionLines(st, text, width)...)
		if len(i.Instructions) > maxInstructions {
			out = append(out, st.muted.Render(fmt.Sprintf("… %d more bytes of instructions (the Traffic tab has the whole initialize result)", len(i.Instructions)-maxInstructions)))
		}
	}
	if len(i.Capabilities) > 0 {
		out = append(out, "", st.accent.Render("capabilities (as sent)"))
		out = append(out, jsonLines(st, i.Capabilities, width)...)
	}
	if len(i.Discover) > 0 {
		out = append(out, "", st.accent.Render("server/discover result (as sent)"))
		out = append(out, jsonLines(st, i.Discover, width)...)
	}
	// The current attempt's last lines as the server wrote them (wrapText makes
	// them safe); a failure's own when the attempt kept none.
	errLines := s.snap.Stderr
	if len(errLines) == 0 {
		errLines = s.status().Stderr
	}
	if len(errLines) > 0 {
		out = append(out, "", st.accent.Render(fmt.Sprintf("stderr (last %d lines)", len(errLines))))
		for _, l := range errLines {
			out = append(out, wrapText(l, width)...)
		}
	}
	return out
}

// loginName is how a shell names the server for mcpscope auth login: its URL.
func (m *model) loginName(s *server) string {
	if t := m.targetOf(s.name); t.URL != "" {
		return t.URL
	}
	return s.name
}

// instructionLines shows a server's instructions, which are usually Markdown: the
// text wrapped as written (glamour would cost a renderer per width, for text read
// rarely), headings and list bullets marked, code fences kept unwrapped. The text
// went through safeText first (in wrapText), so escapes it holds are shown, not run.
func instructionLines(st styles, md string, width int) []string {
	var out []string
	fence := false
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			fence = !fence
			out = append(out, st.muted.Render(safe(trimmed)))
			continue
		}
		if fence {
			out = append(out, wrapHard(safe(line), width)...)
			continue
		}
		if strings.HasPrefix(trimmed, "#") {
			out = append(out, st.title.Render(safe(strings.TrimSpace(strings.TrimLeft(trimmed, "#")))))
			continue
		}
		if trimmed == "" {
			out = append(out, "")
			continue
		}
		out = append(out, wrapText(line, width)...)
	}
	return out
}

// stderrKeys is the Stderr tab's table: S (with several servers) and scrolling.
func (m *model) stderrKeys() keyTable {
	k := m.keys
	return keyTable{name: "Stderr", groups: [][]binding{
		{bind(k.ServerFilter, m.onServerFilterKey).hide(!m.several())},
		k.moves(m.onScrollKey),
	}}
}
