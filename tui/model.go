package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/shquote"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/themes"
	"github.com/mcpscope/mcpscope/tui/form"
	"github.com/mcpscope/mcpscope/workbench"
)

type pane int

const (
	paneList pane = iota
	paneRight
)

type connState int

const (
	stateConnecting connState = iota
	stateReady
	stateFailed
	stateDied
	// stateLost: an HTTP session whose server no longer answers (its event stream
	// broke, a request could not reach it); a working response brings it back.
	stateLost
	// stateIdle: disconnected by --idle-disconnect or "disconnect"; the next request
	// reconnects it.
	stateIdle
)

// question is a yes/no dialog over the screen: a destructive call, quitting or
// restarting while a call runs, cancelling a long call. y runs yes; any other key
// declines and shows no.
type question struct {
	text string
	// live, when set, gives the text at each frame instead: a question that states a
	// count which can change while it is open (calls answering) must not go on
	// stating the old one.
	live func() string
	yes  func() tea.Cmd
	no   string
	// subject names the server or tool the question acts on (serverLabel,
	// toolLabel), for where it is named but not drawn; "" for quitting.
	subject string
}

// shown is the question's text as it reads now.
func (q *question) shown() string {
	if q.live != nil {
		return q.live()
	}
	return q.text
}

// Messages from the backend.
type (
	logMsg      struct{ m client.LogMessage }
	progressMsg struct {
		id int
		p  client.Progress
	}
	callDoneMsg struct {
		id      int
		result  *client.CallResult
		err     error
		elapsed time.Duration
	}
	elicitMsg struct {
		id     int64  // for askGoneMsg
		server string // the server that asks
		req    client.ElicitRequest
		reply  chan client.ElicitResponse
	}
	noticeMsg struct{ text string }
	linkedMsg struct {
		id    int
		items []linkedResource
	}
)

func (msg logMsg) handle(m *model) tea.Cmd {
	m.onLogs([]logEntry{{level: msg.m.Level, logger: msg.m.Logger, line: logLine(time.Now(), msg.m)}})
	return nil
}

func (msg progressMsg) handle(m *model) tea.Cmd {
	for _, o := range m.calls {
		if o.id == msg.id {
			p := msg.p
			o.progress = &p
		}
	}
	m.resultVer++
	return nil
}

func (msg callDoneMsg) handle(m *model) tea.Cmd { return m.onCallDone(msg) }

// An elicitation waits behind the open request, if any (asks.go).
func (msg elicitMsg) handle(m *model) tea.Cmd { return m.enqueueAsk(msg) }

func (msg noticeMsg) handle(m *model) tea.Cmd {
	m.notice = msg.text
	return nil
}

func (msg linkedMsg) handle(m *model) tea.Cmd {
	for _, o := range m.calls {
		if o.id == msg.id {
			o.linked = msg.items
		}
	}
	m.notice = fmt.Sprintf("read %s (below the result)", plural.Count(len(msg.items), "linked resource"))
	m.resultVer++
	return nil
}

// model is the root model.
type model struct {
	opts  Options
	probe *routedKey // set by the help's test only: route records where a key goes instead of acting
	keys  keyMap
	st    styles
	theme string // chosen palette name; "auto" follows the background

	width, height int

	// outWrites counts the writes to the terminal (nil without one: tests); after a
	// program had the terminal it tells whether the screen is drawn (terminalexec.go).
	outWrites func() int64

	focus pane
	tab   tab
	// dialogs are the open dialogs, the front one last (dialog.go): it gets the keys.
	dialogs overlay

	// srv is the server the screen is about: the selected tool's (the first one's
	// before a tool is selected). servers are all of them, in the workbench's order.
	srv     *server
	servers []*server
	wb      *workbench.Workbench
	wbSub   *workbench.Subscription
	cmdKeys cmdKeys
	// The Servers tab: the selected row and its detail.
	srvList   list
	srvDetail scroller
	list      toolList

	// form is the open tool's form and (formSrv, formTool, formSchema) its owner: the
	// tool, on its server, with the input schema it was built from. A form never
	// changes owner; a call from it goes to its owner and is refused when the owner's
	// server is down, the tool is gone or its schema changed (sendCallAs).
	form       *form.Form
	formTool   string
	formSrv    string // the server of formTool
	formSchema string
	formError  string
	// building is the form of a big schema being built in a command (formBuiltMsg);
	// Update starts the command once syncForm asked for it.
	building *formBuild
	// formNote says what a schema change did to what was typed (carryForm), shown
	// above the form it is about.
	formNote  string
	formNoteF *form.Form
	// forms keeps each tool's form (by name and schema), so that moving to another
	// tool and back keeps what was typed.
	forms     map[string]*form.Form
	detail    scroller
	argsCheck argsCheckedMsg // the arguments' check, while sendCall finishes
	checking  *form.Form     // a check of this form's arguments is running

	nextID    int
	calls     []*outcome // history, oldest first
	current   *outcome   // shown in the Result tab
	cancels   map[int]context.CancelFunc
	result    scroller
	resultKey struct {
		o     *outcome
		width int
		ver   int
	}
	resultVer int
	showRaw   bool // the Result tab shows the raw result
	// resultFrom is the view the Result tab was opened from (esc goes back to it).
	resultFrom tab
	toolRaw    bool // the Tool tab shows the raw tool object

	traffic     trafficView
	res         resourcesView // the Resources tab
	logs        lineView      // notifications/message, one line each
	stderr      lineView      // the server's stderr lines
	hist        histState
	changes     changesView
	lastForms   map[string]*form.Form // each tool's last form, to carry values to a new schema
	lastSchemas map[string]string     // the schema of each of lastForms

	prompts promptsView // the Prompts tab (prompts.go)
	skills  skillsView  // the Skills tab (skills.go)

	tasks tasksView // the Tasks tab (0)

	asks    *clientSide // what servers may ask, and what is declared to each
	waiting []tea.Msg   // requests (elicitMsg, samplingMsg) behind the open one

	logFilter logFilter // the Logs tab's level and logger filters (logfilter.go)

	rerun     *rerunPending // a call refused for want of scope, run again after the step-up's login
	loginKeys loginKeys
	auth      authView  // the Auth tab: every OAuth step
	lint      lintView  // the Lint tab: cost and findings of the tool lists (lint.go)
	bench     benchView // the Bench tab: the last bench of a tool (bench.go)

	notice      string
	recToggling bool // a recording is being started or stopped (recordingMsg comes)
	inline      bool // pictures are drawn inline (Kitty graphics with Unicode placeholders)
	nextImage   int
	spinner     spinner.Model
	// spinnerShown: the last frame drew the spinner (View clears it, spin sets it);
	// a tick that finds it false stops the ticking.
	spinnerShown bool
	ticking      bool // a spinner tick is scheduled
	send         func(tea.Msg)
	pump         *pump
	closeMu      sync.Mutex
	tap          *tapState // the attached tap (attach.go), nil when none
	tapStream    io.Closer // its stream, closed with the session (under closeMu)
	lastCall     time.Duration
	// startNotice is said at the start (config entries left out) and again when the
	// first server connects, which clears the notice of a one-server screen.
	startNotice string
}

func newModel(opts Options) *model {
	m := &model{
		opts:      opts,
		keys:      defaultKeys(),
		cmdKeys:   defaultCmdKeys(),
		loginKeys: defaultLoginKeys(),
		theme:     opts.Theme,
		cancels:   map[int]context.CancelFunc{},
		forms:     map[string]*form.Form{},
		spinner:   spinner.New(spinner.WithSpinner(spinner.MiniDot)),
		width:     80,
		height:    24,
	}
	m.traffic.follow = true
	share := splitKeep(opts.Keep)
	m.traffic.keep, m.logs.keep, m.stderr.keep = share.traffic, share.logs, share.stderr
	m.inline = inlineSupported
	p, ok := themes.ByName(opts.Theme)
	if !ok {
		p = themes.Dark
		m.theme = "auto"
	}
	m.st = newStyles(p)
	m.srv = &server{display: opts.Name}
	m.asks = newClientSide(opts)
	m.notice = refusedNotice(opts.Refused)
	m.startNotice = m.notice
	if opts.Browse != nil {
		m.loadRecording(opts.Browse)
	}
	m.attachStart()
	return m
}

func (m *model) Init() tea.Cmd {
	m.ticking = true
	cmds := []tea.Cmd{m.connect(), m.spinner.Tick}
	if m.theme == "auto" {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	return tea.Batch(cmds...)
}

// interruptCalls ends the server's running calls because the server is going away
// (a restart, the watch's restart after an edit, a disconnect, a remove): each says
// why in Result and History (why: "the server was restarted before it answered"),
// not that the user cancelled it, and not that notifications/cancelled was sent:
// the server is stopped before it could be. It returns the tools whose calls ended.
func (m *model) interruptCalls(server, why string) []string {
	var names []string
	for _, o := range m.calls {
		if !o.running || o.server != server {
			continue
		}
		o.interrupted = why
		o.err = errors.New("interrupted: " + why)
		if c, ok := m.cancels[o.id]; ok {
			c()
		}
		o.cancelled = true
		names = append(names, o.tool.Name)
		m.resultVer++
	}
	if len(names) > 0 {
		m.notice = "the running call of " + safe(strings.Join(names, ", ")) + " was interrupted: " + why
	}
	return names
}

// typing reports whether keys are text for a field (so q and digits are not commands).
func (m *model) typing() bool {
	return m.dialogs.typing() || m.list.filtering || m.viewTyping() // each declares it (dialog.go, views.go)
}

// Update handles a message: update routes it to the part of the screen it belongs
// to, then what must follow every message runs, in this order, because each step
// reads what the ones before it changed:
//  1. the tab on screen lists what it lacks (a tab shown for the first time, or
//     after a reconnect): any message may have switched the tab or reconnected;
//  2. a form that syncForm asked to be built (a big schema) starts building: any
//     message that moved the selection or changed a schema may have asked;
//  3. the spinner starts ticking if something now runs (a connect, a call): last,
//     as anything before may have started it. It ticks only while something runs,
//     so an idle workbench does no work at all (the tick stops itself in onForeign).
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	// A view shown for the first time (or after a reconnect) lists what it shows.
	cmd = tea.Batch(cmd, m.shownTab(), m.ensureCosts(), m.ensurePins())
	if b := m.building; b != nil && !b.started {
		b.started = true
		cmd = tea.Batch(cmd, b.cmd())
	}
	if _, tick := msg.(spinner.TickMsg); m.busy() && !m.ticking && !tick {
		// Not on the tick that just stopped itself (the spinner hidden): its Tick
		// answers at once, which would spin without a pause.
		m.ticking = true
		cmd = tea.Batch(cmd, m.spinner.Tick)
	}
	return m, cmd
}

// spin is the spinner's frame for a view to draw; it notes that the frame being drawn
// shows the spinner, which keeps it ticking (a tick redraws the whole screen, and a
// tick no frame shows was a render for nothing: 3% of a core, and an idle workbench
// that never counted as idle, while a dialog stood in front of a running call).
func (m *model) spin() string {
	m.spinnerShown = true
	return m.spinner.View()
}

// busy reports whether something on screen animates: a connect or a running call.
func (m *model) busy() bool {
	return m.srv.state() == stateConnecting || len(m.cancels) > 0 || (m.current != nil && m.current.running) ||
		(m.prompts.open != nil && m.prompts.open.running) || m.bench.running
}

// msgHandler is a message of this package: it carries its handler, written beside
// the message's type in the file of the part of the screen it belongs to (a view,
// a dialog, the workbench side), so that update routes it without a case of its
// own and a new message is handled where its view is. TestEveryMessageHasItsHandler
// fails on a message type without one (update would drop it without a word).
type msgHandler interface {
	handle(m *model) tea.Cmd
}

// update routes one message to the part that handles it. Nothing runs before it:
// what must run after every message (the tab's lazy fetch, a form's build, the
// spinner) is in Update.
func (m *model) update(msg tea.Msg) tea.Cmd {
	if h, ok := msg.(msgHandler); ok {
		return h.handle(m)
	}
	return m.onForeign(msg)
}

// onForeign takes the messages of other packages, which cannot carry a handle
// method: the terminal's (keys, paste, mouse wheel, size, background), the
// spinner's tick and the form's own. Only such types belong here; a message of
// this package gets a handle method.
func (m *model) onForeign(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return m.onKey(msg)
	case tea.PasteMsg:
		if d := m.dialogs.front(); d != nil {
			return d.update(m, msg) // the front dialog gets every paste, as every key
		}
		return m.forwardToField(msg)
	case tea.MouseWheelMsg:
		delta := 3
		if msg.Button == tea.MouseWheelUp {
			delta = -3
		}
		// The wheel scrolls the pane under the pointer, whichever has the keys.
		m.scrollPane(msg.X < m.listWidth(), delta)
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.resultVer++
	case tea.BackgroundColorMsg:
		if m.theme == "auto" && !msg.IsDark() {
			m.st = newStyles(themes.Light)
			m.resultVer++
		}
	case spinner.TickMsg:
		if !m.busy() || !m.spinnerShown {
			// Stop: nothing runs, or nothing on screen shows that it does (a dialog
			// in front of the running call). Update starts it again after the next
			// message if something runs, and this check lets it go on only if the
			// frame that message drew shows the spinner.
			m.ticking = false
			return nil
		}
		var cmd tea.Cmd
		m.spinner, cmd = m.spinner.Update(msg)
		return cmd
	case form.Msg:
		return form.Handle(msg)
	}
	return nil
}

func loggerPrefix(l string) string {
	if l == "" {
		return ""
	}
	return "[" + l + "] "
}

func (m *model) onWire(events []wire.Event, servers []string) {
	if m.labelled() {
		m.traffic.addFrom(events, servers)
	} else {
		m.traffic.add(events)
	}
	for i, e := range events {
		if e.Kind != wire.KindStderr {
			continue
		}
		line := safeText(string(e.Data))
		if i < len(servers) && m.labelled() {
			m.stderr.addFrom(padName(servers[i], m.nameWidth())+" │ "+line, servers[i])
			continue
		}
		m.stderr.add(line)
	}
	m.refreshHeard(servers)
}

func (m *model) onLogs(logs []logEntry) {
	several, width := m.labelled(), m.nameWidth()
	var from []string
	for _, l := range logs {
		if several && l.server != "" {
			m.addLogFrom(l.level, l.logger, padName(l.server, width)+" │ "+l.line, l.server)
		} else {
			m.addLog(l.level, l.logger, l.line) // with its level and logger (logfilter.go)
		}
		if l.server != "" && (len(from) == 0 || from[len(from)-1] != l.server) {
			from = append(from, l.server)
		}
	}
	m.refreshHeard(from)
}

// refreshHeard takes anew the snapshot of each server a batch of frames or logs
// came from, once per batch: the workbench kept what they said of it (its stderr
// lines, an HTTP server that stopped answering, when it was heard) before they
// reached the pump.
func (m *model) refreshHeard(servers []string) {
	var done []string
	for _, name := range servers {
		if slices.Contains(done, name) {
			continue
		}
		done = append(done, name)
		m.refresh(m.server(name))
	}
}

func (m *model) onCallDone(msg callDoneMsg) tea.Cmd {
	defer func() { m.resultVer++ }()
	delete(m.cancels, msg.id)
	for _, o := range m.calls {
		if o.id != msg.id {
			continue
		}
		o.running = false
		o.elapsed = msg.elapsed
		if s := m.server(o.server); s != nil {
			m.refresh(s) // heard from (the Servers tab)
			if s.wokeForCall && m.notice == "" {
				// Said with the result too: the notice of the reconnect itself may have
				// come before the call cleared the notices of earlier calls.
				m.notice = s.name + " was idle and is connected again for this request"
			}
			s.wokeForCall = false
		}
		if o.cancelled {
			if msg.result != nil {
				o.late, o.result, o.err = true, msg.result, nil
			} else if o.interrupted == "" {
				o.err = msg.err
			}
		} else {
			o.result, o.err = msg.result, msg.err
		}
		var nse *workbench.NeedsScopeError
		if errors.As(msg.err, &nse) {
			o.stepUp = nse.Scope
		}
		check := o.checkCmd()
		m.lastCall = msg.elapsed
		return tea.Batch(check, m.sendPictures(o), m.storeCall(o))
	}
	return nil
}

// syncForm builds the form for the selected tool when the selection changed, or its
// schema did (a list_changed, a restart with an edit): the form of the old schema is
// never kept under the new one.
func (m *model) syncForm() {
	if m.list.hasGhost && !m.list.onGhost() {
		m.refreshTools() // the user moved off a gone tool: it leaves the list
	}
	t, ok := m.list.selected()
	if !ok {
		if r, on := m.list.cursorRow(); on && r.tool < 0 {
			// A server's header: the screen is about that server (its state on the
			// status bar, its failure in the right pane, ctrl+r restarts it), not
			// about the server of the tool selected before.
			if s := m.server(r.header); s != nil {
				m.srv = s
			}
		}
		m.form, m.formTool, m.formSrv, m.formSchema = nil, "", "", ""
		return
	}
	srv := m.list.selectedServer()
	if s := m.server(srv); s != nil {
		m.srv = s // the screen is about the selected tool's server
	}
	if m.list.onGhost() && t.Name == m.formTool && srv == m.formSrv {
		return // the tool is gone: its form stays as it was, and sends nothing
	}
	schema := t.InputSchema
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	cacheKey := formKey(srv, t.Name, schema)
	if t.Name == m.formTool && srv == m.formSrv && string(schema) == m.formSchema && (m.form != nil || m.formError != "" || m.building != nil && m.building.key == cacheKey) {
		return
	}
	m.formTool, m.formSrv, m.formSchema = t.Name, srv, string(schema)
	m.formError = ""
	m.detail.offset = 0
	// A tool visited before gets its form back as it was left, unless its schema
	// changed since.
	if f := m.forms[cacheKey]; f != nil {
		m.form = f
		m.carryForm(srv, t.Name, schema, f)
		return
	}
	if len(schema) > buildAtOnce {
		// The server's schema is big: its form is built in a command (Update starts
		// it), and the tool's detail shows meanwhile; the keys go on working.
		m.form = nil
		m.building = &formBuild{key: cacheKey, srv: srv, tool: t.Name, schema: schema}
		return
	}
	f, err := form.New(schema)
	if err != nil {
		m.form, m.formError = nil, err.Error()
	} else {
		f.SetStyles(m.st.form)
		m.form = f
		m.forms[cacheKey] = f
		m.carryForm(srv, t.Name, schema, f) // an edit changed the schema: keep what still fits
	}
}

// formBuild is a tool's form built from a big input schema in a command.
type formBuild struct {
	key, srv, tool string
	schema         json.RawMessage
	started        bool
}

// formBuiltMsg is a big schema's form (or why there is none).
type formBuiltMsg struct {
	b    *formBuild
	form *form.Form
	err  error
}

func (msg formBuiltMsg) handle(m *model) tea.Cmd {
	m.onFormBuilt(msg)
	return nil
}

func (b *formBuild) cmd() tea.Cmd {
	return func() tea.Msg {
		f, err := form.New(b.schema)
		return formBuiltMsg{b: b, form: f, err: err}
	}
}

// onFormBuilt keeps a big schema's form for its tool, and shows it if the tool is
// still the form's owner with that schema (a form never changes owner).
func (m *model) onFormBuilt(msg formBuiltMsg) {
	b := msg.b
	if m.building == b {
		m.building = nil
	}
	if msg.err == nil {
		msg.form.SetStyles(m.st.form)
		m.forms[b.key] = msg.form
	}
	if b.srv != m.formSrv || b.tool != m.formTool || string(b.schema) != m.formSchema || m.form != nil {
		return
	}
	if msg.err != nil {
		m.formError = msg.err.Error()
		return
	}
	m.form = msg.form
	m.carryForm(b.srv, b.tool, b.schema, msg.form)
}

// ownerKind says why a call from the form cannot go to its owner now (ownerOK: it can).
// Callers decide by it, never by the wording of the text.
type ownerKind int

const (
	ownerOK            ownerKind = iota
	ownerDown                    // the server cannot take a call (stopped, failed, restarting)
	ownerGone                    // the server no longer lists the tool
	ownerRefused                 // the server lists it, but mcpscope refused it (why says why)
	ownerSchemaChanged           // the tool's schema is not the form's: the form is rebuilt
)

// ownerProblem is why a call from the form cannot go: its kind, and the text the
// notice shows (safe).
type ownerProblem struct {
	kind ownerKind
	text string
}

// formOwnerTool is the form owner's tool as its server lists it now, or why a call
// from the form cannot go.
func (m *model) formOwnerTool() (client.Tool, *server, ownerProblem) {
	s := m.server(m.formSrv)
	if !s.callable() {
		return client.Tool{}, s, ownerProblem{ownerDown, m.notConnected(s)}
	}
	name := m.formTool
	if m.several() {
		name = m.formSrv + "/" + m.formTool
	}
	i := slices.IndexFunc(s.tools(), func(t client.Tool) bool { return t.Name == m.formTool })
	if i < 0 {
		if j := slices.IndexFunc(s.refused(), func(r client.RefusedTool) bool { return r.Name == m.formTool }); j >= 0 {
			// Still listed, but not offered: why, as --inspect and call say it.
			return client.Tool{}, s, ownerProblem{ownerRefused, safe(name) + " is listed by " + safe(s.name) + " but mcpscope refused it: " + safe(s.refused()[j].Why) + "; nothing was sent"}
		}
		return client.Tool{}, s, ownerProblem{ownerGone, safe(name) + " is no longer in " + safe(s.name) + "'s tool list; nothing was sent"}
	}
	t := s.tools()[i]
	schema := t.InputSchema
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	if string(schema) != m.formSchema {
		return client.Tool{}, s, ownerProblem{ownerSchemaChanged, safe(name) + "'s input schema changed; its form is rebuilt, nothing was sent"}
	}
	return t, s, ownerProblem{}
}

func (m *model) onKey(k tea.KeyPressMsg) tea.Cmd {
	if key.Matches(k, m.keys.ForceQuit) {
		return tea.Quit
	}
	if d := m.dialogs.front(); d != nil {
		return d.update(m, k) // the front dialog gets every key
	}
	if (key.Matches(k, m.keys.CmdLine) && !m.typing()) || key.Matches(k, m.keys.CmdPalette) {
		m.openDialog(&cmdLine{})
		return nil
	}
	if key.Matches(k, m.keys.HelpAnywhere) {
		m.openDialog(&helpScreen{})
		return nil
	}
	if m.list.filtering {
		return m.filterKeys().route(m, k)
	}
	if key.Matches(k, m.keys.Record) && !m.typing() {
		return m.toggleRecording()
	}
	if key.Matches(k, m.keys.Restart) {
		return m.restart()
	}
	if !m.typing() {
		switch {
		case key.Matches(k, m.keys.Quit):
			return m.quit()
		case key.Matches(k, m.keys.Help):
			m.openDialog(&helpScreen{})
			return nil
		case key.Matches(k, tabKeys()...):
			t, _ := tabOf(k)
			m.openTab(t)
			return m.enterTab()
		case key.Matches(k, m.keys.Login):
			if name := m.loginTarget(); name != "" {
				return m.startLogin(name, nil)
			}
			m.notice = "no server here needs a login (:login NAME logs in any OAuth server)"
			return nil
		case key.Matches(k, m.keys.NextTab):
			m.switchTab((m.tab + 1) % tabCount)
			return m.enterTab()
		case key.Matches(k, m.keys.PrevTab):
			m.switchTab((m.tab + tabCount - 1) % tabCount)
			return m.enterTab()
		}
	}
	switch {
	case key.Matches(k, m.keys.NextPane), key.Matches(k, m.keys.PrevPane):
		if m.viewTakesTab(k) {
			return m.viewKeys().route(m, k) // tab moves between the view's fields (views.go)
		}
		if m.focus == paneList {
			m.focus = paneRight
		} else {
			m.focus = paneList
		}
		return nil
	}
	// The focused view's table: its routing is what its help and hint list.
	return m.viewKeys().route(m, k)
}

// openTab shows a view and gives it the keyboard (its digit, a command), unless
// the view would then take keys as text: opening a view never moves the keyboard
// into a text field by itself, or the digits listed under "everywhere" would type
// there. The Tool view is the list's selected tool, so the list keeps the keyboard
// there, whether the form is built yet or not (a form built later, as a server's
// tools arrive, must not come up under the keys); enter or tab goes into the form,
// as its hint says. An open prompt's or template's fields likewise wait for tab.
func (m *model) openTab(t tab) {
	if t == tabResult && m.tab != tabResult {
		m.resultFrom = m.tab
	}
	m.tab, m.focus = t, paneRight
	if t == tabTool || m.typing() {
		m.focus = paneList
	}
}

// toResult shows the Result tab, remembering the view it was opened from: esc there
// goes back to it (the Tool view after a call from the form, History after a row).
func (m *model) toResult() {
	if m.tab != tabResult {
		m.resultFrom = m.tab
	}
	m.tab = tabResult
}

// switchTab is ]/[: the keyboard stays where it is, but out of a text field, for the
// same reasons as openTab.
func (m *model) switchTab(t tab) {
	m.tab = t
	if t == tabTool || m.typing() {
		m.focus = paneList
	}
}

// quit ends the session (q, :q, :quit); with calls running it asks first, naming them.
func (m *model) quit() tea.Cmd {
	if m.running() > 0 {
		// The question follows the calls while it is open: one that answers meanwhile
		// is no longer said to run.
		m.askQuestion(&question{
			live: func() string {
				if n := m.running(); n > 0 {
					return fmt.Sprintf("%s still running (%s). Quit anyway (%s cancelled)? y/n", plural.Count(n, "call"), m.runningNames(), map[bool]string{true: "it is", false: "they are"}[n == 1])
				}
				return "No call is running any more. Quit? y/n"
			},
			yes: func() tea.Cmd { return tea.Quit },
			no:  "not quitting",
		})
		return nil
	}
	return tea.Quit
}

// running counts the calls still waiting for their answer.
func (m *model) running() int {
	n := 0
	for _, o := range m.calls {
		if o.running {
			n++
		}
	}
	return n
}

// restart reconnects the server ctrl+r is about (restartTarget); a live server
// (which may be hung, or busy with calls) is restarted only after a y to a question
// that names it.
func (m *model) restart() tea.Cmd {
	s := m.restartTarget()
	if s == nil {
		return nil
	}
	do := func() tea.Cmd {
		m.notice = "restarting " + m.serverLabel(s) + "…"
		return m.restartServer(s)
	}
	if s.state() != stateReady {
		return do()
	}
	live := func() string {
		if n := m.runningOn(s.name); n > 0 {
			return fmt.Sprintf("Restart %s? %s interrupted. y/n", m.serverLabel(s), map[bool]string{true: "Its running call is", false: fmt.Sprintf("Its %d running calls are", n)}[n == 1])
		}
		return fmt.Sprintf("Restart %s? y/n", m.serverLabel(s))
	}
	m.askQuestion(&question{live: live, yes: do, no: "not restarted", subject: m.serverLabel(s)})
	return nil
}

// restartTarget is the server the screen points at for ctrl+r: the highlighted row
// in the Servers view, the shown call's server in Result (its hint says ctrl+r
// restarts a server that hangs), else the selected tool's server (m.srv).
func (m *model) restartTarget() *server {
	if m.focus == paneRight {
		switch m.tab {
		case tabServers:
			if c := m.srvList.cursor; c >= 0 && c < len(m.servers) {
				return m.servers[c]
			}
		case tabResult:
			if o := m.current; o != nil {
				if s := m.server(o.server); s != nil {
					return s
				}
			}
		}
	}
	return m.srv
}

// serverLabel names a server in a question or a notice: its session name with
// several servers; with one, as the status bar names it (serverInfo, else the target).
func (m *model) serverLabel(s *server) string {
	if m.several() || s != m.srv {
		return safe(s.name)
	}
	return safe(m.displayName())
}

// toolLabel names a tool in a question: server/tool with several servers, as the
// tool list shows it.
func (m *model) toolLabel(server, tool string) string {
	if m.several() {
		return safe(server + "/" + tool)
	}
	return safe(tool)
}

// runningNames lists the running calls by tool (at most three, then how many more),
// for the question before quitting.
func (m *model) runningNames() string {
	var names []string
	for _, o := range m.calls {
		if o.running {
			names = append(names, m.toolLabel(o.server, o.tool.Name))
		}
	}
	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("%d more", len(names)-3))
	}
	return strings.Join(names, ", ")
}

// runningOn counts the calls to one server still waiting for their answer.
func (m *model) runningOn(server string) int {
	n := 0
	for _, o := range m.calls {
		if o.running && o.server == server {
			n++
		}
	}
	return n
}

// formEdgeTab lets tab leave the form only when the form has nothing to move to; the
// form's own tab moves between fields. shift+tab on the list side always returns.
func (m *model) formEdgeTab(k tea.KeyPressMsg) bool {
	return key.Matches(k, m.keys.PrevPane) && m.form.Focused() == ""
}

// listKeys is the tool list's table (the left pane has the keyboard).
func (m *model) listKeys() keyTable {
	k, l := m.keys, &m.list
	open := relabel(k.Open, "open the tool")
	if m.several() {
		open = relabel(k.Open, "open the tool, fold a server")
	}
	return keyTable{
		name: "Tool list",
		groups: [][]binding{
			{
				bind(open, m.openSelectedTool),
				// A new search, as / does in less and vim.
				bind(k.Filter, m.synced(func() { l.setFilter(""); l.filtering = true })),
				bind(k.ClearFilter, m.synced(func() { l.setFilter("") })).unless(func() string {
					if l.filter == "" {
						return "no filter" // short: the help shows it after "clear filter"
					}
					return ""
				}),
				bind(k.Refetch, func() tea.Cmd { m.notice = refetchingTools; return m.fetchAllTools() }),
				bind(relabel(k.ShowRaw, "raw JSON of the tool"), act(func() { m.toolRaw = !m.toolRaw; m.tab = tabTool })),
				bind(k.OpenChanges, m.openChanges),
				bind(k.Bench, m.askBench),
			},
			k.moves(func(kp tea.KeyPressMsg) tea.Cmd {
				l.keyMove(kp, k, len(l.rows))
				l.moved = true
				m.syncForm()
				l.unmarkSelected() // looked at
				return nil
			}),
			m.detailKeys(func() string {
				if m.tab != tabTool {
					return "the tool detail is not shown (1 shows it)"
				}
				return ""
			}),
		},
		rest: func(tea.KeyPressMsg) tea.Cmd { m.syncForm(); return nil },
	}
}

// synced is a handler that changes the tool list, after which the form follows the
// selection.
func (m *model) synced(f func()) func() tea.Cmd {
	return func() tea.Cmd { f(); m.syncForm(); return nil }
}

// openSelectedTool is enter in the list: a server's header folds or opens its tools;
// a tool gets the keyboard in its form.
func (m *model) openSelectedTool() tea.Cmd {
	if m.list.toggleHeader() {
		return nil
	}
	m.syncForm()
	if _, ok := m.list.selected(); !ok {
		// The keys stay with the list: a tool that appears later (a server still
		// connecting) must not get a form under keys typed for nothing.
		m.notice = "no tool to open: none matches the filter (esc clears it)"
		if len(m.list.tools) == 0 {
			m.notice = "no tool to open: no server has listed tools yet"
		}
		return nil
	}
	m.list.moved = true // the user chose this tool: a list arriving later keeps it
	m.focus, m.tab = paneRight, tabTool
	return nil
}

// detailKeys scroll the tool detail from the keyboard whether the list or the form
// has the focus (with shift, so that the form keeps the plain keys); off says why
// they do nothing (another tab is shown), nil when they always work.
func (m *model) detailKeys(off func() string) []binding {
	k := m.keys
	scroll := func(kp tea.KeyPressMsg) tea.Cmd {
		step := 1
		if key.Matches(kp, k.DetailPageUp, k.DetailPageDown) {
			step = max(m.height/2, 1)
		}
		if key.Matches(kp, k.DetailUp, k.DetailPageUp) {
			step = -step
		}
		m.detail.scroll(step)
		return nil
	}
	out := bindAll("the tool detail", []key.Binding{k.DetailUp, k.DetailDown, k.DetailPageUp, k.DetailPageDown}, scroll)
	for i := range out {
		out[i].off = off
	}
	return out
}

// filterKeys is the tool filter's table (the field under the list): text typed goes
// into the filter.
func (m *model) filterKeys() keyTable {
	k, l := m.keys, &m.list
	return keyTable{
		name: "Tool filter",
		groups: [][]binding{{
			bind(k.FilterDone, m.synced(func() { l.filtering = false })),
			bind(relabel(k.ClearFilter, "clear the filter"), m.synced(func() { l.filtering = false; l.setFilter("") })),
			bind(k.FilterUp, m.synced(func() { l.move(-1) })),
			bind(k.FilterDown, m.synced(func() { l.move(1) })),
			bind(k.Erase, m.synced(func() {
				if r := []rune(l.filter); len(r) > 0 {
					l.setFilter(string(r[:len(r)-1]))
				}
			})),
		}},
		rest: func(kp tea.KeyPressMsg) tea.Cmd {
			if kp.Text != "" {
				l.setFilter(l.filter + kp.Text)
			}
			m.syncForm()
			return nil
		},
	}
}

// toolKeys is the Tool view's table: the detail alone (no form, or v showed the raw
// JSON), the arguments form, or the form as raw JSON. The form's own keys go to the
// form (forwardToField), which decides what each does in the focused field.
func (m *model) toolKeys() keyTable {
	k := m.keys
	back := bind(k.Back, act(func() { m.focus = paneList }))
	if m.form == nil || m.toolRaw {
		// Only the detail is shown: the usual keys scroll it; v returns to the form.
		return keyTable{name: "Tool detail", groups: [][]binding{
			{bind(relabel(k.ShowRaw, "raw JSON ↔ summary"), act(func() { m.toolRaw = !m.toolRaw })), back},
			k.moves(func(kp tea.KeyPressMsg) tea.Cmd { m.detail.scroll(scrollDelta(kp, k, m.height)); return nil }),
			m.detailKeys(nil),
		}}
	}
	t, ok := m.list.selected()
	optional := ok && t.TaskSupport() == "optional"
	main := []binding{
		bind(k.Send, func() tea.Cmd { return m.sendCall(false) }),
		// ctrl+g is listed where the tool may run as a task; elsewhere it says why not.
		bind(k.AsTask, func() tea.Cmd { return m.sendCallAs(false, true) }).hide(!optional),
		bind(k.SendAnyway, func() tea.Cmd { return m.sendCall(true) }),
		bind(k.RawJSON, act(m.form.ToggleRaw)),
		bind(k.Editor, m.openEditor),
		bind(k.BenchForm, m.askBench),
		back,
	}
	field := func(kp tea.KeyPressMsg) tea.Cmd { return m.forwardToField(kp) }
	if m.form.Raw() {
		// The text area edits the JSON as text, with its own keys.
		return keyTable{name: "Arguments (raw JSON)", groups: [][]binding{main, bindAll("the JSON text", m.form.RawKeys(), field), m.detailKeys(nil)}, rest: field}
	}
	groups := [][]binding{main}
	for _, g := range m.form.Keys().FullHelp() {
		groups = append(groups, bindAll("the form", g, field))
	}
	return keyTable{name: "Arguments form", groups: append(groups, m.detailKeys(nil)), rest: field}
}

func (m *model) forwardToField(msg tea.Msg) tea.Cmd {
	if m.form != nil && m.focus == paneRight && m.tab == tabTool {
		return m.form.Update(msg)
	}
	if p, ok := msg.(tea.PasteMsg); ok && m.focus == paneRight && m.tab == tabPrompts && m.prompts.open != nil {
		return m.prompts.open.form.insert(p.Content)
	}
	if m.list.filtering {
		if p, ok := msg.(tea.PasteMsg); ok {
			m.list.setFilter(m.list.filter + p.Content)
		}
	}
	return nil
}

// sendCall validates the form and starts the call (asking first for destructive tools).
func (m *model) sendCall(anyway bool) tea.Cmd { return m.sendCallAs(anyway, false) }

// sendCallAs is sendCall; asTask calls a tool whose taskSupport is optional as a
// task (one whose taskSupport is required always is).
func (m *model) sendCallAs(anyway, asTask bool) tea.Cmd {
	if m.form == nil || m.formTool == "" {
		return nil
	}
	// The call goes to the form's owner, as its server lists it now: not to whatever
	// row the cursor is on, and never with a schema the form was not built from.
	t, srv, why := m.formOwnerTool()
	if why.kind != ownerOK {
		m.notice = why.text
		if why.kind == ownerSchemaChanged {
			m.syncForm()
		}
		return nil
	}
	if asTask && t.TaskSupport() == "forbidden" {
		m.notice = safe(t.Name) + " does not support tasks (execution.taskSupport); enter calls it"
		return nil
	}
	args, err := m.form.Value()
	if err != nil && (!anyway || args == nil) {
		m.notice = "arguments: " + err.Error() + "; alt+enter sends them as typed"
		return nil
	}
	if m.argsCheck.form != m.form {
		// A costly check runs in a command, off the UI goroutine, and its answer
		// comes back here (argsCheckedMsg); a cheap one is done at once.
		errs, ok := m.form.QuickCheck()
		if !ok {
			return m.checkArgs(anyway, asTask)
		}
		m.argsCheck = argsCheckedMsg{form: m.form, errs: errs}
	}
	errs := m.argsCheck.errs
	m.argsCheck = argsCheckedMsg{}
	if len(errs) > 0 && !anyway {
		m.notice = fmt.Sprintf("%s shown beside the fields; alt+enter sends anyway", plural.Count(len(errs), "argument error"))
		return nil
	}
	return m.requestCallAs(srv.name, t, args, asTask)
}

// requestCall is the one way a call starts (the form, History's re-run): it asks
// first when the server marked the tool destructive. The spec's default for an
// unannotated tool is "destructive" too, but asking before every call of every
// unannotated tool would train users to answer yes without reading.
func (m *model) requestCall(server string, t client.Tool, args json.RawMessage) tea.Cmd {
	return m.requestCallAs(server, t, args, false)
}

func (m *model) requestCallAs(server string, t client.Tool, args json.RawMessage, asTask bool) tea.Cmd {
	srv := m.server(server)
	if !srv.callable() {
		m.notice = m.notConnected(srv)
		return nil
	}
	a := t.Annotations
	if !m.opts.NoConfirm && !a.ReadOnly.Value && a.Destructive.Set && a.Destructive.Value {
		name := t.Name
		if m.several() {
			name = server + "/" + t.Name
		}
		m.askQuestion(&question{
			subject: safe(name),
			text:    fmt.Sprintf("%s is destructive. Call it with %s? y/n", name, oneLine(string(args), 80)),
			yes: func() tea.Cmd {
				// The server may have gone down while the question was open.
				if s := m.server(server); !s.callable() {
					m.notice = m.notConnected(s)
					return nil
				}
				return m.launch(server, t, args, asTask)
			},
			no: "call not sent",
		})
		return nil
	}
	return m.launch(server, t, args, asTask)
}

// launch starts a call, as a task when asked or when the tool requires it.
func (m *model) launch(server string, t client.Tool, args json.RawMessage, asTask bool) tea.Cmd {
	if asTask || t.TaskSupport() == "required" {
		return m.startTask(server, t, args)
	}
	return m.startCall(server, t, args)
}

func (m *model) startCall(server string, t client.Tool, args json.RawMessage) tea.Cmd {
	if m.wb == nil || m.server(server) == nil {
		return nil
	}
	m.nextID++
	o := &outcome{id: m.nextID, server: server, tool: t, args: args, started: time.Now(), running: true,
		mocked: m.opts.Browse != nil}
	m.calls = append(m.calls, o)
	m.current = o
	m.notice = "" // a notice about an earlier call would be stale
	m.toResult()
	m.result.top() // a new result opens at its top, whatever the last one did
	m.resultVer++
	ctx, cancel := context.WithCancel(context.Background())
	m.cancels[o.id] = cancel
	wb, id, send := m.wb, o.id, m.send
	return func() tea.Msg {
		start := time.Now()
		r, err := wb.Call(ctx, workbench.ToolID{Server: server, Tool: t.Name}, args, client.CallOptions{OnProgress: func(p client.Progress) {
			send(progressMsg{id: id, p: p})
		}})
		return callDoneMsg{id: id, result: r, err: err, elapsed: time.Since(start)}
	}
}

func (m *model) cancelCall(o *outcome) {
	if c, ok := m.cancels[o.id]; ok {
		c()
		o.cancelled = true
		m.notice = "cancelled; notifications/cancelled sent"
		m.resultVer++
	}
}

// cancelAfter is how long a call runs before cancelling it asks first: a call that
// ran that long may have done work worth keeping.
const cancelAfter = 3 * time.Second

// resultKeys is the Result tab's table; a running call's cancel comes first.
func (m *model) resultKeys() keyTable {
	k := m.keys
	noCall := func() string {
		if m.current == nil {
			return "no call shown"
		}
		return ""
	}
	cancel := bind(k.Cancel, m.cancelCurrent).unless(func() string {
		if o := m.current; o == nil || !o.running {
			return "no call is running"
		} else if o.isTapped() {
			return "the host's call, through a tap: read-only"
		}
		return ""
	})
	keys := []binding{
		bind(k.ShowRaw, act(func() { m.showRaw = !m.showRaw; m.resultVer++ })),
		bind(k.CopyResult, func() tea.Cmd {
			m.notice = "result copied (OSC 52)"
			return tea.SetClipboard(resultText(m.current.result))
		}).unless(func() string {
			if o := m.current; o == nil || o.result == nil {
				return "no result to copy"
			}
			return ""
		}),
		bind(k.SaveResult, m.saveResult),
		bind(k.CopyArgs, func() tea.Cmd {
			m.notice = "arguments copied (OSC 52)"
			return tea.SetClipboard(string(m.current.args))
		}).unless(noCall),
		bind(k.CopyCmd, func() tea.Cmd {
			m.notice = "command line copied (OSC 52)"
			return tea.SetClipboard(callCommand(m.current, m.targetOf(m.current.server)))
		}).unless(noCall),
		bind(k.ReadResource, m.readLinks),
		// Back where the user came from, as esc leaves the form, a frame or a read;
		// openTab keeps the keyboard out of a form there.
		bind(relabel(k.Back, "back (where the call came from)"), act(func() { m.openTab(m.resultFrom) })),
		cancel,
	}
	if m.current != nil && m.current.running {
		keys = append([]binding{cancel}, keys[:len(keys)-1]...)
	}
	return keyTable{name: "Result", groups: [][]binding{keys, k.moves(m.onScrollKey)}}
}

// cancelCurrent is x in Result: it cancels the shown call, asking first when it has
// run long enough to have done work worth keeping.
func (m *model) cancelCurrent() tea.Cmd {
	o := m.current
	if ran := time.Since(o.started); ran > cancelAfter {
		m.askQuestion(&question{
			subject: m.toolLabel(o.server, o.tool.Name),
			text:    fmt.Sprintf("Cancel %s? It has run for %s. y/n", m.toolLabel(o.server, o.tool.Name), ran.Round(time.Second)),
			yes:     func() tea.Cmd { m.cancelCall(o); return nil },
			no:      "the call goes on",
		})
		return nil
	}
	m.cancelCall(o)
	return nil
}

// toggleRecording starts or stops recording the session to a file. Opening or
// closing the file runs in a command (a slow disk never holds the screen); its
// answer comes back as a recordingMsg.
func (m *model) toggleRecording() tea.Cmd {
	if m.opts.ToggleRecording == nil {
		m.notice = "recording is not available here"
		return nil
	}
	if m.recToggling {
		m.notice = "recording: still switching, a moment"
		return nil
	}
	m.recToggling = true
	if m.opts.Recording != "" {
		m.notice = "stopping the recording…"
	} else {
		m.notice = "starting a recording…"
	}
	toggle := m.opts.ToggleRecording
	return func() tea.Msg {
		path, err := toggle()
		return recordingMsg{path: path, err: err}
	}
}

// recordingMsg is what ToggleRecording answered: the new file, or "" once stopped.
type recordingMsg struct {
	path string
	err  error
}

func (msg recordingMsg) handle(m *model) tea.Cmd {
	m.onRecording(msg)
	return nil
}

func (m *model) onRecording(msg recordingMsg) {
	m.recToggling = false
	switch {
	case msg.err != nil:
		m.notice = "recording: " + msg.err.Error()
	case msg.path == "":
		m.notice = "recording stopped: " + m.opts.Recording
		m.opts.Recording = ""
	default:
		m.opts.Recording = msg.path
		m.notice = "recording to " + msg.path
	}
}

// readLinks reads every resource_link of the shown result (resources/read).
func (m *model) readLinks() tea.Cmd {
	o := m.current
	if o == nil || o.result == nil || m.wb == nil {
		return nil
	}
	var uris []string
	for _, c := range o.result.Content {
		if c.Type == "resource_link" && c.URI != "" {
			uris = append(uris, c.URI)
		}
	}
	if len(uris) == 0 {
		m.notice = "this result has no resource_link to read"
		return nil
	}
	wb, server, id := m.wb, o.server, o.id
	m.notice = "reading linked resources…"
	return sessionCmd(wb, server, 30*time.Second, func(ctx context.Context, s *client.Session) tea.Msg {
		var items []linkedResource
		for _, u := range uris {
			c, err := s.ReadResource(ctx, u)
			items = append(items, linkedResource{uri: u, contents: c, err: err})
		}
		return linkedMsg{id: id, items: items}
	}, func(err error) tea.Msg {
		return noticeMsg{text: "reading linked resources: " + err.Error()}
	})
}

// scrollDelta is how far a scroll key moves (0 for other keys).
func scrollDelta(k tea.KeyPressMsg, keys keyMap, height int) int {
	switch {
	case key.Matches(k, keys.Up):
		return -1
	case key.Matches(k, keys.Down):
		return 1
	case key.Matches(k, keys.PageUp):
		return -(height - 6)
	case key.Matches(k, keys.PageDown):
		return height - 6
	case key.Matches(k, keys.Home):
		return -1 << 30
	case key.Matches(k, keys.End):
		return 1 << 30
	}
	return 0
}

func (m *model) onScrollKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(k, m.keys.Up):
		m.scroll(-1)
	case key.Matches(k, m.keys.Down):
		m.scroll(1)
	case key.Matches(k, m.keys.PageUp):
		m.scroll(-(m.height - 6))
	case key.Matches(k, m.keys.PageDown):
		m.scroll(m.height - 6)
	case key.Matches(k, m.keys.Home):
		m.scroll(-1 << 30)
	case key.Matches(k, m.keys.End):
		m.scroll(1 << 30)
	}
	return nil
}

func (m *model) scroll(delta int) { m.scrollPane(m.focus == paneList, delta) }

// listWidth is the width of the left pane (the tools), borders included.
func (m *model) listWidth() int { return min(max(max(m.width, 40)/3, 24), 44) }

// scrollPane scrolls the tool list, or else the open tab.
func (m *model) scrollPane(list bool, delta int) {
	switch {
	case list:
		m.list.move(delta)
		m.syncForm()
	case views[m.tab].scroll != nil:
		views[m.tab].scroll(m, delta)
	}
}

// selectTool moves the list's cursor to the named tool; false when the list (as
// filtered) does not show it.
func (m *model) selectTool(server, name string) bool {
	found := false
	for i, r := range m.list.rows {
		if r.tool >= 0 && m.list.tools[r.tool].Name == name && m.list.servers[r.tool] == server {
			m.list.cursor, m.list.moved = i, true
			found = true
		}
	}
	m.syncForm()
	return found
}

// toolByName finds a tool in the server's list, filtered out or not.
func (m *model) toolByName(server, name string) (client.Tool, bool) {
	for i, t := range m.list.tools {
		if t.Name == name && m.list.servers[i] == server && !m.list.isGhost(i) {
			return t, true
		}
	}
	return client.Tool{}, false
}

// resultText is a result as plain text for the clipboard.
func resultText(r *client.CallResult) string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	if r.Structured != nil {
		parts = append(parts, string(r.Structured))
	}
	if len(parts) == 0 {
		return string(r.Raw)
	}
	return strings.Join(parts, "\n")
}

// callCommand is the call as an mcpscope command line.
func callCommand(o *outcome, t target.Target) string {
	cmd := "mcpscope call " + shquote.Quote(o.tool.Name)
	if len(o.args) > 0 && string(o.args) != "{}" {
		cmd += " --args " + shquote.Quote(string(o.args))
	}
	if len(t.Argv) > 0 {
		cmd += " --"
		for _, a := range t.Argv {
			cmd += " " + shquote.Quote(a)
		}
	}
	return cmd
}

// View draws the screen.
func (m *model) View() tea.View {
	m.spinnerShown = false // spin sets it if this frame draws the spinner
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "mcpscope"
	return v
}

func (m *model) render() string {
	w, h := max(m.width, 40), max(m.height, 10)
	status := m.statusBar(w)
	if c := findDialog[*cmdLine](&m.dialogs); c != nil {
		status = c.view(m, w, 2) // the command line stands on the status bar, in front or not
	}
	bodyH := h - lipgloss.Height(status)
	if d, ok := m.dialogs.front().(*helpScreen); ok {
		lines := strings.Split(d.view(m, w-2, bodyH-2), "\n")
		room := bodyH - 2
		if len(lines) > room {
			// Too tall for the screen: it scrolls, and says so on its last line.
			d.offset = min(max(d.offset, 0), len(lines)-(room-1))
			end := d.offset + room - 1
			lines = append(lines[d.offset:end:end], m.st.muted.Render(fmt.Sprintf("lines %d–%d of %d · j/k, pgup/pgdn scroll · any other key closes", d.offset+1, end, len(lines))))
		} else {
			d.offset = 0
		}
		box := m.st.focusedPane.Width(w).Height(bodyH).Render(clampLines(strings.Join(lines, "\n"), room, w-2))
		return box + "\n" + status
	}
	listW := m.listWidth()
	rightW := w - listW
	innerH := bodyH - 2
	left := m.list.view(m.st, listW-2, innerH, m.focus == paneList)
	lp := m.st.pane
	if m.focus == paneList {
		lp = m.st.focusedPane
	}
	leftBox := lp.Width(listW).Height(bodyH).Render(clampLines(left, innerH, listW-2))
	right := m.rightPane(rightW-2, innerH)
	rp := m.st.pane
	if m.focus == paneRight {
		rp = m.st.focusedPane
	}
	rightBox := rp.Width(rightW).Height(bodyH).Render(clampLines(right, innerH, rightW-2))
	return lipgloss.JoinHorizontal(lipgloss.Top, leftBox, rightBox) + "\n" + status
}

// clampLines keeps a block within height lines and width cells, so that a long line
// never wraps and pushes the layout around.
func clampLines(s string, height, width int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > height {
		lines = lines[:max(height, 0)]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			lines[i] = ansi.Truncate(l, width, "…")
		}
	}
	return strings.Join(lines, "\n")
}

// rightPane is the open dialogs (a question stands over whatever is shown, the same
// for every path that asks) over the tabs.
func (m *model) rightPane(width, height int) string { return m.dialogPane(width, height) }

func (m *model) rightTabs(width, height int) string {
	bar := m.tabBar(width)
	bodyH := height - 2
	body := views[m.tab].draw(m, width, bodyH)
	switch m.srv.state() {
	case stateDied:
		body = m.failureView(width, bodyH/2, "The server stopped") + "\n\n" + body
	case stateLost:
		body = m.failureView(width, bodyH/2, "Disconnected") + "\n\n" + body
	}
	return bar + "\n\n" + body
}

// toolTab is the Tool view's body. Before a connection it says why there is none;
// every other view (Traffic and Stderr above all) stays reachable to find out more.
func (m *model) toolTab(width, height int) string {
	_, selected := m.list.selected()
	switch {
	case m.srv.state() == stateConnecting && selected && len(m.srv.tools()) > 0:
		// A restart: the selected tool and its form stay on screen (what was typed
		// is kept), under the word that it cannot be called yet.
		return m.spin() + " connecting to " + safe(m.displayName()) + "…\n" + m.toolView(width, height-1)
	case m.srv.state() == stateConnecting:
		return m.spin() + " connecting to " + safe(m.displayName()) + "…\n" + m.st.muted.Render("starting the server and negotiating the protocol · 3 traffic · 5 stderr")
	case m.srv.state() == stateFailed && selected && len(m.srv.tools()) > 0:
		return m.failureView(width, height/2, "Could not connect") + "\n\n" + m.toolView(width, height-height/2-2)
	case m.srv.state() == stateFailed:
		title := "Could not connect"
		if m.srv.status().State == workbench.StateNeedsLogin {
			title = "Needs login"
		}
		return m.failureView(width, height, title)
	}
	return m.toolView(width, height)
}

// stderrWindow draws a start's stderr lines in at most room rows, each wrapped
// (the line a crash says what is missing in, a module's path, is often the
// longest): all of them when they fit, else the first lines in a third of the room
// and the last in the rest, with how many are left out between (5 shows them).
// It reads only the lines it draws, and one more.
func (m *model) stderrWindow(count int, at func(int) string, width, room int) []string {
	rows := func(i int) []string {
		w := appendWrapped(nil, at(i), max(width-2, 10))
		for k := range w {
			w[k] = "  " + w[k]
		}
		return w
	}
	var all []string
	for i := 0; i < count && len(all) <= room; i++ {
		all = append(all, rows(i)...)
	}
	if len(all) <= room {
		return all
	}
	var head, tail []string
	i, j := 0, count-1
	for headRoom := max(room/3, 1); i <= j && len(head) < headRoom; i++ {
		head = append(head, rows(i)...)
	}
	head = head[:min(len(head), max(room/3, 1))]
	for tailRoom := room - len(head) - 1; j >= i && len(tail) < tailRoom; j-- {
		r := rows(j)
		if over := len(tail) + len(r) - tailRoom; over > 0 {
			r = r[over:] // the end of a long last line: where a crash says what failed
		}
		tail = append(r, tail...)
	}
	out := head
	if more := j - i + 1; more > 0 {
		out = append(out, m.st.muted.Render("  … "+plural.Count(more, "more line")+" (5 shows them all) …"))
	}
	return append(out, tail...)
}

// failureView says why the server is not there: the error, then the first and the
// last lines the server wrote to stderr (a cause is often printed first, the last
// words last).
func (m *model) failureView(width, height int, title string) string {
	lines := []string{m.st.err.Render(title)}
	var se *client.ServerError
	switch {
	case errors.As(m.srv.err(), &se):
		reason := se.Reason
		if se.Exit != nil {
			reason += " (server " + se.Exit.String() + ")"
		}
		lines = append(lines, wrapText(reason, width)...)
	case m.srv.err() != nil:
		lines = append(lines, wrapText(m.srv.err().Error(), width)...)
	case m.srv.exit() != nil:
		lines = append(lines, "server "+safe(m.srv.exit().String()))
	}
	// The keys, wrapped: the last ones (q quits) are not cut at the pane's edge.
	keyLine := func(key, rest string) []string {
		how := wrapText(key+rest, max(width-2, 10))
		how[0] = m.st.statusKey.Render(key) + m.st.muted.Render(strings.TrimPrefix(how[0], key))
		for i := 1; i < len(how); i++ {
			how[i] = m.st.muted.Render(how[i])
		}
		return how
	}
	foot := append([]string{""}, keyLine("ctrl+r", " restarts the server (history is kept) · 3 traffic · 5 stderr · q quits")...)
	if m.srv.status().State == workbench.StateNeedsLogin {
		how := keyLine("L", " logs in (opens the browser; a redirect can be pasted) · the Auth view (]/[ or :auth) shows each step · or in a shell: mcpscope auth login "+m.loginName(m.srv))
		foot = append(append([]string{""}, how...), foot...)
	}
	// The stderr of this start: only the first and last lines shown are read (the
	// rest may be in the spill file).
	var errLines []string
	count, at := 0, func(i int) string { return errLines[i] }
	if from := m.srv.stderrFrom; from <= m.stderr.total() && !m.several() {
		// With one server the Stderr tab's lines since this start are all its own.
		// With several they are every server's, so the others' would be shown as
		// this one's (and a chatty one would push this one's cause out of the
		// window): the lines the workbench kept of this server's attempt are used.
		count, at = m.stderr.total()-from, func(i int) string { return m.stderr.raw(from + i) }
	} else if se == nil || len(se.Stderr) == 0 {
		for _, l := range m.srv.snap.Stderr {
			errLines = append(errLines, safe(l))
		}
		count = len(errLines)
	}
	if count == 0 && se != nil {
		for _, l := range se.Stderr { // not seen on the tap (yet)
			errLines = append(errLines, safe(l))
		}
		count, at = len(errLines), func(i int) string { return errLines[i] }
	}
	if count > 0 {
		room := max(height-len(lines)-len(foot)-2, 4)
		lines = append(lines, "", m.st.accent.Render("stderr ("+plural.Count(count, "line")+")"))
		lines = append(lines, m.stderrWindow(count, at, width, room)...)
	}
	return strings.Join(append(lines, foot...), "\n")
}

func (m *model) toolView(width, height int) string {
	t, ok := m.list.selected()
	if !ok {
		if len(m.list.tools) == 0 {
			switch {
			case m.srv != nil && m.srv.state() == stateIdle:
				// Not listed yet, which is not the same as none (mcpscope attach's own
				// session starts idle, so that watching starts nothing).
				why := "The server is idle: its tools are listed when a call connects it."
				if m.tap != nil {
					why = "Watching " + m.tap.label + ": the host's calls are in History and Result. mcpscope's own session to the server is idle: e on a tapped call in History starts it and opens the tool's form."
				}
				return m.st.muted.Render(strings.Join(wrapText(why, width), "\n"))
			}
			return m.st.muted.Render("The server lists no tools.")
		}
		return m.st.muted.Render("No tool selected.")
	}
	lines := detailLines(m.st, t, width)
	if m.several() && len(lines) > 0 {
		// The heading names the tool as the list does, server/tool: two servers'
		// greet look alike below it, and the call goes to this one.
		lines[0] = m.st.title.Render(safe(t.DisplayName())) + m.st.muted.Render("  "+safe(m.list.selectedServer()+"/"+t.Name))
	}
	if m.toolRaw {
		lines = append([]string{m.st.muted.Render("the tool as the server sent it (v returns to the summary)")}, jsonLines(m.st, t.Raw, width)...)
	}
	m.detail.setLines(lines)
	if m.toolRaw {
		// The whole raw tool, scrolled with the keys; the form comes back with v.
		return m.detailView(height)
	}
	detailH, formH := m.toolSplit(len(lines), width, height)
	top := m.detailView(detailH)
	var formBlock string
	switch {
	case m.form == nil && m.building != nil && m.building.key == m.formSrv+"/"+m.formTool+"\x00"+m.formSchema:
		formBlock = m.spin() + fmt.Sprintf(" building the form (a %d KiB schema)…", len(m.formSchema)>>10)
	case m.form == nil:
		formBlock = m.st.warn.Render("No form: " + safe(m.formError))
	default:
		hint := "enter calls · tab moves · ctrl+j raw JSON · ctrl+e $EDITOR"
		switch t.TaskSupport() {
		case "required":
			hint = "enter starts a task · tab moves · ctrl+j raw JSON · ctrl+e $EDITOR"
		case "optional":
			hint = "enter calls · ctrl+g as a task · tab moves · ctrl+j raw JSON · ctrl+e $EDITOR"
		}
		if m.focus != paneRight {
			hint = "tab or enter to fill in the arguments"
		}
		head := m.st.accent.Render("Arguments") + m.st.muted.Render("  "+hint)
		if _, _, p := m.formOwnerTool(); p.kind != ownerOK && p.kind != ownerSchemaChanged {
			why := strings.ReplaceAll(p.text, "nothing was sent", "enter sends nothing")
			head = m.st.accent.Render("Arguments") + "  " + m.st.err.Render(ansi.Truncate(why, max(width-11, 1), "…"))
		}
		if m.formNote != "" && m.formNoteF == m.form {
			head = m.st.warn.Render(ansi.Truncate(m.formNote, width, "…")) + "\n" + head
			formH--
		}
		formBlock = head + "\n" + m.form.View(width, max(formH-1, 1))
	}
	return top + "\n" + formBlock
}

// toolSplit shares the Tool tab between the detail (description, annotations,
// schemas) and the form by what each holds: both whole when they fit; else the
// part with the focus gets the room it needs, the other at least a third.
func (m *model) toolSplit(detailLen, width, height int) (detailH, formH int) {
	if m.form == nil {
		return max(height-2, 1), 2
	}
	room := height - 1 // the "Arguments" heading
	formNeed := strings.Count(m.form.View(width, max(room, 1)), "\n") + 1
	if detailLen+formNeed <= room {
		return detailLen, room - detailLen + 1
	}
	third := max(room/3, 3)
	if m.focus == paneRight {
		formH = min(formNeed, max(room-third, room-detailLen))
		detailH = room - formH
	} else {
		detailH = min(detailLen, max(room-third, room-formNeed))
		formH = room - detailH
	}
	return max(detailH, 1), formH + 1
}

// detailView shows the tool detail's window, saying how to scroll when it is cut.
func (m *model) detailView(height int) string {
	d := &m.detail
	total := d.total()
	if total <= height || height < 3 {
		return padLines(d.view(height), height)
	}
	body := d.view(height - 1)
	more := max(total-d.offset-(height-1), 0)
	hint := fmt.Sprintf("  lines %d–%d of %d · shift+↑/↓ scroll", d.offset+1, d.offset+height-1, total)
	if more == 0 {
		hint = fmt.Sprintf("  lines %d–%d of %d (end) · shift+↑ scrolls back", d.offset+1, total, total)
	}
	return padLines(body, height-1) + "\n" + m.st.muted.Render(hint)
}

func padLines(s string, n int) string {
	c := strings.Count(s, "\n") + 1
	if s == "" {
		c = 0
	}
	if c < n {
		s += strings.Repeat("\n", n-c)
	}
	return s
}

func (m *model) resultView(width, height int) string {
	o := m.current
	if o == nil {
		return m.st.muted.Render("No call yet. Pick a tool, fill in its arguments and press enter.")
	}
	if named := m.several(); o.named != named {
		o.named = named // a server added or removed since: the heading follows
		m.resultVer++
	}
	if o.running {
		ran := time.Since(o.started)
		hint := "  x cancels"
		if o.isTapped() {
			hint = "  ⇄ the host's call through " + safe(o.server) + ": read-only"
		} else if ran > 5*time.Second {
			hint += " · ctrl+r restarts the server if it hangs"
		}
		s := m.spin() + " " + safe(o.heading()) + " running " + ran.Round(100*time.Millisecond).String() + m.st.muted.Render(hint)
		if p := o.progress; p != nil {
			s += "\n" + progressBar(m.st, p, width)
		}
		return s
	}
	if m.resultKey.o != o || m.resultKey.width != width || m.resultKey.ver != m.resultVer {
		var d *doc
		if m.showRaw && o.result != nil {
			d = &doc{width: width, wraps: o.wrapCache()}
			d.addJSON(m.st, o.result.Raw)
		} else {
			d = resultDoc(m.st, o, width)
		}
		m.result.setSource(d)
		m.resultKey.o, m.resultKey.width, m.resultKey.ver = o, width, m.resultVer
	}
	return m.result.view(height)
}

func progressBar(st styles, p *client.Progress, width int) string {
	label := fmt.Sprintf("%g", p.Progress)
	frac := 0.0
	if p.Total > 0 {
		frac = min(p.Progress/p.Total, 1)
		label = fmt.Sprintf("%g/%g", p.Progress, p.Total)
	}
	barW := max(width-len(label)-4, 10)
	filled := int(frac * float64(barW))
	bar := st.accent.Render(strings.Repeat("█", filled)) + st.muted.Render(strings.Repeat("░", barW-filled))
	s := bar + " " + label
	if p.Message != "" {
		s += "\n" + safe(p.Message)
	}
	return s
}

func (m *model) statusBar(width int) string {
	st := m.st
	// Each part with the order in which it gives way when the line is too narrow
	// (0: never): at 80 columns the state and "● REC" were cut off the end while
	// the transport and protocol before them were shown.
	type part struct {
		text string
		drop int
	}
	name := part{st.accent.Render(truncate(safe(m.displayName()), 30)), 0}
	parts := []part{name}
	add := func(text string, drop int) { parts = append(parts, part{text, drop}) }
	switch m.srv.state() {
	case stateConnecting:
		add(st.warn.Render("connecting"), 0)
	case stateReady:
		i := m.srv.info()
		tr := i.Transport
		if i.Framing != "" {
			tr += " " + string(i.Framing)
		}
		add(safe(tr), 2)
		add(safe(i.Era+" "+i.ProtocolVersion), 1)
		add(st.ok.Render("connected"), 0)
	case stateFailed:
		add(st.err.Render(m.srv.stateWord()), 0)
	case stateDied:
		add(st.err.Render("server stopped"), 0)
	case stateLost:
		add(st.err.Render("disconnected")+st.muted.Render(" (ctrl+r reconnects)"), 0)
	case stateIdle:
		add(st.warn.Render("idle")+st.muted.Render(" (the next call reconnects)"), 0)
	}
	if m.lastCall > 0 {
		add("last call "+lastCallText(m.lastCall), 3)
	}
	if m.opts.Recording != "" {
		add(st.err.Render("● REC ")+st.muted.Render(filepath.Base(m.opts.Recording)), 0)
	}
	if t := m.tapStatus(st); t != "" {
		add(t, 0)
	}
	if m.opts.Browse != nil {
		// Not a live server: everything here comes from a file, and new calls are
		// answered by a mock from it. Said as what it is: "RECORDING" read as if this
		// session were being recorded.
		add(st.warn.Render("▶ browsing a recording; a mock answers from it"), 0)
	}
	join := func() string {
		texts := make([]string, len(parts))
		for i, p := range parts {
			texts[i] = p.text
		}
		return strings.Join(texts, st.muted.Render(" · "))
	}
	room := width - ansi.StringWidth(m.keyHints(0)) - 1
	for line := join(); ansi.StringWidth(line) > room; line = join() {
		worst := 0
		for i, p := range parts {
			if p.drop > parts[worst].drop {
				worst = i
			}
		}
		if parts[worst].drop == 0 {
			// What is left is all needed: the name gives way, then the end is cut.
			if over := ansi.StringWidth(line) - room; ansi.StringWidth(parts[0].text)-over >= 8 {
				parts[0].text = st.accent.Render(truncate(safe(m.displayName()), ansi.StringWidth(parts[0].text)-over))
			}
			break
		}
		parts = append(parts[:worst], parts[worst+1:]...)
	}
	line := join()
	// The least the right side shows is how to get help: "? help", or "f1 help" while
	// a field has the keys (one wider). The line is cut to leave room for it, or the
	// terminal would cut the help's last letter.
	right := m.keyHints(0)
	gap := width - ansi.StringWidth(right) - 1
	var more []string
	if m.notice != "" {
		with := line + st.muted.Render(" · ") + st.warn.Render(safe(m.notice))
		if ansi.StringWidth(with) <= gap {
			line = with
		} else {
			// A notice too long for the line (a saved file's path) gets lines of its
			// own below, wrapped, up to three.
			more = wrapText(m.notice, width-1)
			if len(more) > 3 {
				more = append(more[:2], ansi.Truncate(strings.Join(more[2:], " "), width-1, "…"))
			}
			for i := range more {
				more[i] = st.warn.Render(more[i])
			}
		}
	}
	line = ansi.Truncate(line, max(gap, 0), "…")
	// The focused view's main keys fill what the line leaves.
	right = m.keyHints(width - ansi.StringWidth(line) - 3)
	gap = width - ansi.StringWidth(right) - 1
	out := line + strings.Repeat(" ", max(gap-ansi.StringWidth(line), 1)) + right
	if len(more) > 0 {
		out = strings.Join(more, "\n") + "\n" + out
	}
	return out
}

// lastCallText is a call's duration in a constant width (6 columns), so that the
// status bar does not shift, and the key hints after it do not come and go, as one
// call takes 9 ms and the next 12 ms.
func lastCallText(d time.Duration) string {
	var s string
	switch {
	case d < time.Second:
		s = fmt.Sprintf("%dms", d.Milliseconds())
	case d < 10*time.Second:
		s = fmt.Sprintf("%.2fs", d.Seconds())
	case d < 100*time.Second:
		s = fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		s = fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 100*time.Hour:
		s = fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	default:
		s = ">99h"
	}
	return fmt.Sprintf("%-6s", s)
}

// displayName is how the server is named on screen: its serverInfo when it sent
// one, else the target as given (the URL of an HTTP server).
func (m *model) displayName() string {
	if m.several() {
		if i := m.srv.info(); i.Name != "" {
			return m.srv.name + ": " + strings.TrimSpace(i.Name+" "+i.Version)
		}
		return m.srv.name
	}
	if i := m.srv.info(); i.Name != "" {
		return strings.TrimSpace(i.Name + " " + i.Version)
	}
	if m.several() {
		return m.srv.name
	}
	if m.srv.display != "" {
		return m.srv.display
	}
	if m.opts.Target.URL != "" {
		return m.opts.Target.URL
	}
	return strings.Join(m.opts.Target.Argv, " ")
}

// The notices a refetch key puts up while the lists are asked for again.
const (
	refetchingTools   = "refetching tools…"
	refetchingPrompts = "refetching prompts…"
	refetchingSkills  = "refetching skills…"
)

// settleNotice replaces the notice pending (a "…ing" one a key put up) with done once
// the work it names has answered: left standing, it said the work was still under way
// long after it was done. A notice put up since (an error, another action) is kept.
func (m *model) settleNotice(pending, done string) {
	if m.notice == pending {
		m.notice = done
	}
}
