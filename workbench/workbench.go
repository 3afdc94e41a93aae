// Package workbench holds the servers of one mcpscope session, by name: it connects
// them concurrently, keeps each one's status, restarts, removes and adds servers while
// the session runs, disconnects idle ones and reconnects them on use, and puts every
// event of every server, tagged with its name, on one stream. It has no UI: the TUI,
// inspect and replay drive it. Nothing here writes a config file.
package workbench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/oauth"
	"github.com/mcpscope/mcpscope/target"
)

// Source says where a server's spec came from.
type Source string

const (
	SourceConfig  Source = "config"  // a config file of another client (read-only)
	SourceSession Source = "session" // named on the command line or added while running
)

// Spec is one server to connect to.
type Spec struct {
	Name   string
	Target target.Target
	// Timeout bounds each request of this server; 0 uses Options.Client.Timeout
	// (--timeout). A config entry's own timeout goes here.
	Timeout time.Duration
	Source  Source
	// Origin says where the spec was written, for messages ("~/.mcp.json:3").
	Origin string
	// Watch lists files, directories or globs whose change restarts the server (a
	// stdio server) or re-lists it (HTTP), then compares its surface (see watch.go).
	Watch []string
	// WatchDebounce is the quiet time after the last write (0: watch.DefaultDebounce).
	WatchDebounce time.Duration
	// Unusable, when set, says why this server can never start as it is (a config
	// entry whose ${env:…} placeholder has no value): it is held failed with this
	// reason, and every start (the first, a restart, a reconnect) fails the same way
	// without running anything. Target may then be empty. It is kept in the session
	// rather than left out so that the user sees it and why, as --inspect shows it.
	Unusable error
	// Idle adds the server without starting it: it waits idle until its first
	// request connects it (mcpscope attach's own session to a tapped server, which
	// must not start a second copy of the user's server just because someone watches).
	Idle bool
}

// State is a server's state.
type State string

const (
	StateConnecting State = "connecting"
	StateConnected  State = "connected"
	StateNeedsLogin State = "needs login" // an HTTP 401
	StateFailed     State = "failed"
	StateExited     State = "exited"
	StateIdle       State = "idle" // disconnected; the next request reconnects
)

// Status is what is known about a server now.
type Status struct {
	State State
	// Info is the handshake's outcome (era, protocol version, transport) once
	// connected; it is kept while idle.
	Info client.Info
	// Reason says why the server failed, exited, needs login or went idle.
	Reason string
	// Err is the error behind a failure (a *client.ServerError, *client.AuthError…).
	Err error
	// Exit is how the process ended, for StateExited (and a failure with an exit).
	Exit *wire.Exit
	// Stderr holds the server's last stderr lines, for a failure or an exit.
	Stderr []string
	Since  time.Time
	// Gen is the connection attempt this status is about: 1 for the first start,
	// one more for each start since (a restart, a reconnect after idle); an idle or
	// exited status keeps the attempt that went idle or exited. It is the one
	// generation of the server: a reader drops an answer fetched on an older one
	// (a restart made it stale) by comparing with it, never by counting the
	// connecting events it saw (a slow reader's statuses coalesce).
	Gen int
}

// Settled reports whether the status is not connecting.
func (s Status) Settled() bool { return s.State != StateConnecting }

// Server is one server of the session as List shows it.
type Server struct {
	Spec         Spec
	Status       Status
	LastActivity time.Time
	// Overrides is set when this session-added server hides a configured one of the
	// same name (removing it brings that one back).
	Overrides bool
}

// Options configures a workbench.
type Options struct {
	// Client is the base of every server's session options. Its Tap is not used (each
	// server gets one); Timeout is the default of Spec.Timeout; Header and Transport
	// apply to HTTP servers only.
	Client client.Options
	// IdleDisconnect stops a server that has had no request for this long; the next
	// request reconnects it (0: never).
	IdleDisconnect time.Duration
	// Configured are the servers of the config files, a read-only source for
	// AddConfigured; a session-added server of the same name overrides one.
	Configured []Spec
	// OnWire, when set, is called with every wire event of every server, in wire order
	// and synchronously (it must be quick): for recorders and traces.
	OnWire func(server string, e wire.Event)
	// OnLog, when set, is called with every log notification of every server, in
	// wire order and synchronously on the server's reader (it must be quick), before
	// the EventLog is emitted. A reader that must see every log line of a burst (the
	// screen's Logs, which bounds them itself) takes them here rather than through a
	// bounded subscription, which drops logs when its reader falls behind.
	OnLog func(server string, t time.Time, l client.LogMessage)
	// OnAdd, when set, is called with every server that joins the session (Add,
	// AddConfigured, the configured one brought back by Remove) before its first wire
	// event, synchronously (it must be quick): for recorders.
	OnAdd func(Spec)
	// StderrLines is how many last stderr lines a status keeps (default 20).
	StderrLines int
	// ForServer, when set, adjusts a server's session options at each connection
	// (its own handlers for what the server asks, naming it; the roots and log level
	// it had before a restart).
	ForServer func(name string, o *client.Options)
	// OAuth, when set, gives the OAuth options of an HTTP server (the flags and its
	// config entry's oauth block): each such server then logs in through a manager of
	// its own (see Login), and Client.Auth is not used.
	OAuth func(target target.Target) oauth.Options
	// Elicit, when set, answers every server's requests for user input, told which
	// server asked (it replaces Client.Elicit).
	Elicit func(ctx context.Context, server string, req client.ElicitRequest) (client.ElicitResponse, error)
}

// ErrNoServer is returned for a name the session does not have.
var ErrNoServer = errors.New("no such server")

// Workbench is the servers of one session.
type Workbench struct {
	// afterStart, in tests, runs in Add once the server's first start has begun: an
	// edit made there (the server may have read the old file) must still be seen.
	afterStart func(name string)

	opts   Options
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	servers map[string]*server
	order   []string
	subs    map[*subscriber]bool
	closed  bool
	wg      sync.WaitGroup // connect and close goroutines
}

// server is the state of one server; its fields are guarded by Workbench.mu.
type server struct {
	spec     Spec
	replaced *Spec // the configured spec this one hides, to bring back on remove
	gen      int   // connection generation: events and results of older ones are dropped
	// attempts counts the starts (Status.Gen); gen also moves on a detach, so it is
	// not what a reader is shown.
	attempts int
	// tools is the last tool list fetched through ListTools (or Tools), on the
	// attempt toolsGen: a server that went down keeps its last ones.
	tools    *client.ToolList
	toolsGen int
	// counts are the resources and prompts counted through CountLists (nil: not
	// counted yet).
	counts *Counts
	// info is the last handshake's outcome, kept while the server is down or
	// restarting (a status other than connected, idle or exited has none).
	info client.Info
	// everConnected: some attempt connected (a failure after it is not an "could
	// not connect").
	everConnected bool
	// heard is when the server was last heard from or spoken to (a frame either
	// way, a status).
	heard time.Time
	// unreachable says why an HTTP server that is connected no longer answers (a
	// request could not reach it, its event stream broke); a later good response
	// clears it.
	unreachable string
	status      Status
	sess        *client.Session
	ready       chan struct{} // closed when the current connection attempt has ended
	cancel      context.CancelFunc
	inflight    int
	lastUse     time.Time
	idle        *time.Timer
	stderr      *lines
	// stopWatch ends the file watch of Spec.Watch (nil without one).
	stopWatch func()
	// auth logs an HTTP server in (nil: no OAuth); needLogin is the 401 (or step-up)
	// of the current connection that only a person can answer.
	auth      *oauth.Manager
	needLogin *oauth.NeedLoginError
	// scopeRefusals counts the 403 insufficient_scope answers (step-ups) seen, so
	// that Call can tell its own failure was one (NeedsScopeError).
	scopeRefusals int
}

// New makes an empty workbench; Add servers to it, Close it when done.
func New(opts Options) *Workbench {
	if opts.StderrLines <= 0 {
		opts.StderrLines = 20
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Workbench{opts: opts, ctx: ctx, cancel: cancel, servers: map[string]*server{}, subs: map[*subscriber]bool{}}
}

// Subscribe returns the event stream of the kinds given (none: every kind): every
// such event of every server from now on, in order, tagged with the server's name,
// with the default bound (DefaultMax, DefaultMaxBytes; see SubscribeOptions). Read it
// until it is closed (by Close or by cancel).
func (w *Workbench) Subscribe(kinds ...EventKind) (<-chan Event, func()) {
	sub := w.SubscribeWith(SubscribeOptions{Kinds: kinds})
	return sub.C, sub.Close
}

// SubscribeOptions says what a reader wants and how much may wait for it.
type SubscribeOptions struct {
	// Kinds are the kinds of event the reader gets (none: every kind). A reader that
	// has the wire frames from Options.OnWire leaves EventWire out, and so holds none.
	Kinds []EventKind
	// Except are kinds the reader leaves out of every other: a reader that follows
	// everything but the wire frames says Except: EventWire, and so gets a kind
	// added later without having to name it (a list of Kinds would silently miss it).
	Except []EventKind
	// Max and MaxBytes bound the events queued for the reader (0: DefaultMax,
	// DefaultMaxBytes). A reader slower than the servers then loses wire frames, logs
	// and resource updates, and gets an EventDropped that counts them; statuses
	// coalesce (the latest wins) and list_changed events are queued once.
	Max, MaxBytes int
}

// Subscription is one reader's stream.
type Subscription struct {
	// C delivers the events; it is closed by Close or by the workbench's Close.
	C     <-chan Event
	s     *subscriber
	close func()
}

// Close ends the subscription.
func (s *Subscription) Close() { s.close() }

// Queued says what waits for the reader now: events, and about how many bytes they
// hold.
func (s *Subscription) Queued() (events, bytes int) { return s.s.queued() }

// SubscribeWith is Subscribe with the reader's own kinds and bound.
func (w *Workbench) SubscribeWith(o SubscribeOptions) *Subscription {
	s := newSubscriber(o)
	w.mu.Lock()
	if w.closed {
		s.close()
	} else {
		w.subs[s] = true
	}
	w.mu.Unlock()
	var once sync.Once
	return &Subscription{C: s.out, s: s, close: func() {
		once.Do(func() {
			w.mu.Lock()
			delete(w.subs, s)
			w.mu.Unlock()
			close(s.stop)
		})
	}}
}

// emitLocked queues an event for every subscriber; w.mu is held.
func (w *Workbench) emitLocked(e Event) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	for s := range w.subs {
		s.push(e)
	}
}

func (w *Workbench) emit(e Event) {
	w.mu.Lock()
	w.emitLocked(e)
	w.mu.Unlock()
}

// setStatusLocked changes a server's status and says so on the stream.
func (w *Workbench) setStatusLocked(s *server, st Status) {
	if st.Since.IsZero() {
		st.Since = time.Now()
	}
	if st.Info.Era == "" && (st.State == StateIdle || st.State == StateExited) {
		st.Info = s.status.Info
	}
	st.Gen = s.attempts
	s.status = st
	s.heard = st.Since
	s.unreachable = "" // a new status is about a new state of the connection
	if st.State == StateConnected {
		s.info, s.everConnected = st.Info, true
	}
	cp := st
	w.emitLocked(Event{Server: s.spec.Name, Kind: EventStatus, Status: &cp})
}

// Add validates the spec and starts connecting it; it returns at once (see Wait).
// A session-added server that reuses a configured server's name overrides it; any
// other reuse of a name is an error.
func (w *Workbench) Add(spec Spec) error {
	if err := ValidateName(spec.Name); err != nil {
		return err
	}
	if spec.Unusable == nil && len(spec.Target.Argv) == 0 && spec.Target.URL == "" {
		return fmt.Errorf("server %q: no command or URL to connect to", spec.Name)
	}
	if spec.Source == "" {
		spec.Source = SourceSession
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New("the workbench is closed")
	}
	old, exists := w.servers[spec.Name]
	var replaced *Spec
	var oldSess *client.Session
	if exists {
		if !(old.spec.Source == SourceConfig && spec.Source == SourceSession) {
			return fmt.Errorf("there is already a server named %q (%s); pick another name", spec.Name, describe(old.spec))
		}
		cp := old.spec
		replaced = &cp
		oldSess = w.detachLocked(old)
	} else {
		w.order = append(w.order, spec.Name)
	}
	s := &server{spec: spec, replaced: replaced, stderr: newLines(w.opts.StderrLines)}
	w.newAuthLocked(s)
	w.servers[spec.Name] = s
	if w.opts.OnAdd != nil {
		w.opts.OnAdd(spec)
	}
	w.emitLocked(Event{Server: spec.Name, Kind: EventAdded, Text: describe(spec)})
	w.startWatchLocked(s) // before the start: see startWatchLocked
	if spec.Idle && oldSess == nil {
		w.setStatusLocked(s, Status{State: StateIdle, Reason: "not started yet; the first request connects it"})
	} else {
		w.startLocked(s, oldSess, "")
	}
	if w.afterStart != nil {
		w.afterStart(spec.Name)
	}
	return nil
}

// AddConfigured adds the configured server of that name.
func (w *Workbench) AddConfigured(name string) error {
	for _, c := range w.opts.Configured {
		if c.Name == name {
			c.Source = SourceConfig
			return w.Add(c)
		}
	}
	return fmt.Errorf("no configured server is named %q; configured: %s", name, strings.Join(w.ConfiguredNames(), ", "))
}

// ConfiguredNames lists the names AddConfigured accepts.
func (w *Workbench) ConfiguredNames() []string {
	var out []string
	for _, c := range w.opts.Configured {
		out = append(out, c.Name)
	}
	return out
}

func describe(s Spec) string {
	what := s.Target.URL
	if what == "" {
		what = strings.Join(s.Target.Argv, " ")
	}
	if s.Origin != "" {
		what += " from " + s.Origin
	}
	return what
}

// startLocked begins a connection attempt (a new generation). old, when set, is a
// session to close first (a restart or an override); with overlap it is closed while
// the new one starts (see restart).
func (w *Workbench) startLocked(s *server, old *client.Session, why string) {
	w.startOverlapLocked(s, old, why, false)
}

func (w *Workbench) startOverlapLocked(s *server, old *client.Session, why string, overlap bool) {
	s.gen++
	s.attempts++
	// Requests in flight are counted per generation: an older one's release is
	// ignored (it checks gen), so its count must not outlive it and keep the new
	// connection from ever going idle.
	s.inflight = 0
	gen := s.gen
	ctx, cancel := context.WithCancel(w.ctx)
	s.cancel = cancel
	ready := make(chan struct{})
	s.ready = ready
	s.sess = nil
	s.needLogin = nil
	if s.spec.Unusable != nil {
		// Nothing to run: failed at once, with the reason, every time (the attempt
		// has ended, so ready is closed for Wait and Session).
		close(ready)
		cancel()
		w.setStatusLocked(s, Status{State: StateFailed, Err: s.spec.Unusable, Reason: s.spec.Unusable.Error()})
		if old != nil {
			w.wg.Add(1)
			go func() { defer w.wg.Done(); _ = old.Close() }()
		}
		return
	}
	w.setStatusLocked(s, Status{State: StateConnecting, Reason: why})
	var oldGone chan struct{}
	if old != nil && overlap {
		oldGone = make(chan struct{})
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			defer close(oldGone)
			_ = old.Close()
		}()
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer close(ready)
		defer cancel()
		if old != nil && !overlap {
			_ = old.Close()
		}
		w.connect(ctx, s, gen, oldGone)
	}()
}

// optionsFor makes a server's session options from the base.
func (w *Workbench) optionsFor(s *server, gen int) client.Options {
	o := w.opts.Client
	name := s.spec.Name
	tap := &wire.Tap{}
	tap.Listen(func(e wire.Event) { w.onWire(s, gen, e) })
	o.Tap = tap
	if s.spec.Timeout > 0 {
		o.Timeout, o.TimeoutCap = s.spec.Timeout, 0
		o.TimeoutFrom = "the timeout of " + name + "'s config entry"
	}
	if s.spec.Target.URL == "" {
		o.Header, o.Transport = nil, ""
	}
	if w.opts.ForServer != nil {
		w.opts.ForServer(name, &o)
	}
	if w.opts.OAuth != nil {
		o.Auth = nil
	}
	w.authOptionLocked(s, gen, &o)
	base := o
	if elicit := w.opts.Elicit; elicit != nil {
		o.Elicit = func(ctx context.Context, req client.ElicitRequest) (client.ElicitResponse, error) {
			return elicit(ctx, name, req)
		}
	}
	o.OnToolsChanged = func() {
		w.emit(Event{Server: name, Kind: EventToolsChanged})
		if base.OnToolsChanged != nil {
			base.OnToolsChanged()
		}
	}
	o.OnResourceUpdated = func(uri string) {
		w.emit(Event{Server: name, Kind: EventResourceUpdated, Text: uri})
		if base.OnResourceUpdated != nil {
			base.OnResourceUpdated(uri)
		}
	}
	o.OnResourcesChanged = func() {
		w.emit(Event{Server: name, Kind: EventResourcesChanged})
		if base.OnResourcesChanged != nil {
			base.OnResourcesChanged()
		}
	}
	o.OnPromptsChanged = func() {
		w.emit(Event{Server: name, Kind: EventPromptsChanged})
		if base.OnPromptsChanged != nil {
			base.OnPromptsChanged()
		}
	}
	o.OnLog = func(m client.LogMessage) {
		cp := m
		now := time.Now()
		if w.opts.OnLog != nil {
			w.opts.OnLog(name, now, m)
		}
		w.emit(Event{Server: name, Kind: EventLog, Log: &cp, Time: now})
		if base.OnLog != nil {
			base.OnLog(m)
		}
	}
	o.OnTaskStatus = func(t client.Task) {
		w.emit(Event{Server: name, Kind: EventTaskStatus, Task: &t})
		if base.OnTaskStatus != nil {
			base.OnTaskStatus(t)
		}
	}
	o.OnURLRequired = func(u client.URLRequired) {
		w.emit(Event{Server: name, Kind: EventURLRequired, URLRequired: &u})
		if base.OnURLRequired != nil {
			base.OnURLRequired(u)
		}
	}
	return o
}

// connect makes the attempt of generation gen. oldGone, when set, is closed once the
// process this attempt replaces is reaped: a start that fails while that process was
// still exiting (it may hold a port, a lock, a file the new one needs) is tried once
// more after it is gone, so overlapping never costs a start that would have worked.
func (w *Workbench) connect(ctx context.Context, s *server, gen int, oldGone chan struct{}) {
	w.mu.Lock()
	opts := w.optionsFor(s, gen)
	target := s.spec.Target
	w.mu.Unlock()
	overlapped := oldGone != nil && !isClosed(oldGone)
	sess, err := client.Connect(ctx, target, opts)
	if err != nil && overlapped && ctx.Err() == nil {
		select {
		case <-oldGone:
		case <-ctx.Done():
		}
		w.mu.Lock()
		current := s.gen == gen && w.servers[s.spec.Name] == s && ctx.Err() == nil
		if current {
			s.stderr.reset()
			w.setStatusLocked(s, Status{State: StateConnecting, Reason: "the start failed while the old process was still exiting (" + oneLine(err.Error()) + "); starting again now that it is gone"})
		}
		w.mu.Unlock()
		if current {
			sess, err = client.Connect(ctx, target, opts)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if s.gen != gen || w.servers[s.spec.Name] != s {
		// Removed, restarted or closed meanwhile.
		if sess != nil {
			w.mu.Unlock()
			_ = sess.Close()
			w.mu.Lock()
		}
		return
	}
	if err != nil {
		st := failure(err, s.stderr.get())
		if s.needLogin != nil {
			st.State, st.Err = StateNeedsLogin, s.needLogin
			st.Reason = needLoginReason(s, s.needLogin)
		}
		w.setStatusLocked(s, st)
		return
	}
	s.sess = sess
	s.lastUse = time.Now()
	w.setStatusLocked(s, Status{State: StateConnected, Info: sess.Info()})
	w.armIdleLocked(s)
}

// failure makes the status of a failed connection.
func failure(err error, stderr []string) Status {
	st := Status{State: StateFailed, Err: err, Reason: err.Error(), Stderr: stderr}
	var ae *client.AuthError
	var se *client.ServerError
	switch {
	case errors.As(err, &ae) && ae.Status == 401:
		st.State = StateNeedsLogin
	case errors.As(err, &se):
		st.Reason = se.Reason
		st.Exit = se.Exit
		if len(se.Stderr) > 0 {
			st.Stderr = se.Stderr
		}
	}
	return st
}

// onWire tags a wire event with its server, and notices a server that exits on its
// own. It runs in wire order, synchronously.
func (w *Workbench) onWire(s *server, gen int, e wire.Event) {
	// What the event tells of the server is kept before OnWire hands it on: a reader
	// that takes a Snapshot when OnWire's event reaches it finds the line in it.
	w.mu.Lock()
	if s.gen == gen {
		// Only the current process's lines and frames: an old one exiting alongside
		// (an overlapped restart) must not fill the new one's failure.
		if e.Kind == wire.KindStderr {
			s.stderr.add(string(e.Data))
		}
		s.heard = e.Time
		s.followHTTPLocked(e)
	}
	w.mu.Unlock()
	if w.opts.OnWire != nil {
		w.opts.OnWire(s.spec.Name, e)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	// Every event reaches the stream, also the last ones of a connection being closed
	// (its exit); only the current connection changes the status.
	cp := e
	w.emitLocked(Event{Server: s.spec.Name, Kind: EventWire, Wire: &cp, Time: e.Time})
	if s.gen != gen || w.servers[s.spec.Name] != s {
		return
	}
	if e.Kind == wire.KindClosed && e.Exit != nil && s.status.State == StateConnected {
		st := Status{State: StateExited, Exit: e.Exit, Reason: "the server " + e.Exit.String(), Stderr: s.stderr.get()}
		sess := s.sess
		s.sess = nil
		s.stopIdleLocked()
		w.setStatusLocked(s, st)
		if sess != nil {
			// Release what the session holds; the process is gone already.
			w.wg.Add(1)
			go func() { defer w.wg.Done(); _ = sess.Close() }()
		}
	}
}

// followHTTPLocked lets an HTTP server's reachability follow its transport: a
// request that cannot reach the server, or an event stream (the legacy SSE stream,
// the GET stream) that breaks, makes a connected server unreachable; a later good
// response makes it reachable again. A cancel or a timeout says nothing about it.
func (s *server) followHTTPLocked(e wire.Event) {
	h := e.HTTP
	if h == nil || e.Dir != wire.Recv || s.status.State != StateConnected {
		return
	}
	switch {
	case h.Error != "" && !strings.Contains(h.Error, "context "):
		// The tap's text begins "failed: " for a failed request, which after "cannot
		// be reached:" says the same twice.
		s.unreachable = "the server cannot be reached: " + strings.TrimPrefix(e.Text, "failed: ")
	case h.Status >= 200 && h.Status < 300:
		s.unreachable = ""
	}
}

// detachLocked ends the server's current generation and returns its session (to be
// closed by the caller, outside the lock). A connection attempt in flight is
// cancelled; its own goroutine closes what it gets.
func (w *Workbench) detachLocked(s *server) *client.Session {
	s.gen++
	s.inflight = 0 // see startOverlapLocked
	if s.cancel != nil {
		s.cancel()
	}
	s.stopIdleLocked()
	sess := s.sess
	s.sess = nil
	return sess
}

func (s *server) stopIdleLocked() {
	if s.idle != nil {
		s.idle.Stop()
		s.idle = nil
	}
}

// armIdleLocked (re)starts the idle countdown of a connected server with nothing in
// flight.
func (w *Workbench) armIdleLocked(s *server) {
	s.stopIdleLocked()
	d := w.opts.IdleDisconnect
	if d <= 0 || s.inflight > 0 || s.status.State != StateConnected {
		return
	}
	gen := s.gen
	s.idle = time.AfterFunc(d, func() { w.idleExpired(s, gen) })
}

func (w *Workbench) idleExpired(s *server, gen int) {
	w.mu.Lock()
	if s.gen != gen || s.inflight > 0 || s.status.State != StateConnected || w.servers[s.spec.Name] != s {
		w.mu.Unlock()
		return
	}
	d := w.opts.IdleDisconnect
	sess := w.detachLocked(s)
	w.setStatusLocked(s, Status{State: StateIdle, Reason: fmt.Sprintf("disconnected after %v without a request; the next request reconnects it", d)})
	w.wg.Add(1)
	w.mu.Unlock()
	go func() {
		defer w.wg.Done()
		if sess != nil {
			_ = sess.Close()
		}
	}()
}

// Disconnect stops a server's process (or HTTP session) but keeps it in the session,
// idle: the next request reconnects it.
func (w *Workbench) Disconnect(name string) error {
	w.mu.Lock()
	s, ok := w.servers[name]
	if !ok {
		w.mu.Unlock()
		return w.unknown(name)
	}
	sess := w.detachLocked(s)
	ready := s.ready
	w.setStatusLocked(s, Status{State: StateIdle, Reason: "disconnected; the next request reconnects it"})
	w.mu.Unlock()
	if ready != nil {
		<-ready
	}
	if sess != nil {
		return sess.Close()
	}
	return nil
}

// Restart closes the server's session (stopping its process) and connects anew; it
// returns once the old process is gone and the new attempt has started.
func (w *Workbench) Restart(name string) error { return w.restart(name, false) }

// restart is Restart; with overlap (a restart after an edit of a watched file) the
// new process starts while the old one exits, rather than after it is reaped: the
// old one's exit (its stdin closed, then the grace, SIGTERM, SIGKILL) no longer adds
// to the wait for the fresh tool list. The old process's events still reach the
// stream but no longer change the status or the stderr lines; it is reaped before
// Close returns. A start that fails during the overlap is tried again once the old
// process is gone (see connect).
func (w *Workbench) restart(name string, overlap bool) error {
	w.mu.Lock()
	s, ok := w.servers[name]
	if !ok {
		w.mu.Unlock()
		return w.unknown(name)
	}
	sess := w.detachLocked(s)
	ready := s.ready
	w.mu.Unlock()
	if ready != nil {
		<-ready
	}
	if sess != nil && !overlap {
		_ = sess.Close()
		sess = nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.servers[name] != s || w.closed {
		if sess != nil {
			w.wg.Add(1)
			go func() { defer w.wg.Done(); _ = sess.Close() }()
		}
		return w.unknownLocked(name)
	}
	s.stderr.reset()
	w.startOverlapLocked(s, sess, "restarting", overlap)
	return nil
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// Remove takes a server out of the session: its process is stopped and reaped before
// Remove returns. A session-added server that hid a configured one brings that one
// back (connecting it). The last server cannot be removed.
func (w *Workbench) Remove(name string) error {
	w.mu.Lock()
	s, ok := w.servers[name]
	if !ok {
		w.mu.Unlock()
		return w.unknown(name)
	}
	if len(w.servers) == 1 && s.replaced == nil {
		w.mu.Unlock()
		return fmt.Errorf("cannot remove %q: it is the only server of the session; add another first", name)
	}
	sess := w.detachLocked(s)
	ready := s.ready
	if s.stopWatch != nil {
		s.stopWatch()
	}
	delete(w.servers, name)
	if s.replaced == nil {
		w.order = deleteName(w.order, name)
	}
	w.emitLocked(Event{Server: name, Kind: EventRemoved})
	w.mu.Unlock()
	if ready != nil {
		<-ready // a connection attempt in flight has ended and closed what it had
	}
	var err error
	if sess != nil {
		err = sess.Close()
	}
	if s.replaced != nil {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.closed {
			return err
		}
		back := &server{spec: *s.replaced, stderr: newLines(w.opts.StderrLines)}
		w.newAuthLocked(back)
		w.servers[name] = back
		if w.opts.OnAdd != nil {
			w.opts.OnAdd(back.spec)
		}
		w.emitLocked(Event{Server: name, Kind: EventAdded, Text: describe(back.spec) + " (the configured server is back)"})
		w.startLocked(back, nil, "")
	}
	return err
}

func deleteName(names []string, name string) []string {
	out := names[:0]
	for _, n := range names {
		if n != name {
			out = append(out, n)
		}
	}
	return out
}

func (w *Workbench) unknown(name string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.unknownLocked(name)
}

func (w *Workbench) unknownLocked(name string) error {
	return fmt.Errorf("%w %q; the session has: %s", ErrNoServer, name, strings.Join(w.order, ", "))
}

// Names lists the servers in the order they were added.
func (w *Workbench) Names() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.order...)
}

// Status is the server's status now.
func (w *Workbench) Status(name string) (Status, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.servers[name]
	if !ok {
		return Status{}, false
	}
	return s.status, true
}

// Wait waits until the server's current connection attempt has ended and returns its
// status (connected, failed, needs login, …).
func (w *Workbench) Wait(ctx context.Context, name string) (Status, error) {
	for {
		w.mu.Lock()
		s, ok := w.servers[name]
		if !ok {
			err := w.unknownLocked(name)
			w.mu.Unlock()
			return Status{}, err
		}
		ready, st := s.ready, s.status
		w.mu.Unlock()
		if st.Settled() || ready == nil {
			return st, nil
		}
		select {
		case <-ready:
		case <-ctx.Done():
			return st, ctx.Err()
		}
	}
}

// StatusError is a request for a server that is not connected and cannot be made so
// (failed, exited, needs login). It unwraps to the failure's error.
type StatusError struct {
	Server string
	Status Status
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("server %q %s", e.Server, e.Status.State)
	if e.Status.Reason != "" {
		msg += ": " + e.Status.Reason
	}
	if e.Status.Exit != nil && !strings.Contains(msg, e.Status.Exit.String()) {
		msg += " (server " + e.Status.Exit.String() + ")"
	}
	if len(e.Status.Stderr) > 0 {
		msg += "\nlast stderr lines:\n  " + strings.Join(e.Status.Stderr, "\n  ")
	}
	return msg
}

func (e *StatusError) Unwrap() error { return e.Status.Err }

// Session returns the server's connected session for one use; call release when the
// use is over (the idle countdown starts again then). A server still connecting is
// waited for; an idle one is reconnected, with an EventReconnect that says so.
func (w *Workbench) Session(ctx context.Context, name string) (sess *client.Session, release func(), err error) {
	sess, _, release, err = w.session(ctx, name)
	return sess, release, err
}

// session is Session, also saying the attempt (Status.Gen) the session is of.
func (w *Workbench) session(ctx context.Context, name string) (sess *client.Session, attempt int, release func(), err error) {
	for attempt := 0; ; attempt++ {
		w.mu.Lock()
		s, ok := w.servers[name]
		if !ok {
			err := w.unknownLocked(name)
			w.mu.Unlock()
			return nil, 0, nil, err
		}
		switch s.status.State {
		case StateConnected:
			if s.sess == nil {
				// Restart has detached the session and not yet started the next one.
				w.mu.Unlock()
				return nil, 0, nil, &StatusError{Server: name, Status: Status{State: StateConnecting, Reason: "restarting"}}
			}
			s.inflight++
			s.stopIdleLocked()
			sess := s.sess
			gen, n := s.gen, s.attempts
			w.mu.Unlock()
			var once sync.Once
			return sess, n, func() {
				once.Do(func() {
					w.mu.Lock()
					defer w.mu.Unlock()
					if s.gen == gen {
						s.inflight--
						s.lastUse = time.Now()
						w.armIdleLocked(s)
					}
				})
			}, nil
		case StateIdle:
			if attempt > 2 {
				w.mu.Unlock()
				return nil, 0, nil, &StatusError{Server: name, Status: s.status}
			}
			w.emitLocked(Event{Server: name, Kind: EventReconnect, Text: fmt.Sprintf("reconnecting %q for a request (%s)", name, s.status.Reason)})
			s.stderr.reset()
			w.startLocked(s, nil, "reconnecting after idle")
		case StateConnecting:
		default:
			st := s.status
			w.mu.Unlock()
			return nil, 0, nil, &StatusError{Server: name, Status: st}
		}
		ready := s.ready
		w.mu.Unlock()
		select {
		case <-ready:
		case <-ctx.Done():
			return nil, 0, nil, ctx.Err()
		}
	}
}

// Tools lists the server's tools.
func (w *Workbench) Tools(ctx context.Context, name string) (*client.ToolList, error) {
	list, _, err := w.ListTools(ctx, name, false)
	return list, err
}

// ListTools lists the server's tools (fresh: past the SDK's 2026-07-28 TTL cache,
// a user's refresh) and keeps them for Snapshot; gen is the attempt (Status.Gen)
// whose session answered, so that the caller can tell a list a restart made stale.
// A list from an attempt older than the one kept is not kept.
func (w *Workbench) ListTools(ctx context.Context, name string, fresh bool) (list *client.ToolList, gen int, err error) {
	sess, gen, release, err := w.session(ctx, name)
	if err != nil {
		return nil, 0, err
	}
	defer release()
	if fresh {
		list, err = sess.RefreshTools(ctx)
	} else {
		list, err = sess.Tools(ctx)
	}
	if err != nil {
		return nil, gen, err
	}
	w.mu.Lock()
	if s := w.servers[name]; s != nil && gen >= s.toolsGen && gen == s.attempts {
		s.tools, s.toolsGen = list, gen
	}
	w.mu.Unlock()
	return list, gen, nil
}

// Call calls a tool of a server.
func (w *Workbench) Call(ctx context.Context, id ToolID, args []byte, opts client.CallOptions) (*client.CallResult, error) {
	sess, release, err := w.Session(ctx, id.Server)
	if err != nil {
		return nil, err
	}
	defer release()
	w.mu.Lock()
	s := w.servers[id.Server]
	refusals := 0
	if s != nil {
		refusals = s.scopeRefusals
	}
	w.mu.Unlock()
	res, err := sess.Call(ctx, id.Tool, args, opts)
	if err != nil {
		w.mu.Lock()
		var ne *oauth.NeedLoginError
		stepUp := false
		if s != nil {
			ne = s.needLogin
			stepUp = s.scopeRefusals != refusals && ne != nil && ne.Scope != ""
		}
		w.mu.Unlock()
		if stepUp {
			// The session's error has lost the type on the way through the SDK: say
			// it was a step-up, so that the caller can run the call again after the
			// login (as the CLI does).
			return nil, &NeedsScopeError{Server: id.Server, Scope: ne.Scope, Err: err}
		}
	}
	return res, err
}

// NeedsScopeError is a call the server refused for want of scope (403
// insufficient_scope): a login with Scope (EventNeedsScope offers it) lets it
// through when run again.
type NeedsScopeError struct {
	Server, Scope string
	Err           error
}

func (e *NeedsScopeError) Error() string { return e.Err.Error() }
func (e *NeedsScopeError) Unwrap() error { return e.Err }

// Close stops every server (each process is reaped before Close returns) and ends
// the event streams.
func (w *Workbench) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	var sessions []*client.Session
	var readies []chan struct{}
	for _, s := range w.servers {
		if sess := w.detachLocked(s); sess != nil {
			sessions = append(sessions, sess)
		}
		if s.ready != nil {
			readies = append(readies, s.ready)
		}
	}
	w.mu.Unlock()
	w.cancel()
	var wg sync.WaitGroup
	for _, sess := range sessions {
		wg.Add(1)
		go func() { defer wg.Done(); _ = sess.Close() }()
	}
	wg.Wait()
	for _, r := range readies {
		<-r
	}
	w.wg.Wait()
	w.mu.Lock()
	for s := range w.subs {
		s.close()
	}
	w.mu.Unlock()
	return nil
}

// lines keeps the last n stderr lines of a server.
type lines struct {
	mu  sync.Mutex
	n   int
	buf []string
}

func newLines(n int) *lines { return &lines{n: n} }

func (l *lines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(s) > 2000 {
		s = s[:2000] + "…"
	}
	l.buf = append(l.buf, s)
	if len(l.buf) > l.n {
		l.buf = append(l.buf[:0], l.buf[len(l.buf)-l.n:]...)
	}
}

func (l *lines) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.buf...)
}

func (l *lines) reset() {
	l.mu.Lock()
	l.buf = nil
	l.mu.Unlock()
}
