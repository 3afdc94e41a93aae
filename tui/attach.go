package tui

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/tap/live"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// Attach is a tap's session to show (mcpscope attach, :attach NAME): someone else's
// session, read from the tap's stream (package tap/live: the recording's lines), never
// sent to. Its traffic, stderr and logs are shown under the label "tap:NAME", the
// host's tools/call requests as calls in History and Result, live as they come.
type Attach struct {
	Name string // the tap's name
	Host string // the host's clientInfo, when known ("claude-ai 0.1.0")
	// Target is what the tap taps: mcpscope's own session to it (a workbench server,
	// added idle: nothing starts until a call is tried again) is where a tapped call
	// is tried again. Never the tap itself.
	Target target.Target
	Live   bool          // a live tap; else its recording, as it finished
	Stream io.ReadCloser // the recording's lines (live.Open)
}

// tapState is the attached tap, in the model.
type tapState struct {
	a     Attach
	label string // "tap:NAME": the tapped events' server column, the calls' server
	own   string // the workbench server of mcpscope's own session to the same target
	ended string // why the stream ended ("" while it runs)
	calls map[string]*outcome
	// retry is the tapped call whose form opens on own once its tools are listed.
	retry *outcome
}

const tapPrefix = "tap:"

// isTapped reports whether a call was the host's, seen through the tap.
func (o *outcome) isTapped() bool { return strings.HasPrefix(o.server, tapPrefix) }

// attachStart shows the tap given at the start (mcpscope attach): its own session's
// server is among Options.Servers already.
func (m *model) attachStart() {
	a := m.opts.Attach
	if a == nil {
		return
	}
	m.tap = &tapState{a: *a, label: tapPrefix + a.Name, own: ownName(a.Name, nil), calls: map[string]*outcome{}}
}

// ownName is the name of mcpscope's own session to a tapped server: the tap's name,
// or with "-own" when the session has a server of that name already.
func ownName(tap string, taken func(string) bool) string {
	name := tap
	if workbench.ValidateName(name) != nil {
		name = "tapped"
	}
	for k := 0; taken != nil && taken(name); k++ {
		name = fmt.Sprintf("%s-own%d", tap, k+1)
		if k == 0 {
			name = tap + "-own"
		}
	}
	return name
}

// OwnSpec is the workbench server of mcpscope's own session to what a tap taps:
// idle until its first request.
func OwnSpec(a *Attach) workbench.Spec {
	return workbench.Spec{Name: ownName(a.Name, nil), Target: a.Target, Idle: true}
}

// Messages of the tap's stream and of :attach.
type (
	// tapCallMsg is a tools/call the host sent (done false) or its answer (done true).
	tapCallMsg struct {
		key    string // the request's id
		tool   string
		args   json.RawMessage
		at     time.Time
		done   bool
		result *client.CallResult
		err    error
	}
	// tapEndedMsg: the stream ended (the tap finished, or the reader was cut off).
	tapEndedMsg struct{ why string }
	// tapOpenedMsg is :attach NAME's tap, found and opened in a command.
	tapOpenedMsg struct {
		a   *Attach
		err error
	}
)

func (msg tapCallMsg) handle(m *model) tea.Cmd {
	t := m.tap
	if t == nil {
		return nil
	}
	if !msg.done {
		m.nextID++
		o := &outcome{id: m.nextID, server: t.label, tool: client.Tool{Name: msg.tool}, args: msg.args,
			started: msg.at, running: true, recorded: true}
		t.calls[msg.key] = o
		m.calls = append(m.calls, o)
		m.current = o
		m.resultVer++
		return nil
	}
	o := t.calls[msg.key]
	if o == nil {
		return nil
	}
	delete(t.calls, msg.key)
	o.running, o.elapsed, o.result, o.err = false, msg.at.Sub(o.started), msg.result, msg.err
	m.resultVer++
	return nil
}

func (msg tapEndedMsg) handle(m *model) tea.Cmd {
	if m.tap == nil {
		return nil
	}
	m.tap.ended = msg.why
	for _, o := range m.tap.calls {
		o.running, o.interrupted = false, "the tap's stream ended before the server answered this call"
	}
	clear(m.tap.calls)
	m.notice = "tap " + safe(m.tap.a.Name) + ": " + safe(msg.why)
	m.resultVer++
	return nil
}

func (msg tapOpenedMsg) handle(m *model) tea.Cmd {
	if msg.err != nil {
		m.notice = "attach: " + msg.err.Error()
		return nil
	}
	if m.tap != nil {
		_ = msg.a.Stream.Close()
		m.notice = "already attached to tap " + safe(m.tap.a.Name) + "; one tap per workbench (start another mcpscope attach)"
		return nil
	}
	a := msg.a
	m.tap = &tapState{a: *a, label: tapPrefix + a.Name, calls: map[string]*outcome{}}
	// mcpscope's own session to the tapped server: one of the session's servers with
	// that target when there is one, else a new one, idle.
	for _, s := range m.servers {
		if snap, ok := m.wb.Snapshot(s.name); ok && sameTarget(snap.Spec.Target, a.Target) {
			m.tap.own = s.name
		}
	}
	var add tea.Cmd
	if m.tap.own == "" {
		m.tap.own = ownName(a.Name, func(n string) bool { return m.server(n) != nil })
		sp := workbench.Spec{Name: m.tap.own, Target: a.Target, Idle: true}
		wb := m.wb
		add = func() tea.Msg { return wbDoneMsg{what: "add " + sp.Name, err: wb.Add(sp)} }
	}
	m.notice = "attached to tap " + safe(a.Name)
	m.openTab(tabTraffic)
	return tea.Batch(add, m.followTap())
}

func sameTarget(a, b target.Target) bool {
	return a.URL == b.URL && slices.Equal(a.Argv, b.Argv)
}

// attachCmd is :attach NAME: the tap found and opened in a command.
func attachCmd(name string) tea.Cmd {
	return func() tea.Msg {
		a, err := OpenTap(name)
		return tapOpenedMsg{a: a, err: err}
	}
}

// OpenTap finds a tap by name (none: the only live one) and opens its stream.
func OpenTap(name string) (*Attach, error) {
	info, err := live.Find(name)
	if err != nil {
		return nil, err
	}
	return AttachTo(info)
}

// AttachTo opens a tap the registry listed.
func AttachTo(info live.Info) (*Attach, error) {
	r, err := live.Open(info)
	if err != nil {
		return nil, err
	}
	a := &Attach{Name: info.Name, Live: info.Live(), Stream: r, Target: target.Target{Argv: info.Argv, URL: info.URL}}
	if c := info.Client; c != nil {
		a.Host = strings.TrimSpace(c.Name + " " + c.Version)
	}
	return a, nil
}

// followTap reads the tap's stream until it ends, in a command: frames, stderr and
// logs go to the pump as a server's do (labelled tap:NAME), the host's calls and their
// answers come as tapCallMsg. Nothing here is sent anywhere.
func (m *model) followTap() tea.Cmd {
	t := m.tap
	if t == nil || t.a.Stream == nil {
		return nil
	}
	m.closeMu.Lock()
	m.tapStream = t.a.Stream
	m.closeMu.Unlock()
	r, label, pump, send, live := t.a.Stream, t.label, m.pump, m.send, t.a.Live
	return func() tea.Msg {
		why := readTap(r, label, pump, send)
		if why == "" {
			why = "the tap finished; what it recorded is shown"
			if !live {
				why = "a finished tap: its recording is shown"
			}
		}
		pump.flush() // the last frames before the end
		return tapEndedMsg{why: why}
	}
}

// readTap follows a recording's lines; it returns why it stopped early ("" at the
// stream's end).
func readTap(r io.Reader, label string, pump *pump, send func(tea.Msg)) string {
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := br.ReadBytes('\n')
	var h record.Header
	if json.Unmarshal(first, &h) != nil || h.Format != record.Format {
		if err != nil && len(first) == 0 {
			return "the stream ended before its first line: " + err.Error()
		}
		return "the stream is not a recording"
	}
	pending := map[string]bool{}
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 1 {
			if c, ok := live.ParseCut(line); ok {
				pump.listen(label, wire.Event{Time: time.Now(), Kind: wire.KindSynthetic, Text: c.Text})
				return c.Text
			}
			var ev record.Event
			if json.Unmarshal(line, &ev) == nil && ev.Kind != record.KindEnd && ev.Kind != record.KindServer {
				w := ev.Wire(h.Started)
				pump.listen(label, w)
				if ev.IsMessage() {
					tapMessage(&ev, w.Time, label, pending, pump, send)
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return ""
			}
			return "the stream broke: " + err.Error()
		}
	}
}

// tapMessage finds what a message is for the views: a tools/call of the host's, the
// answer to one, a log notification.
func tapMessage(ev *record.Event, at time.Time, label string, pending map[string]bool, pump *pump, send func(tea.Msg)) {
	for _, raw := range record.Split(ev.Msg) {
		var msg record.Message
		if json.Unmarshal(raw, &msg) != nil {
			continue
		}
		switch {
		case ev.Dir == record.Send && msg.Method == "tools/call" && msg.IsRequest():
			var p struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			}
			_ = json.Unmarshal(msg.Params, &p)
			key := record.CanonicalID(msg.ID)
			pending[key] = true
			pump.flush() // the request's frame before its call
			send(tapCallMsg{key: key, tool: p.Name, args: p.Arguments, at: at})
		case ev.Dir == record.Recv && msg.IsResponse() && pending[record.CanonicalID(msg.ID)]:
			key := record.CanonicalID(msg.ID)
			delete(pending, key)
			res, err := client.ParseCallResponse(raw)
			pump.flush()
			send(tapCallMsg{key: key, at: at, done: true, result: res, err: err})
		case ev.Dir == record.Recv && msg.Method == "notifications/message":
			var p struct {
				Level  string          `json:"level"`
				Logger string          `json:"logger"`
				Data   json.RawMessage `json:"data"`
			}
			if json.Unmarshal(msg.Params, &p) == nil {
				pump.log(label, at, client.LogMessage{Level: p.Level, Logger: p.Logger, Data: p.Data})
			}
		}
	}
}

// retryTapped is e or enter on a tapped call in History: the host's call is never sent
// again to the tapped session (read-only); its tool's form opens with the host's
// arguments on mcpscope's own session to the same server, after a question naming
// both. The own session connects then (it was idle), and the form opens once its
// tools are listed (retryWhenListed).
func (m *model) retryTapped(o *outcome) tea.Cmd {
	t := m.tap
	if t == nil || t.own == "" || m.server(t.own) == nil {
		m.notice = "this call was the host's, through a tap; mcpscope has no session of its own to its server to try it again"
		return nil
	}
	what := t.a.Target.URL
	if what == "" {
		what = strings.Join(t.a.Target.Argv, " ")
	}
	if strings.Contains(what, record.Redacted) {
		m.notice = "the tap's command line holds a redacted secret, so mcpscope cannot start it on its own: add it with the secret (:add NAME -- CMD…) and load the call there"
		return nil
	}
	own, tool := t.own, o.tool.Name
	m.askQuestion(&question{
		text: fmt.Sprintf("Open %s's form with the host's arguments on mcpscope's own session %s (%s)? The tapped session is not touched; nothing is sent until you send the form. y/n",
			safe(tool), safe(own), safe(oneLine(what, 80))),
		subject: m.toolLabel(own, tool),
		yes: func() tea.Cmd {
			m.tap.retry = o
			s := m.server(own)
			if listedNow(s) {
				return m.retryWhenListed()
			}
			m.notice = "connecting mcpscope's own session " + safe(own) + " to try " + safe(tool) + " again…"
			return m.fetchTools(s, false)
		},
	})
	return nil
}

// retryWhenListed opens the tapped call's form on mcpscope's own session once that
// session listed its tools (called when a tool list arrives): the tool of that name
// as this session lists it (its own schema), the host's arguments in the form.
func (m *model) retryWhenListed() tea.Cmd {
	t := m.tap
	if t == nil || t.retry == nil {
		return nil
	}
	s := m.server(t.own)
	if !listedNow(s) {
		return nil
	}
	o := t.retry
	t.retry = nil
	if _, ok := m.toolByName(t.own, o.tool.Name); !ok {
		m.notice = safe(t.own) + " (mcpscope's own session) does not list " + safe(o.tool.Name) + "; its form cannot be opened"
		return nil
	}
	if !m.selectTool(t.own, o.tool.Name) {
		m.list.setFilter("")
		m.selectTool(t.own, o.tool.Name)
	}
	if m.form != nil {
		if err := m.form.SetValue(o.args); err != nil {
			m.notice = "could not load the host's arguments into the form: " + err.Error()
		}
	}
	m.openTab(tabTool)
	m.notice = "the host's arguments, on mcpscope's own session " + safe(t.own) + ": enter sends"
	return nil
}

// listedNow reports whether a server is connected and listed its tools on this
// connection (an idle server counts as callable, but its list is not there yet).
func listedNow(s *server) bool {
	return s != nil && s.state() == stateReady && s.snap.ToolsGen == s.gen()
}

// tapStatus is the status bar's mark of an attached tap.
func (m *model) tapStatus(st styles) string {
	t := m.tap
	if t == nil {
		return ""
	}
	who := "tap " + safe(t.a.Name)
	if t.a.Host != "" {
		who += " (" + safe(t.a.Host) + ")"
	}
	state := "live"
	switch {
	case t.ended != "" && t.a.Live:
		state = "finished"
	case !t.a.Live:
		state = "recording"
	}
	return st.warn.Render("⇄ " + who + ": someone else's session, read-only · " + state)
}
