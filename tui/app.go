// Package tui is mcpscope's Bubble Tea screen: the tools of a server on the left, the
// selected tool's detail and argument form, the result, the wire traffic, the server's
// logs and stderr, and the call history on the right.
//
// One root model holds plain structs with methods for its parts; a focus value decides
// who gets keys; backend events (wire frames, progress, results) arrive as messages
// through Program.Send.
package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/history"
	"github.com/mcpscope/mcpscope/internal/idlemem"
	"github.com/mcpscope/mcpscope/internal/memlimit"
	"github.com/mcpscope/mcpscope/internal/spool"
	"github.com/mcpscope/mcpscope/oauth"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// Options configures the TUI.
type Options struct {
	// Servers are the servers of the session, by name, connected concurrently through
	// a workbench. When empty, Target is the one server.
	Servers []workbench.Spec
	// Configured are the servers of the config files, which ":add NAME" offers.
	Configured []workbench.Spec
	// Registry is the MCP Registry that ":add NAME registry:ENTRY" reads ("": the
	// setting MCPSCOPE_REGISTRY, else the official registry).
	Registry string
	// Refused are the config entries that cannot be used (a name config.CheckName
	// refuses, a missing command…), each with why, naming its file and line: the
	// workbench says them at the start and on ":add NAME", never drops them silently.
	Refused []Refused
	// Pins are how package pins knows each server (by name), for the Changes view
	// to mark a definition that differs from its pin (pins.go); a server without
	// one is not compared.
	Pins map[string]Pin
	// PinOf, when set, is the pin identity of any server of the session from its
	// spec, those added with :add included (issue 25: the first connection pins);
	// ok false: not pinned. It is pure and cheap (called in Update). It decides for
	// every server, so a name removed and added again with another target is
	// another server, never compared with the first one's pin.
	PinOf func(workbench.Spec) (Pin, bool)
	// IdleDisconnect stops a server idle this long; the next request reconnects it.
	IdleDisconnect time.Duration
	// OnWire, when set, gets every wire event of every server with its name (a
	// recorder of several servers).
	OnWire func(server string, e wire.Event)
	// OnAdd, when set, is told of every server that joins the session, before its
	// first wire event (a recorder of several adds it to its file).
	OnAdd  func(workbench.Spec)
	Target target.Target
	// Name is how the target is shown (the command line, a URL, a config name).
	Name   string
	Client client.Options
	// Theme is auto (from the terminal background), dark, light or high-contrast.
	Theme string
	// NoConfirm skips the confirmation before calling a destructive tool.
	NoConfirm bool
	// Input and Output default to the terminal.
	Input  io.Reader
	Output io.Writer
	// Recording names the file the session is being recorded to, for the status bar.
	Recording string
	// ToggleRecording starts a recording (returning its file) or stops the running one
	// (returning ""); nil when recording is not available. It is called in a command,
	// off the UI goroutine, and never twice at once.
	ToggleRecording func() (string, error)
	// SaveDir is where "s" saves results (the working directory when empty).
	SaveDir string
	// Browse is a recording to show: its traffic (with its timing) and its calls in
	// History, before the live session (usually the recording served as a mock).
	Browse *record.Recording
	// Sampling declares the sampling capability to every server: a request opens a
	// dialog (a server's can be switched in the Servers tab). SamplingReply answers
	// every request with this text, without a dialog (it implies Sampling).
	Sampling      bool
	SamplingReply string
	// Roots, when not nil, declares the roots capability to every server and offers
	// these (the Servers tab edits them per server).
	Roots []client.Root
	// OAuth, when set, gives the OAuth options of each HTTP server: a 401 without a
	// usable stored token makes it "needs login", and L (or :login NAME) logs in.
	OAuth func(target.Target) oauth.Options
	// Keep is the memory that Traffic, Logs and Stderr hold together, with what waits
	// for the screen in the pump (splitKeep); older frames and lines go to a private
	// spill file, read back when scrolled to (0: spool.DefaultKeep, 64 MiB).
	Keep int64
	// Attach, when set, is a tap's session to show beside the servers (mcpscope
	// attach): read-only, from its stream (attach.go). Its own-session server
	// (OwnSpec) is among Servers.
	Attach *Attach
	// History, when set, keeps every call across sessions (package history: its
	// directory, bound and redaction); the History view searches it. nil keeps calls
	// for this session only.
	History *history.Options
}

// Refused is a config entry that cannot be used, and why.
type Refused struct{ Name, Why string }

// refusedNotice is what the start says of the entries left out: the first one's
// reason, and how many more (":add NAME" says each one's).
func refusedNotice(r []Refused) string {
	if len(r) == 0 {
		return ""
	}
	s := "config entry left out: " + r[0].Why
	if len(r) > 1 {
		s += fmt.Sprintf(" (and %d more; :add NAME says why)", len(r)-1)
	}
	return s
}

// Run shows the TUI until the user quits, then closes the session; it returns only once
// the server process is gone.
func Run(ctx context.Context, opts Options) error {
	memlimit.FromKeep(keepOrDefault(opts.Keep)) // the runtime holds what --keep says (package memlimit)
	idle, stopIdle := context.WithCancel(ctx)
	defer stopIdle()
	go idlemem.Watch(idle, 2*time.Second) // an idle workbench gives its free heap back (package idlemem)
	m := newModel(opts)
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	} else {
		// The terminal, with its writes counted (terminalexec.go).
		out := &outputCounter{File: os.Stdout}
		popts = append(popts, tea.WithOutput(out))
		m.outWrites = out.writes.Load
	}
	p := tea.NewProgram(m, popts...)
	m.send = p.Send
	m.pump = newPump(p.Send, m.pendingMax())
	defer m.pump.stop()
	_, err := p.Run()
	m.closeSession()
	if err == tea.ErrProgramKilled && ctx.Err() != nil {
		return ctx.Err()
	}
	if err == nil {
		err = m.exitError()
	}
	return err
}

// exitError is what quitting says about the session: a workbench that never got
// connected ends with the reason (exit status 1), not as a success.
func (m *model) exitError() error {
	for _, s := range m.servers {
		if s.snap.EverConnected || s.state() != stateFailed || s.err() == nil {
			return nil
		}
	}
	if m.srv == nil || m.srv.err() == nil {
		return nil
	}
	return fmt.Errorf("could not connect to %s: %w", m.displayName(), m.srv.err())
}

// pump batches wire events and log notifications so that a chatty server cannot
// flood the UI with one message (and one redraw) per event: they are collected and
// delivered together at most every 16 ms, and the server's reader never waits for
// the UI. It is the production path of both: the workbench subscription hands every
// log to log (servers.go), every wire frame comes to listen; only status and the
// other events the screen must act on go to the program on their own, so that they
// never queue behind a burst of logs (issue 23: 1,000 logs at a start held the tool
// list back a second, each log its own Update and its own View).
type pump struct {
	send    func(tea.Msg)
	sending sync.Mutex
	mu      sync.Mutex
	pending []wire.Event
	servers []string   // the server of each pending event
	logs    []logEntry // log notifications, formatted as they arrived
	// While the screen cannot take messages (an $EDITOR runs), what waits is bounded:
	// past max bytes, events and lines are counted, not kept, and the next batch says
	// how many were dropped.
	bytes, max          int
	lostEvents, lostLog int
	wake                chan struct{}
	done                chan struct{}
	once                sync.Once
}

// logEntry is one log notification as the Logs tab shows it: the line (formatted and
// made safe on the reader's goroutine, not in Update), its level and logger for the
// filters, and its server.
type logEntry struct {
	server, level, logger, line string
}

type wireBatchMsg struct {
	events  []wire.Event
	servers []string // which server each event came from
	logs    []logEntry
}

func (msg wireBatchMsg) handle(m *model) tea.Cmd {
	m.onWire(msg.events, msg.servers)
	m.onLogs(msg.logs)
	return nil
}

// newPump starts a pump that holds at most max bytes for the screen.
func newPump(send func(tea.Msg), max int) *pump {
	p := &pump{wake: make(chan struct{}, 1), done: make(chan struct{}), max: max, send: send}
	go func() {
		for {
			select {
			case <-p.done:
				return
			case <-p.wake:
			}
			time.Sleep(16 * time.Millisecond)
			p.flush()
		}
	}()
	return p
}

// flush delivers what is pending now. Before a server's status reaches the screen
// the subscription flushes, so that the screen sees the wire events (a failed
// start's stderr) before the status that follows them: the Tool view shows the stderr
// of the current attempt from where its "connecting" came.
func (p *pump) flush() {
	// sending is held across taking the batch and sending it: two flushes deliver
	// their batches in the order they took them.
	p.sending.Lock()
	defer p.sending.Unlock()
	p.mu.Lock()
	batch, servers, logs := p.pending, p.servers, p.logs
	p.pending, p.servers, p.logs, p.bytes = nil, nil, nil, 0
	if p.lostEvents > 0 {
		batch = append(batch, wire.Event{Time: time.Now(), Kind: wire.KindSynthetic,
			Text: fmt.Sprintf("%d wire events were dropped while the screen was busy (a recording keeps them all)", p.lostEvents)})
		servers = append(servers, "")
	}
	if p.lostLog > 0 {
		logs = append(logs, logEntry{line: fmt.Sprintf("… %d log lines were dropped while the screen was busy", p.lostLog)})
	}
	p.lostEvents, p.lostLog = 0, 0
	p.mu.Unlock()
	if len(batch) > 0 || len(logs) > 0 {
		p.send(wireBatchMsg{events: batch, servers: servers, logs: logs})
	}
}

// keepShares is how --keep (Options.Keep) is split between what holds frames and
// lines for the screen: Traffic's spool, Logs', Stderr's, and the pump's pending
// batch. The pump is counted too: while the screen is blocked (an $EDITOR runs) it
// fills up to its share, and a fixed bound beside --keep (it was 64 MiB) made
// --keep 8MiB hold 72 (issue 23, target 3). The shares add up to 5/8 of keep.
type keepShares struct{ traffic, logs, stderr, pending int64 }

func splitKeep(keep int64) keepShares {
	keep = keepOrDefault(keep)
	// The stores count 5/8 of keep as theirs. A record costs about a fifth more than
	// its count (the allocator's size classes, the spill file's block index:
	// TestLogsHoldTheirShareOfKeep), so they hold about 3/4; the runtime's limit
	// (package memlimit: 9/8 of keep above the process at its start) leaves the
	// collector the rest. Under that limit, 3/4 counted (0.9 held) left the collector
	// less room for the same RSS (scripts/bench-memory).
	s := keepShares{traffic: keep / 64 * 18, logs: keep / 64 * 7, stderr: keep / 64 * 7}
	s.pending = keep/8*5 - s.traffic - s.logs - s.stderr
	return s
}

func keepOrDefault(keep int64) int64 {
	if keep <= 0 {
		return spool.DefaultKeep
	}
	return keep
}

// pendingMax is the pump's bound: its share of --keep, but at least minPending, so
// that with a tiny --keep a burst between two flushes (the screen not blocked at
// all) is not dropped.
func (m *model) pendingMax() int { return int(max(splitKeep(m.opts.Keep).pending, minPending)) }

const minPending = 1 << 20

func (p *pump) listen(server string, e wire.Event) {
	p.mu.Lock()
	// The first event waiting is kept whatever its size (as a spool keeps at least
	// its newest record): a frame bigger than the pump's share still reaches Traffic.
	if n := len(e.Data) + len(e.Text) + 128; p.bytes == 0 || p.bytes+n <= p.max {
		p.bytes += n
	} else {
		p.lostEvents++
		p.mu.Unlock()
		return
	}
	p.pending = append(p.pending, e)
	p.servers = append(p.servers, server)
	p.mu.Unlock()
	p.poke()
}

// log queues one log notification of a server, received at t, as the line the Logs
// tab shows.
func (p *pump) log(server string, t time.Time, l client.LogMessage) {
	e := logEntry{server: server, level: l.Level, logger: l.Logger, line: logLine(t, l)}
	p.mu.Lock()
	if n := len(e.line) + len(e.level) + len(e.logger) + 64; p.bytes == 0 || p.bytes+n <= p.max {
		p.bytes += n
	} else {
		p.lostLog++
		p.mu.Unlock()
		return
	}
	p.logs = append(p.logs, e)
	p.mu.Unlock()
	p.poke()
}

// dropped counts n log lines the workbench's subscription lost while this reader
// waited on the screen: the next batch says so with the pump's own.
func (p *pump) dropped(n int) {
	if n <= 0 {
		return
	}
	p.mu.Lock()
	p.lostLog += n
	p.mu.Unlock()
	p.poke()
}

// poke wakes the flusher (once per batch: the wake channel holds one).
func (p *pump) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// logLine is how the Logs tab shows a notifications/message.
func logLine(t time.Time, l client.LogMessage) string {
	return safe(fmt.Sprintf("%s %-9s %s%s", t.Format("15:04:05"), l.Level, loggerPrefix(l.Logger), oneLine(string(l.Data), 500)))
}

func (p *pump) stop() { p.once.Do(func() { close(p.done) }) }

// editorArgv is the user's editor for ctrl+e as a command and its arguments (vi when
// $VISUAL and $EDITOR say nothing but blanks).
func editorArgv() []string {
	if f := strings.Fields(editorCommand()); len(f) > 0 {
		return f
	}
	return []string{"vi"}
}

// editorCommand is the user's editor for ctrl+e.
func editorCommand() string {
	for _, k := range []string{"VISUAL", "EDITOR"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	return "vi"
}
