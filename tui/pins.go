package tui

import (
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

// pinState is what the tool lists were compared with their pins for (the lists'
// identities, as the Lint view's key) and what each server's last drift was, so
// that the same drift is not shown twice.
type pinState struct {
	of, running string
	last        map[string]string // by server: the drift last shown ("" none)
}

// pinMsg is a finished comparison of the lists key names: each compared server's
// drift (empty when it matches its pin).
type pinMsg struct {
	key   string
	drift map[string]pins.Drift
	err   map[string]error
}

func (msg pinMsg) handle(m *model) tea.Cmd {
	p := &m.changes.pins
	if msg.key != p.running {
		return nil
	}
	p.of, p.running = msg.key, ""
	if p.last == nil {
		p.last = map[string]string{}
	}
	for _, s := range m.servers { // in the session's order
		d, ok := msg.drift[s.name]
		if err := msg.err[s.name]; err != nil {
			m.notice = "pins: " + err.Error()
		}
		if !ok {
			continue
		}
		seen := strings.Join(d.Changed, "\n") + "\x00" + strings.Join(d.Added, "\n") + "\x00" + strings.Join(d.Removed, "\n")
		if d.Empty() || seen == p.last[s.name] {
			p.last[s.name] = seen
			continue
		}
		p.last[s.name] = seen
		m.onPinDrift(s.name, d)
	}
	return nil
}

// ensurePins compares each server that has a pin (Options.Pins) with it when its
// tool list changed, in a command (the pin is a file), never in Update; cheap
// otherwise. Nothing is pinned here: lint and pin accept take pins.
func (m *model) ensurePins() tea.Cmd {
	if len(m.opts.Pins) == 0 {
		return nil
	}
	p := &m.changes.pins
	k := m.lintKey()
	if k == p.of || k == p.running {
		return nil
	}
	p.running = k
	type list struct {
		name string
		pin  Pin
		tool []client.Tool
	}
	var lists []list
	for _, s := range m.servers {
		if pin, ok := m.opts.Pins[s.name]; ok && s.snap.Tools != nil && s.snap.ToolsGen == s.gen() {
			lists = append(lists, list{s.name, pin, s.tools()})
		}
	}
	return func() tea.Msg {
		msg := pinMsg{key: k, drift: map[string]pins.Drift{}, err: map[string]error{}}
		store, err := pins.Find("")
		if err != nil {
			return msg
		}
		for _, l := range lists {
			// The tools only: the workbench holds no prompts or templates to compare.
			d, pinned, err := store.Compare(l.name, l.pin.Target, &surface.Surface{Tools: l.tool, HasTools: true})
			switch {
			case err != nil:
				msg.err[l.name] = err
			case pinned:
				msg.drift[l.name] = d
			}
		}
		return msg
	}
}

// onPinDrift puts a server's drift from its pin into the Changes view, and marks
// its changed and added tools in the list until the user has looked.
func (m *model) onPinDrift(server string, d pins.Drift) {
	accept := "mcpscope pin accept " + server
	if p, ok := m.opts.Pins[server]; ok && p.Accept != "" {
		accept = p.Accept
	}
	m.changes.addPinDrift(server, d, accept, time.Now())
	for _, k := range append(append([]string{}, d.Changed...), d.Added...) {
		if name, ok := strings.CutPrefix(k, surface.ObjTool+" "); ok {
			m.list.mark(server, name, markChanged(false))
		}
	}
	n := len(d.Changed) + len(d.Added) + len(d.Removed)
	what := plural.Count(n, "definition") + " " + map[bool]string{true: "differs", false: "differ"}[n == 1] + " from the pinned surface"
	if m.several() {
		what = server + ": " + what
	}
	m.notice = what + " (C shows them)"
}
