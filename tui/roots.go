package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/tui/form"
)

// What the client declares to each server, shown and changed from the Servers tab:
// the sampling capability (S), the roots (o opens the roots editor: a adds a
// directory, d removes the selected root; each change is sent at once, with
// notifications/roots/list_changed in the 2025 era). Declaring a capability the
// session did not have means a new handshake: the server is reconnected.

type rootsDialog struct {
	server string
	roots  []client.Root
	list
	adding *form.Form // the directory being typed, while adding
}

type (
	rootAddedMsg struct {
		server string
		root   client.Root
		err    error
	}
	rootsSentMsg struct {
		server string
		n      int
		era    string
		err    error
	}
)

func (msg rootAddedMsg) handle(m *model) tea.Cmd { return m.onRootAdded(msg) }
func (msg rootsSentMsg) handle(m *model) tea.Cmd { return m.onRootsSent(msg) }

const rootDirSchema = `{"type":"object","properties":{"dir":{"type":"string","title":"Directory","description":"a directory to offer as a file:// root"}},"required":["dir"]}`

// selectedServer is the server under the Servers tab's cursor.
func (m *model) selectedServer() *server {
	if c := m.srvList.cursor; c >= 0 && c < len(m.servers) {
		return m.servers[c]
	}
	return m.srv
}

// toggleSampling is S in Servers: sampling declared to the selected server, or no
// longer; the server reconnects to learn it.
func (m *model) toggleSampling() tea.Cmd {
	s := m.selectedServer()
	on := !m.asks.samplingFor(s.name)
	m.asks.setSampling(s.name, on)
	word := "declared"
	if !on {
		word = "no longer declared"
	}
	m.notice = "sampling " + word + " to " + s.name + "; reconnecting it"
	return m.restartServer(s)
}

// editRoots is o in Servers: the roots dialog for the selected server.
func (m *model) editRoots() {
	s := m.selectedServer()
	roots, _ := m.asks.rootsFor(s.name)
	m.openDialog(&rootsDialog{server: s.name, roots: roots})
}

func (d *rootsDialog) traits() dialogTraits {
	return dialogTraits{layer: layerPane, typing: true}
}

func (d *rootsDialog) about(*model) string { return safe(d.server) }

func (d *rootsDialog) help(m *model) (string, [][]key.Binding) {
	k := m.keys
	return "Roots", [][]key.Binding{k.rootsHelp(), {k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End}}
}

func (d *rootsDialog) update(m *model, msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		if d.adding != nil {
			return d.adding.Update(msg) // a paste goes into the directory field
		}
		return nil
	}
	if d.adding != nil {
		switch {
		case key.Matches(k, m.keys.Leave):
			d.adding = nil
			return nil
		case key.Matches(k, m.keys.Confirm):
			v, err := d.adding.Value()
			var p struct {
				Dir string `json:"dir"`
			}
			if err == nil {
				err = json.Unmarshal(v, &p)
			}
			if err != nil || strings.TrimSpace(p.Dir) == "" {
				m.notice = "type a directory (esc leaves it)"
				return nil
			}
			d.adding = nil
			server, dir := d.server, p.Dir
			return func() tea.Msg { // the file system is read off the UI goroutine
				st, err := os.Stat(dir)
				if err == nil && !st.IsDir() {
					err = fmt.Errorf("%s is not a directory", dir)
				}
				if err != nil {
					return rootAddedMsg{server: server, err: err}
				}
				r, err := client.RootFromDir(dir)
				return rootAddedMsg{server: server, root: r, err: err}
			}
		}
		return d.adding.Update(k)
	}
	switch {
	case key.Matches(k, m.keys.Leave, m.keys.EditRoots):
		m.closeDialog(d)
		return nil
	case key.Matches(k, m.keys.AddRoot):
		f, _ := form.New(json.RawMessage(rootDirSchema))
		f.SetStyles(m.st.form)
		d.adding = f
		return nil
	case key.Matches(k, m.keys.RemoveRoot):
		if len(d.roots) == 0 {
			return nil
		}
		d.clamp(len(d.roots))
		gone := d.roots[d.cursor]
		d.roots = append(d.roots[:d.cursor:d.cursor], d.roots[d.cursor+1:]...)
		m.notice = "root removed: " + safe(gone.URI)
		return m.applyRoots(d.server, d.roots)
	}
	d.keyMove(k, m.keys, len(d.roots))
	return nil
}

func (m *model) onRootAdded(msg rootAddedMsg) tea.Cmd {
	if msg.err != nil {
		m.notice = "root not added: " + msg.err.Error()
		return nil
	}
	roots, _ := m.asks.rootsFor(msg.server)
	for _, r := range roots {
		if r.URI == msg.root.URI {
			m.notice = safe(r.URI) + " is a root already"
			return nil
		}
	}
	roots = append(roots, msg.root)
	if d := findDialog[*rootsDialog](&m.dialogs); d != nil && d.server == msg.server {
		d.roots = roots
		d.cursor = len(roots) - 1
	}
	m.notice = "root added: " + safe(msg.root.URI)
	return m.applyRoots(msg.server, roots)
}

// applyRoots makes roots the server's: sent to its session at once, or declared with
// a reconnect when the session has no roots capability.
func (m *model) applyRoots(server string, roots []client.Root) tea.Cmd {
	_, declared := m.asks.rootsFor(server)
	m.asks.setRoots(server, roots)
	s := m.server(server)
	if s == nil || m.wb == nil {
		return nil
	}
	if !declared {
		m.notice = "roots declared to " + server + "; reconnecting it"
		return m.restartServer(s)
	}
	wb := m.wb
	return sessionCmd(wb, server, 30*time.Second, func(_ context.Context, sess *client.Session) tea.Msg {
		return rootsSentMsg{server: server, n: len(roots), era: sess.Info().Era, err: sess.SetRoots(roots)}
	}, func(err error) tea.Msg {
		return rootsSentMsg{server: server, err: err}
	})
}

func (m *model) onRootsSent(msg rootsSentMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		m.notice = "roots of " + msg.server + ": " + msg.err.Error()
	case msg.era == client.EraModern:
		m.notice = fmt.Sprintf("%s has %s now; it reads them with its next request (2026-07-28 has no list_changed)", msg.server, plural.Count(msg.n, "root"))
	default:
		m.notice = fmt.Sprintf("%s has %s now; notifications/roots/list_changed sent", msg.server, plural.Count(msg.n, "root"))
	}
	return nil
}

// rootsView is the roots editor, over the tabs.
func (d *rootsDialog) view(m *model, width, height int) string {
	st := m.st
	lines := []string{st.title.Render("Roots offered to " + safe(d.server)),
		st.muted.Render(truncate("↑/↓ selects · a adds a directory · d removes the selected · esc closes", width)), ""}
	if len(d.roots) == 0 {
		lines = append(lines, st.muted.Render("No roots: roots/list answers an empty list."))
	}
	room := max(height-len(lines)-5, 1)
	lines = append(lines, d.draw(len(d.roots), room, func(i int, selected bool) string {
		r := d.roots[i]
		row := safe(r.URI)
		if r.Name != "" {
			row += st.muted.Render("  " + safe(r.Name))
		}
		if selected {
			return truncate(st.selected.Render("›")+" "+row, width)
		}
		return truncate("  "+row, width)
	})...)
	if d.adding != nil {
		lines = append(lines, "", st.accent.Render("Add a root")+st.muted.Render("  enter adds · esc leaves"), d.adding.View(width, 3))
	}
	return strings.Join(lines, "\n")
}

// rootsHelp is the roots editor's keys.
func (k keyMap) rootsHelp() []key.Binding {
	return []key.Binding{k.AddRoot, k.RemoveRoot, relabel(k.Leave, "close")}
}

// clientSideLines are the Servers tab's lines on what is declared to a server.
func (m *model) clientSideLines(s *server, width int) []string {
	st := m.st
	out := []string{"", st.accent.Render("declared to this server") + st.muted.Render("  (S sampling · o roots)")}
	if m.asks.samplingFor(s.name) {
		how := "a dialog asks you"
		if m.asks.reply != "" {
			how = "answered with --sampling-reply"
		}
		out = append(out, "sampling    yes ("+how+")")
	} else {
		out = append(out, "sampling    no")
	}
	roots, declared := m.asks.rootsFor(s.name)
	switch {
	case !declared:
		out = append(out, "roots       not declared")
	case len(roots) == 0:
		out = append(out, "roots       none (an empty list)")
	default:
		for i, r := range roots {
			label := "            "
			if i == 0 {
				label = "roots       "
			}
			out = append(out, truncate(label+safe(r.URI), width))
		}
	}
	if lvl := m.asks.levelFor(s.name); lvl != "" {
		out = append(out, "log level   "+lvl)
	}
	return out
}
