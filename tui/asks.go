package tui

import (
	"context"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
)

// What servers ask of the client (elicitation, sampling, roots) and what the client
// declares for each server (the sampling capability, its roots, its log level). The
// handlers are set per server through the workbench's ForServer hook, so that every
// dialog names the server asking; they run on the session's goroutines and reach the
// screen only through messages. The state they read is guarded by its own mutex:
// ForServer runs under the workbench's lock, on its goroutine.

type clientSide struct {
	mu       sync.Mutex
	sampling map[string]bool          // server -> sampling declared
	roots    map[string][]client.Root // server -> roots (declared when present)
	level    map[string]string        // server -> log level asked for
	// defaults, for servers added later
	allSampling bool
	allRoots    []client.Root // nil: not declared
	reply       string        // --sampling-reply: answer without a dialog

	done     chan struct{} // closed when the session closes: waiting handlers give up
	shutOnce sync.Once
}

// shutdown makes every handler still waiting for the user give up, so that closing
// the sessions (which waits for their handlers) never waits for a dialog.
func (cs *clientSide) shutdown() { cs.shutOnce.Do(func() { close(cs.done) }) }

func newClientSide(opts Options) *clientSide {
	cs := &clientSide{sampling: map[string]bool{}, roots: map[string][]client.Root{}, level: map[string]string{},
		allSampling: opts.Sampling || opts.SamplingReply != "", reply: opts.SamplingReply, done: make(chan struct{})}
	if opts.Roots != nil {
		cs.allRoots = append([]client.Root{}, opts.Roots...)
	}
	return cs
}

func (cs *clientSide) samplingFor(server string) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if v, ok := cs.sampling[server]; ok {
		return v
	}
	return cs.allSampling
}

func (cs *clientSide) setSampling(server string, on bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.sampling[server] = on
}

// rootsFor is the server's roots; declared is false when it has none declared.
func (cs *clientSide) rootsFor(server string) (roots []client.Root, declared bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if r, ok := cs.roots[server]; ok {
		return append([]client.Root{}, r...), true
	}
	if cs.allRoots != nil {
		return append([]client.Root{}, cs.allRoots...), true
	}
	return nil, false
}

func (cs *clientSide) setRoots(server string, roots []client.Root) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.roots[server] = append([]client.Root{}, roots...)
}

func (cs *clientSide) levelFor(server string) string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.level[server]
}

func (cs *clientSide) setLevel(server, level string) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.level[server] = level
}

// askSeq numbers the requests that open a dialog.
var askSeq atomic.Int64

// askGoneMsg says the request behind a dialog ended (the server cancelled it, its
// request timed out, the session closed): the dialog closes.
type askGoneMsg struct{ id int64 }

func (msg askGoneMsg) handle(m *model) tea.Cmd { return m.onAskGone(msg.id) }

// forServer is the workbench's ForServer hook: each server's session gets handlers
// that name it, the sampling capability and roots declared for it, and the log level
// it was set to.
func (m *model) forServer(send func(tea.Msg)) func(name string, o *client.Options) {
	cs := m.asks
	return func(name string, o *client.Options) {
		if lvl := cs.levelFor(name); lvl != "" {
			o.LogLevel = lvl
		}
		o.Elicit = func(ctx context.Context, req client.ElicitRequest) (client.ElicitResponse, error) {
			id := askSeq.Add(1)
			reply := make(chan client.ElicitResponse, 1)
			send(elicitMsg{id: id, server: name, req: req, reply: reply})
			select {
			case r := <-reply:
				return r, nil
			case <-ctx.Done():
				send(askGoneMsg{id: id})
				return client.ElicitResponse{}, ctx.Err()
			case <-cs.done:
				return client.ElicitResponse{Action: "cancel"}, nil
			}
		}
		o.Sample = nil
		if cs.samplingFor(name) {
			o.Sample = func(ctx context.Context, req client.SamplingRequest) (client.SamplingResponse, error) {
				if cs.reply != "" {
					send(noticeMsg{text: name + " asked for a model reply (" + samplingSummary(req) + "); answered with --sampling-reply"})
					return client.SamplingResponse{Text: cs.reply}, nil
				}
				id := askSeq.Add(1)
				reply := make(chan client.SamplingResponse, 1)
				send(samplingMsg{id: id, server: name, req: req, reply: reply})
				select {
				case r := <-reply:
					return r, nil
				case <-ctx.Done():
					send(askGoneMsg{id: id})
					return client.SamplingResponse{}, ctx.Err()
				case <-cs.done:
					return client.SamplingResponse{Reject: true}, nil
				}
			}
		}
		o.Roots = nil
		if roots, ok := cs.rootsFor(name); ok {
			o.Roots = roots
		}
	}
}

// enqueueAsk shows a request's dialog, or queues it behind the one open.
func (m *model) enqueueAsk(msg tea.Msg) tea.Cmd {
	m.waiting = append(m.waiting, msg)
	if m.askOpen() == nil {
		return m.nextAsk()
	}
	return nil
}

// nextAsk opens the next queued dialog, if any; the command builds its form when
// the schema is big (openElicit).
func (m *model) nextAsk() tea.Cmd {
	var cmd tea.Cmd
	for m.askOpen() == nil && len(m.waiting) > 0 {
		msg := m.waiting[0]
		m.waiting = m.waiting[1:]
		switch msg := msg.(type) {
		case elicitMsg:
			cmd = m.openElicit(msg)
		case samplingMsg:
			m.openSampling(msg)
		}
	}
	return cmd
}

// onAskGone closes the dialog (or drops the queued one) whose request ended.
func (m *model) onAskGone(id int64) tea.Cmd {
	for i, w := range m.waiting {
		if askID(w) == id {
			m.waiting = append(m.waiting[:i:i], m.waiting[i+1:]...)
			return nil
		}
	}
	d := m.askOpen()
	if d == nil || d.askID() != id {
		return nil
	}
	m.closeDialog(d)
	if _, ok := d.(*samplingDialog); ok {
		m.notice = "the server's sampling request ended before it was answered"
	} else {
		m.notice = "the server's request for input ended before it was answered"
	}
	return m.nextAsk()
}

// askDialog is a dialog that answers a server's request (elicitation, sampling):
// one is open at a time, the others wait in m.waiting.
type askDialog interface {
	dialog
	askID() int64
}

// askOpen is the open dialog that answers a server's request, or nil.
func (m *model) askOpen() askDialog { return findDialog[askDialog](&m.dialogs) }

func askID(msg tea.Msg) int64 {
	switch msg := msg.(type) {
	case elicitMsg:
		return msg.id
	case samplingMsg:
		return msg.id
	}
	return 0
}
