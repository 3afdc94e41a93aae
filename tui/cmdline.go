package tui

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// cmdLine is the command line (":" or ctrl+p): add, remove, restart and disconnect
// servers while the session runs. Nothing it does writes a config file.
type cmdLine struct {
	text string
}

// cmdKeys is the command line's key map.
type cmdKeys struct {
	Run, Complete, Cancel, Erase key.Binding
}

func defaultCmdKeys() cmdKeys {
	return cmdKeys{
		Run:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run the command")),
		Complete: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete a configured name")),
		Cancel:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close the command line")),
		Erase:    key.NewBinding(key.WithKeys("backspace"), key.WithHelp("backspace", "erase")),
	}
}

const cmdUsage = "q(uit) · add NAME · add NAME -- CMD ARGS… · add NAME URL · add NAME registry:ENTRY · remove NAME · restart NAME · disconnect NAME · login NAME · attach TAP · a view's name (changes, auth, lint, prompts, skills, …)"

func (c *cmdLine) traits() dialogTraits {
	return dialogTraits{layer: layerStatus, typing: true}
}

func (c *cmdLine) about(*model) string { return "" }

func (c *cmdLine) help(m *model) (string, [][]key.Binding) {
	k := m.cmdKeys
	return "Command line", [][]key.Binding{{k.Run, k.Complete, k.Cancel, k.Erase}}
}

func (c *cmdLine) update(m *model, msg tea.Msg) tea.Cmd {
	if p, ok := msg.(tea.PasteMsg); ok {
		c.text += strings.ReplaceAll(p.Content, "\n", " ")
		return nil
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, m.cmdKeys.Cancel):
		m.closeDialog(c)
	case key.Matches(k, m.cmdKeys.Run):
		m.closeDialog(c) // closed first: what the command opens comes in front
		return m.runCommand(c.text)
	case key.Matches(k, m.cmdKeys.Complete):
		c.text = m.complete(c.text)
	case key.Matches(k, m.cmdKeys.Erase):
		if r := []rune(c.text); len(r) > 0 {
			c.text = string(r[:len(r)-1])
		}
	default:
		if k.Text != "" {
			c.text += k.Text
		}
	}
	return nil
}

// candidates are the configured names that complete the word after "add ".
func (m *model) candidates(text string) []string {
	rest, ok := strings.CutPrefix(text, "add ")
	if !ok || strings.Contains(strings.TrimLeft(rest, " "), " ") {
		return nil
	}
	rest = strings.TrimLeft(rest, " ")
	var out []string
	for _, sp := range m.opts.Configured {
		if strings.HasPrefix(sp.Name, rest) {
			out = append(out, sp.Name)
		}
	}
	sort.Strings(out)
	return out
}

// complete fills in the configured name (or the common prefix of several).
func (m *model) complete(text string) string {
	if text == "" || (!strings.Contains(text, " ") && strings.HasPrefix("add", text)) {
		return "add "
	}
	c := m.candidates(text)
	if len(c) == 0 {
		return text
	}
	p := c[0]
	for _, s := range c[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	if len(c) == 1 {
		p += " "
	}
	return "add " + p
}

// runCommand checks a command line and runs it on the workbench (in a command).
func (m *model) runCommand(text string) tea.Cmd {
	words := strings.Fields(text)
	if len(words) == 0 {
		return nil
	}
	verb, args := words[0], words[1:]
	if verb == "q" || verb == "quit" { // as in vi; the same question as q
		return m.quit()
	}
	if m.wb == nil {
		m.notice = "no workbench yet"
		return nil
	}
	wb := m.wb
	if t, ok := viewNamed(verb); ok && len(args) == 0 { // :auth, :lint, :prompts, … (views.go)
		m.openTab(t)
		return nil
	}
	switch verb {
	case "attach":
		if len(args) > 1 {
			m.notice = "attach takes one tap NAME (mcpscope taps lists them)"
			return nil
		}
		m.notice = "attaching…"
		return attachCmd(strings.Join(args, ""))
	case "cost": // the tool list's cost column (cost.go)
		m.toggleCostColumn()
		return nil
	case "login":
		switch {
		case len(args) == 1:
			return m.startLogin(args[0], nil)
		case len(args) == 0 && m.loginTarget() != "":
			return m.startLogin(m.loginTarget(), nil)
		}
		m.notice = "login needs one NAME: the server to log in with OAuth (" + strings.Join(m.serverNames(), ", ") + ")"
		return nil
	}
	done := func(what string, f func() error) tea.Cmd {
		m.notice = what + "…"
		return func() tea.Msg { return wbDoneMsg{what: what, err: f()} }
	}
	switch verb {
	case "add":
		if len(args) == 0 {
			m.notice = "add needs a NAME: " + cmdUsage
			return nil
		}
		name := args[0]
		if !m.configured(name) {
			for _, r := range m.opts.Refused {
				if r.Name == name && len(args) == 1 {
					m.notice = "cannot add " + safe(name) + ": " + safe(r.Why) // its file, line and reason
					return nil
				}
			}
		}
		if err := workbench.ValidateName(name); err != nil {
			m.notice = err.Error()
			return nil
		}
		if s := m.server(name); s != nil && !m.configured(name) {
			m.notice = fmt.Sprintf("there is already a server named %q; pick another name (or remove %s first)", name, name)
			return nil
		}
		switch {
		case len(args) == 1:
			if !m.configured(name) {
				names := m.configuredNames()
				if len(names) == 0 {
					m.notice = fmt.Sprintf("no configured server is named %q (no config file was found); give a command (add %s -- CMD ARGS…) or a URL", name, name)
				} else {
					m.notice = fmt.Sprintf("no configured server is named %q; configured: %s", name, strings.Join(names, ", "))
				}
				return nil
			}
			if m.server(name) != nil {
				m.notice = fmt.Sprintf("%s is already in the session", name)
				return nil
			}
			return done("add "+name, func() error { return wb.AddConfigured(name) })
		case args[1] == "--":
			argv := args[2:]
			if len(argv) == 0 {
				m.notice = "add " + name + " --: the command is missing (add NAME -- CMD ARGS…)"
				return nil
			}
			spec := workbench.Spec{Name: name, Target: target.Target{Argv: argv}, Source: workbench.SourceSession}
			return done("add "+name, func() error { return wb.Add(spec) })
		case len(args) == 2 && strings.HasPrefix(args[1], "registry:"):
			m.notice = "add " + name + ": reading the registry…"
			return m.fetchRegistryEntry(name, strings.TrimPrefix(args[1], "registry:")) // registry.go
		case len(args) == 2 && client.IsURL(args[1]):
			spec := workbench.Spec{Name: name, Target: target.Target{URL: args[1]}, Source: workbench.SourceSession}
			return done("add "+name, func() error { return wb.Add(spec) })
		default:
			m.notice = "add " + name + ": give a URL, or a command after -- (" + cmdUsage + ")"
			return nil
		}
	case "remove", "restart", "disconnect":
		if len(args) != 1 {
			m.notice = verb + " needs one NAME: " + cmdUsage
			return nil
		}
		name := args[0]
		if m.server(name) == nil {
			m.notice = fmt.Sprintf("no server %q in the session; it has: %s", name, strings.Join(m.serverNames(), ", "))
			return nil
		}
		switch verb {
		case "remove":
			if len(m.servers) == 1 {
				m.notice = fmt.Sprintf("cannot remove %q: it is the only server of the session; add another first", name)
				return nil
			}
			m.interruptCalls(name, "the server was removed from the session before it answered")
			return done("remove "+name, func() error { return wb.Remove(name) })
		case "restart":
			return m.restartServer(m.server(name))
		default:
			m.interruptCalls(name, "the server was disconnected before it answered")
			return done("disconnect "+name, func() error { return wb.Disconnect(name) })
		}
	}
	m.notice = fmt.Sprintf("unknown command %q; commands: %s", verb, cmdUsage)
	return nil
}

func (m *model) onWbDone(msg wbDoneMsg) {
	switch {
	case msg.err == nil:
		m.notice = msg.what + ": done"
		// The added server's event may have come first: its warning must not be lost.
		if name, ok := strings.CutPrefix(msg.what, "add "); ok {
			if why := m.notRecorded(name); why != "" {
				m.notice += "; " + why
			}
		}
	case errors.Is(msg.err, workbench.ErrNoServer):
		m.notice = msg.err.Error()
	default:
		m.notice = msg.what + ": " + msg.err.Error()
	}
}

func (m *model) configured(name string) bool {
	for _, sp := range m.opts.Configured {
		if sp.Name == name {
			return true
		}
	}
	return false
}

func (m *model) configuredNames() []string {
	var out []string
	for _, sp := range m.opts.Configured {
		out = append(out, sp.Name)
	}
	return out
}

func (m *model) serverNames() []string {
	var out []string
	for _, s := range m.servers {
		out = append(out, s.name)
	}
	return out
}

// cmdView is the command line over the status bar, with the completions.
func (c *cmdLine) view(m *model, width, _ int) string {
	line := m.st.accent.Render(":") + safe(c.text) + m.st.accent.Render("▏")
	hint := cmdUsage
	if c := m.candidates(c.text); len(c) > 0 {
		hint = "configured: " + strings.Join(c, " ") + " · tab completes"
	}
	return truncate(line, width) + "\n" + m.st.muted.Render(truncate(hint, width))
}
