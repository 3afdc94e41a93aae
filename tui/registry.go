package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/registry"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// :add NAME registry:ENTRY[@VERSION][#TYPE] adds a server of the MCP Registry: the
// entry is fetched in a command (registryEntryMsg); when its package or remote asks
// for values (environment variables, headers, arguments), a form built from the entry
// asks for them (registryDialog: secrets masked, the command or URL shown before
// anything runs); then the server is added as a session server.

// registryEntryMsg is the entry fetched for :add NAME registry:REF.
type registryEntryMsg struct {
	name, ref string
	server    registry.Server
	pkg       *registry.Package
	remote    *registry.Transport
	// env are the values of the package's environment variables found in mcpscope's
	// environment (read in the command, not in Update): the form starts with them.
	env registry.Values
	err error
}

// fetchRegistryEntry is the command that fetches registry:REF for :add NAME.
func (m *model) fetchRegistryEntry(name, ref string) tea.Cmd {
	base := m.opts.Registry
	return func() tea.Msg {
		out := registryEntryMsg{name: name, ref: ref}
		entryName, version, kind, err := registry.ParseRef(ref)
		if err != nil {
			out.err = err
			return out
		}
		if base == "" {
			if base, err = registry.BaseURL(""); err != nil {
				out.err = err
				return out
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		e, err := (&registry.Client{Base: base, UserAgent: "mcpscope"}).Get(ctx, entryName, version)
		if err == nil && e.Status == "deleted" {
			err = fmt.Errorf("%s is deleted from the registry %s: it is not run", entryName, base)
		}
		if err != nil {
			out.err = err
			return out
		}
		out.server = e.Server
		if out.pkg, out.remote, out.err = registry.Choose(e.Server, kind); out.err != nil {
			return out
		}
		out.env = registry.Values{}
		for _, n := range registry.Needs(out.pkg, out.remote) {
			if v, ok := strings.CutPrefix(n.Key, "env:"); ok {
				if val, ok := os.LookupEnv(v); ok {
					out.env[n.Key] = val
				}
			}
		}
		return out
	}
}

func (msg registryEntryMsg) handle(m *model) tea.Cmd {
	if msg.err != nil {
		m.notice = "add " + msg.name + ": " + safe(oneLine(msg.err.Error(), 300))
		return nil
	}
	if m.server(msg.name) != nil {
		m.notice = fmt.Sprintf("there is already a server named %q; pick another name", msg.name)
		return nil
	}
	d := &registryDialog{msg: msg}
	for _, n := range registry.Needs(msg.pkg, msg.remote) {
		d.fields = append(d.fields, registryField{need: n, value: msg.env[n.Key]})
	}
	if len(d.fields) == 0 {
		return d.add(m)
	}
	m.openDialog(d)
	return nil
}

// registryField is one value the entry asks for.
type registryField struct {
	need  registry.Need
	value string
}

// registryDialog asks for the values an entry's package or remote needs.
type registryDialog struct {
	msg    registryEntryMsg
	fields []registryField
	cursor int
	err    string
}

var registryKeys = struct {
	Add, Next, Prev, Cancel, Erase key.Binding
}{
	Add:    key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "add the server")),
	Next:   key.NewBinding(key.WithKeys("tab", "down", "enter"), key.WithHelp("tab/enter", "next field")),
	Prev:   key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab", "previous field")),
	Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	Erase:  key.NewBinding(key.WithKeys("backspace"), key.WithHelp("backspace", "erase")),
}

func (d *registryDialog) traits() dialogTraits { return dialogTraits{layer: layerPane, typing: true} }

func (d *registryDialog) about(*model) string { return safe(d.msg.name) }

func (d *registryDialog) help(*model) (string, [][]key.Binding) {
	k := registryKeys
	return "add from the registry", [][]key.Binding{{k.Add, k.Next, k.Cancel, k.Prev, k.Erase}}
}

func (d *registryDialog) update(m *model, msg tea.Msg) tea.Cmd {
	f := &d.fields[d.cursor]
	if p, ok := msg.(tea.PasteMsg); ok {
		if len(f.value) < 16<<10 {
			f.value += strings.TrimRight(p.Content, "\r\n")
		}
		return nil
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	last := d.cursor == len(d.fields)-1
	switch {
	case key.Matches(k, registryKeys.Cancel):
		m.closeDialog(d)
		m.notice = "add " + d.msg.name + " cancelled"
	case key.Matches(k, registryKeys.Add), last && key.Matches(k, m.keys.Confirm):
		return d.add(m)
	case key.Matches(k, registryKeys.Next):
		d.cursor = (d.cursor + 1) % len(d.fields)
	case key.Matches(k, registryKeys.Prev):
		d.cursor = (d.cursor + len(d.fields) - 1) % len(d.fields)
	case key.Matches(k, registryKeys.Erase):
		if r := []rune(f.value); len(r) > 0 {
			f.value = string(r[:len(r)-1])
		}
	default:
		if k.Text != "" && len(f.value) < 16<<10 {
			f.value += k.Text
		}
	}
	return nil
}

// values are the answers, by need key.
func (d *registryDialog) values() registry.Values {
	v := registry.Values{}
	for _, f := range d.fields {
		if f.value != "" {
			v[f.need.Key] = f.value
		}
	}
	return v
}

// add resolves the entry with the answers and adds the server; what is still missing
// stays in the dialog, named.
func (d *registryDialog) add(m *model) tea.Cmd {
	msg := d.msg
	l, err := registry.Resolve(msg.server, msg.pkg, msg.remote, d.values())
	if err != nil {
		var me *registry.MissingError
		if errors.As(err, &me) && len(d.fields) > 0 {
			var names []string
			for _, n := range me.Needs {
				names = append(names, n.Label)
			}
			d.err = "still needed: " + strings.Join(names, ", ")
			return nil
		}
		m.closeDialog(d)
		m.notice = "add " + msg.name + ": " + safe(oneLine(err.Error(), 300))
		return nil
	}
	m.closeDialog(d)
	t := target.Target{Argv: l.Argv, Env: l.Env, URL: l.URL, Header: l.Header, Secrets: l.Secrets}
	if l.URL != "" {
		t.Transport = l.Transport
	}
	spec := workbench.Spec{Name: msg.name, Target: t, Source: workbench.SourceSession, Origin: "registry:" + msg.ref}
	wb := m.wb
	m.notice = "add " + msg.name + "…"
	return func() tea.Msg { return wbDoneMsg{what: "add " + msg.name, err: wb.Add(spec)} }
}

// what is the command line or URL the choice runs, for the dialog's heading: the
// entry decides it, so the user sees it before anything starts.
func (d *registryDialog) what() string {
	v := registry.Values{}
	for _, f := range d.fields {
		v[f.need.Key] = "$" + f.need.Label
		if !f.need.IsSecret && f.value != "" {
			v[f.need.Key] = f.value
		}
	}
	l, err := registry.Resolve(d.msg.server, d.msg.pkg, d.msg.remote, v)
	if err != nil {
		return "?"
	}
	if l.URL != "" {
		return l.URL
	}
	return strings.Join(l.Argv, " ")
}

func (d *registryDialog) view(m *model, width, height int) string {
	st := m.st
	s := d.msg.server
	lines := []string{st.title.Render("Add " + safe(d.msg.name) + " from the registry: " + safe(s.Name) + " " + safe(s.Version))}
	kind := "remote"
	if d.msg.pkg != nil {
		kind = d.msg.pkg.RegistryType
	}
	lines = append(lines, wrapText(kind+": "+safe(d.what()), width)...)
	lines = append(lines, "")
	for i, f := range d.fields {
		n := f.need
		label := safe(n.Label)
		if n.IsRequired {
			label += "*"
		}
		kindWord, _, _ := strings.Cut(n.Key, ":")
		label += " (" + map[string]string{"env": "environment variable", "header": "header", "arg": "argument", "var": "URL variable"}[kindWord]
		if n.IsSecret {
			label += ", secret"
		}
		label += ")"
		shown := safe(f.value)
		if n.IsSecret {
			shown = maskedField(f.value)
		}
		if shown == "" && n.Default != "" {
			shown = st.muted.Render("default: " + safe(n.Default))
		}
		cursor := "  "
		if i == d.cursor {
			cursor = st.accent.Render("> ")
			shown += st.accent.Render("▏")
		}
		lines = append(lines, cursor+label+": "+shown)
		if n.Description != "" {
			for _, l := range wrapText(safe(n.Description), max(width-4, 10)) {
				lines = append(lines, "    "+st.muted.Render(l))
			}
		}
	}
	if d.err != "" {
		lines = append(lines, "", st.err.Render(safe(d.err)))
	}
	lines = append(lines, "", st.muted.Render("tab next field · ctrl+s (or enter on the last) adds · esc cancels · * required; values stay in this session, never written to a file"))
	return strings.Join(fitLines(lines, height), "\n")
}
