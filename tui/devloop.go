package tui

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/surface"
	"github.com/mcpscope/mcpscope/tui/form"
	"github.com/mcpscope/mcpscope/workbench"
)

// The developer's loop on the screen: with --watch the workbench restarts a server
// when its files change (or re-lists an HTTP one); the screen keeps its state
// across the restart (the selection, the filter, the forms and what was typed in
// them when the new schema still takes it, the history), says that a call in flight
// was interrupted by the restart, shows a failed start with its stderr until the
// next good edit, and shows what changed (the Changes view, marks in the tool list).

// onWatch follows what the file watch of a server did.
func (m *model) onWatch(s *server, e workbench.Event) tea.Cmd {
	text := safe(e.Text)
	if m.several() {
		text = s.name + ": " + text
	}
	m.notice = text
	if changed, ok := strings.CutSuffix(e.Text, " changed: restarting"); ok {
		s.restartedFor = safe(changed)
		m.interruptedByRestart(s, changed)
	}
	return nil
}

// interruptedByRestart ends the server's running calls before the watch restarts it:
// each says it was interrupted by the restart, not that it failed.
func (m *model) interruptedByRestart(s *server, changed string) {
	var names []string
	for _, o := range m.calls {
		if !o.running || o.server != s.name {
			continue
		}
		o.interrupted = changed + " changed and the server was restarted before it answered"
		o.err = errors.New("interrupted: " + o.interrupted)
		if c, ok := m.cancels[o.id]; ok {
			c()
		}
		o.cancelled = true
		names = append(names, o.tool.Name)
		m.resultVer++
	}
	if len(names) > 0 {
		m.notice = safe(changed) + " changed: restarting; the running call of " + safe(strings.Join(names, ", ")) + " was interrupted by the restart"
	}
}

// onSurfaceChanged is the workbench's comparison after a restart or re-list caused
// by a watched file.
func (m *model) onSurfaceChanged(s *server, e workbench.Event) tea.Cmd {
	if e.Surface == nil {
		return nil
	}
	if e.Surface.Empty() {
		what := "the edit changed nothing in the tools, resources or prompts"
		if m.several() {
			what = s.name + ": " + what
		}
		m.notice = what
	} else {
		m.onSurfaceReport(s.name, "after the restart", e.Time, e.Surface)
	}
	if m.isHTTP(s) {
		// An HTTP server restarted itself: the list is fetched again here.
		return m.fetchTools(s, true)
	}
	return nil
}

func (m *model) isHTTP(s *server) bool {
	if s.info.Transport != "" {
		return strings.Contains(strings.ToLower(s.info.Transport), "http") || strings.Contains(strings.ToLower(s.info.Transport), "sse")
	}
	return m.targetOf(s.name).URL != ""
}

// toolsChangedMsg is a fresh tool list after list_changed, compared with the one
// before (in the command: the comparison is unbounded work).
type toolsChangedMsg struct {
	toolsMsg
	report *surface.Report
}

// fetchToolsChanged refetches a server's tools after list_changed and compares them
// with what the screen had.
func (m *model) fetchToolsChanged(s *server) tea.Cmd {
	fetch := m.fetchTools(s, true)
	if fetch == nil {
		return nil
	}
	old := s.tools
	return func() tea.Msg {
		msg, _ := fetch().(toolsMsg)
		out := toolsChangedMsg{toolsMsg: msg}
		if msg.err == nil && msg.list != nil && old != nil {
			out.report = surface.Compare(&surface.Surface{Tools: old, HasTools: true}, &surface.Surface{Tools: msg.list.Tools, HasTools: true})
		}
		return out
	}
}

func (m *model) onToolsChanged(msg toolsChangedMsg) tea.Cmd {
	s := m.server(msg.server)
	if s == nil || msg.gen != s.gen {
		return nil
	}
	cmd := m.onTools(msg.toolsMsg)
	if msg.report != nil && !msg.report.Empty() {
		m.onSurfaceReport(s.name, "after list_changed", time.Now(), msg.report)
	}
	return cmd
}

// carryForm fills a tool's new form (its schema changed with an edit) with what the
// user typed in the old one, when the new schema takes it: all of it, or the fields
// that are still there.
func (m *model) carryForm(server, tool string, schema json.RawMessage, f *form.Form) {
	k := server + "/" + tool
	if m.lastForms == nil {
		m.lastForms = map[string]*form.Form{}
	}
	prev := m.lastForms[k]
	m.lastForms[k] = f
	if prev == nil || prev == f {
		return
	}
	v, err := prev.Value()
	if err != nil || len(v) == 0 || string(v) == "{}" {
		return
	}
	if f.SetValue(v) == nil {
		return
	}
	// Keep only the members the new schema still names.
	var props struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(schema, &props) != nil || json.Unmarshal(v, &obj) != nil {
		return
	}
	kept := map[string]json.RawMessage{}
	for name, val := range obj {
		if _, ok := props.Properties[name]; ok {
			kept[name] = val
		}
	}
	if b, err := json.Marshal(kept); err == nil && len(kept) > 0 {
		if f.SetValue(b) == nil {
			m.notice = "the tool's schema changed; the arguments it still takes are kept"
		}
	}
}
