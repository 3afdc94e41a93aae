package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/pins"
	"github.com/mcpscope/mcpscope/surface"
)

// Pin is how package pins knows a server: its target as the command line gave it
// (with its name, the pin's key), and the command that takes its surface as the pin.
type Pin struct {
	Target, Accept string
}

// pinState is where each server's comparison with its pin is (by server name).
type pinState struct {
	srv map[string]*serverPin
}

// serverPin is one server's comparison with its pin. The whole surface is compared
// on each connection: the tools as listed, and the prompts and templates listed
// once for that connection (gen); a tool list that changes within the connection
// (list_changed, a refetch) is compared again with that connection's prompts and
// templates, without listing them again. One comparison runs at a time per server
// (the first one writes the pin).
type serverPin struct {
	of      string           // the tool list last compared: "gen:list"
	running bool             // a comparison is under way
	gen     int              // the connection rest was listed on
	rest    *surface.Surface // its prompts and templates (nil: not listed yet)
	last    map[string]bool  // the drift last compared, as driftKeys names it (nil: none)
}

// pinMsg is a finished comparison of one server's surface with its pin.
type pinMsg struct {
	server, of string
	gen        int
	rest       *surface.Surface // the prompts and templates listed (nil: none were)
	drift      pins.Drift
	first      bool // no pin existed: the surface was pinned
	defs       int  // how many definitions the surface has
	err        error
}

func (msg pinMsg) handle(m *model) tea.Cmd {
	sp := m.changes.pins.srv[msg.server]
	s := m.server(msg.server)
	if sp == nil || s == nil {
		return nil
	}
	sp.running, sp.of = false, msg.of // a failure is not retried on this list: the next connection tries again
	if msg.rest != nil {
		sp.gen, sp.rest = msg.gen, msg.rest
	}
	switch {
	case msg.err != nil:
		if msg.gen == s.gen() && s.state() == stateReady {
			// Not when the server went away meanwhile: its status says that.
			m.noteBeside("pins: " + m.serverPrefix(msg.server) + msg.err.Error())
		}
	case msg.first:
		// Said once, beside whatever the notice says: a pin taken is news, not
		// something to act on, and must not hide what the user's own action said.
		m.noteBeside(fmt.Sprintf("pinned %s's surface: %s", msg.server, plural.Count(msg.defs, "definition")))
	case msg.gen != s.gen():
		// A restart since: its own comparison comes.
	default:
		// Only what was not shown as drift before is news: a tool that drifted and
		// then changed again is told by the change, not by a second drift.
		d := msg.drift
		fresh, keys := map[string]bool{}, map[string]bool{}
		for _, k := range driftKeys(d) {
			keys[k] = true
			if !sp.last[k] {
				fresh[k] = true
			}
		}
		sp.last = keys
		if len(fresh) > 0 {
			m.onPinDrift(msg.server, d, fresh)
		}
	}
	return nil
}

// driftKeys names each definition of a drift with how it differs ("changed tool
// x"): a tool removed and then back, changed, is news again.
func driftKeys(d pins.Drift) []string {
	var out []string
	for _, part := range []struct {
		verb string
		keys []string
	}{{"changed", d.Changed}, {"added", d.Added}, {"removed", d.Removed}} {
		for _, k := range part.keys {
			out = append(out, part.verb+" "+k)
		}
	}
	return out
}

// serverPrefix is "NAME: " with several servers, "" with one (as notices say it).
func (m *model) serverPrefix(name string) string {
	if m.several() {
		return name + ": "
	}
	return ""
}

// noteBeside says text in the notice without hiding what it says now: a background
// finding (a pin taken, a drift) comes after the notice of the user's last action,
// which it would otherwise replace before it was read.
func (m *model) noteBeside(text string) {
	if m.notice == "" || strings.Contains(m.notice, text) {
		m.notice = text
		return
	}
	m.notice += " · " + text
}

// ensurePins compares each server that has a pin identity (Options.Pins; none with
// --no-pins) with its pin once its tool list for the current connection is
// complete, and pins its surface the first time (issue 25: the first connection
// pins). The listing and the file are a command's, never Update's; here it is a
// map lookup per server, so it is cheap after every message.
func (m *model) ensurePins() tea.Cmd {
	if len(m.opts.Pins) == 0 && m.opts.PinOf == nil {
		return nil
	}
	p := &m.changes.pins
	if p.srv == nil {
		p.srv = map[string]*serverPin{}
	}
	var cmds []tea.Cmd
	for _, s := range m.servers {
		if s.snap.Tools == nil || s.snap.ToolsGen != s.gen() {
			continue
		}
		sp := p.srv[s.name]
		if sp == nil {
			sp = &serverPin{}
			p.srv[s.name] = sp
		}
		gen := s.gen()
		of := fmt.Sprintf("%d:%p", gen, s.snap.Tools)
		if sp.running || sp.of == of {
			continue
		}
		pin, ok := m.pinOf(s) // once per connection's list, not per message
		if !ok {
			sp.of = of
			continue
		}
		sp.running = true
		var rest *surface.Surface
		if sp.gen == gen {
			rest = sp.rest
		}
		cmds = append(cmds, m.comparePin(s.name, pin.Target, of, gen, s.tools(), rest))
	}
	return tea.Batch(cmds...)
}

// comparePin lists what the connection's surface lacks (its prompts and templates,
// unless rest has them) and checks the whole against the server's pin, pinning it
// when it has none. Bounded: one listing of each kind under a minute's timeout.
func (m *model) comparePin(server, target, of string, gen int, tools []client.Tool, rest *surface.Surface) tea.Cmd {
	check := func(msg pinMsg, s *surface.Surface) pinMsg {
		store, err := pins.Open("")
		if err != nil {
			msg.err = err
			return msg
		}
		msg.defs = len(pins.Hashes(s))
		msg.drift, msg.first, msg.err = store.Check(server, target, s, time.Now())
		return msg
	}
	base := pinMsg{server: server, of: of, gen: gen}
	if rest != nil {
		return func() tea.Msg {
			s := *rest
			s.Tools, s.HasTools = tools, true
			return check(base, &s)
		}
	}
	if m.wb == nil {
		return nil
	}
	return sessionCmd(m.wb, server, 60*time.Second, func(ctx context.Context, sess *client.Session) tea.Msg {
		s, err := pins.Listed(ctx, sess, tools)
		if err != nil {
			base.err = fmt.Errorf("%s's surface was not compared with its pin: %w", server, err)
			return base
		}
		msg := base
		msg.rest = &surface.Surface{Prompts: s.Prompts, HasPrompts: s.HasPrompts, Templates: s.Templates, HasTemplates: s.HasTemplates, Client: s.Client}
		return check(msg, s)
	}, func(err error) tea.Msg {
		base.err = fmt.Errorf("%s's surface was not compared with its pin: %w", server, err)
		return base
	})
}

// pinOf is a server's pin identity: Options.PinOf's answer for its spec, else
// Options.Pins' entry for its name.
func (m *model) pinOf(s *server) (Pin, bool) {
	if m.opts.PinOf != nil {
		return m.opts.PinOf(s.snap.Spec)
	}
	p, ok := m.opts.Pins[s.name]
	return p, ok
}

// onPinDrift puts a server's drift from its pin into the Changes view, and marks
// its changed and added tools in the list until the user has looked. fresh are the
// drift's keys (driftKeys) not shown as drift before. What a change set of this session already
// shows (a list_changed that took a tool away from its pin) is said on that set,
// not as a second set of the same change (changesView.explainDrift).
func (m *model) onPinDrift(server string, d pins.Drift, fresh map[string]bool) {
	accept := "mcpscope pin accept " + server
	if s := m.server(server); s != nil {
		if p, ok := m.pinOf(s); ok && p.Accept != "" {
			accept = p.Accept
		}
	}
	rest := m.changes.explainDrift(server, d, fresh, accept)
	if rest.Empty() {
		m.noteBeside(m.serverPrefix(server) + "not the pinned surface any more")
		return
	}
	m.changes.addPinDrift(server, rest, accept, time.Now())
	for _, k := range append(append([]string{}, rest.Changed...), rest.Added...) {
		if name, ok := strings.CutPrefix(k, surface.ObjTool+" "); ok {
			m.list.mark(server, name, markChanged(false))
		}
	}
	n := len(rest.Changed) + len(rest.Added) + len(rest.Removed)
	what := plural.Count(n, "definition") + " " + map[bool]string{true: "differs", false: "differ"}[n == 1] + " from the pinned surface"
	m.noteBeside(m.serverPrefix(server) + what + " (C shows them)")
}
