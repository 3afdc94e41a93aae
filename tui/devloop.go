package tui

import (
	"encoding/json"
	"fmt"
	"slices"
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
	if names := m.interruptCalls(s.name, changed+" changed and the server was restarted before it answered"); len(names) > 0 {
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
		// The heading names the edit that set the restart off ("after server.js
		// changed"): before and after are the same server, and its name twice said
		// nothing. File names are the user's, but still untrusted text.
		cause := "after the restart"
		if len(e.Files) > 0 {
			cause = "after " + safe(workbench.ShortPaths(e.Files)) + " changed"
		}
		m.onSurfaceReport(s.name, cause, e.Time, e.Surface)
	}
	if m.isHTTP(s) {
		// An HTTP server restarted itself: the list is fetched again here.
		return m.fetchTools(s, true)
	}
	return nil
}

func (m *model) isHTTP(s *server) bool {
	if s.info().Transport != "" {
		return strings.Contains(strings.ToLower(s.info().Transport), "http") || strings.Contains(strings.ToLower(s.info().Transport), "sse")
	}
	return m.targetOf(s.name).URL != ""
}

// toolsChangedMsg is a fresh tool list after list_changed, compared with the one
// before (in the command: the comparison is unbounded work).
type toolsChangedMsg struct {
	toolsMsg
	report *surface.Report
}

// handle is its own: toolsMsg's, promoted from the embedded list, would take it as
// a plain tool list and leave the comparison unshown.
func (msg toolsChangedMsg) handle(m *model) tea.Cmd { return m.onToolsChanged(msg) }

// fetchToolsChanged refetches a server's tools after list_changed and compares them
// with what the screen had.
func (m *model) fetchToolsChanged(s *server) tea.Cmd {
	fetch := m.fetchTools(s, true)
	if fetch == nil {
		return nil
	}
	old := s.tools()
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
	if s == nil || msg.gen != s.gen() {
		return nil
	}
	cmd := m.onTools(msg.toolsMsg)
	if msg.report != nil && !msg.report.Empty() {
		m.onSurfaceReport(s.name, "after list_changed", time.Now(), msg.report)
	}
	return cmd
}

// formKey names a form by its owner: (server, tool, schema). m.forms keeps one per
// key, so a tool whose schema changed never gets the form of the old schema back.
func formKey(server, tool string, schema json.RawMessage) string {
	return server + "/" + tool + "\x00" + string(schema)
}

// evictForms drops the forms whose owner is gone: a (server, tool, schema) that no
// server lists any more (a restart or list_changed dropped the tool or changed its
// schema, the server was removed), and the last form of a tool no server lists (the
// one carryForm would carry from). Kept, they would be offered again, with what was
// typed for a tool that went away, when a tool of that name came back, and they
// would pile up for the session's whole life under a server that keeps changing.
// A down server keeps its last tools listed, so their forms stay through a restart;
// the open form stays while the user is still on its gone tool (it sends nothing).
// It runs on every change of the tool list (refreshTools).
func (m *model) evictForms() {
	live := map[string]bool{}  // formKey of every listed tool
	tools := map[string]bool{} // server/tool of every listed tool
	for _, s := range m.servers {
		for _, t := range s.tools() {
			schema := t.InputSchema
			if len(schema) == 0 {
				schema = json.RawMessage(`{"type":"object"}`)
			}
			live[formKey(s.name, t.Name, schema)] = true
			tools[s.name+"/"+t.Name] = true
		}
	}
	if m.list.hasGhost && m.form != nil {
		// The user is still on the gone tool: its form stays until they move off.
		live[formKey(m.formSrv, m.formTool, json.RawMessage(m.formSchema))] = true
		tools[m.formSrv+"/"+m.formTool] = true
	}
	for k := range m.forms {
		if !live[k] {
			delete(m.forms, k)
		}
	}
	for k := range m.lastForms {
		if !tools[k] {
			delete(m.lastForms, k)
			delete(m.lastSchemas, k)
		}
	}
}

// carryForm fills a tool's new form (its schema changed: an edit, a list_changed, a
// reconnect to a server that changed) with what the user typed in the old one, each
// value the new schema still takes; what it no longer takes is dropped and named,
// with the fields that became required, in the form's note (formNote) and the
// notice, so that a stale value is never sent without the user seeing it.
func (m *model) carryForm(server, tool string, schema json.RawMessage, f *form.Form) {
	k := server + "/" + tool
	if m.lastForms == nil {
		m.lastForms = map[string]*form.Form{}
		m.lastSchemas = map[string]string{}
	}
	prev, prevSchema := m.lastForms[k], m.lastSchemas[k]
	m.lastForms[k], m.lastSchemas[k] = f, string(schema)
	if prev == nil || prev == f {
		return
	}
	var notes []string
	type shape struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	var now, before shape
	_ = json.Unmarshal(schema, &now)
	_ = json.Unmarshal([]byte(prevSchema), &before)
	// What was typed, as best it can be read (a field that does not parse gives its
	// text), member by member in name order.
	v, _ := prev.Value()
	var obj map[string]json.RawMessage
	if len(now.Properties) == 0 && len(v) > 0 && string(v) != "{}" && f.SetValue(v) == nil {
		// A schema that names no members (free-form arguments) takes what it takes.
	} else if json.Unmarshal(v, &obj) == nil && len(obj) > 0 {
		names := make([]string, 0, len(obj))
		for name := range obj {
			names = append(names, name)
		}
		slices.Sort(names)
		kept := map[string]json.RawMessage{}
		for _, name := range names {
			val := obj[name]
			if _, ok := now.Properties[name]; !ok {
				notes = append(notes, fmt.Sprintf("%s is gone (%s dropped)", name, oneLine(string(val), 40)))
				continue
			}
			kept[name] = val
			b, _ := json.Marshal(kept)
			// The form's text fields take any text (and show it invalid), so the
			// JSON type is checked here too: a stale value is dropped, not kept.
			if !fitsType(val, now.Properties[name]) || f.SetValue(b) != nil {
				delete(kept, name)
				notes = append(notes, fmt.Sprintf("%s is now %s (%s dropped)", name, typeWord(now.Properties[name]), oneLine(string(val), 40)))
			}
		}
		if len(kept) > 0 {
			b, _ := json.Marshal(kept)
			_ = f.SetValue(b)
		}
	}
	for _, name := range now.Required {
		if !slices.Contains(before.Required, name) {
			notes = append(notes, name+" is now required")
		}
	}
	if len(notes) == 0 {
		return
	}
	m.formNote, m.formNoteF = safe("schema changed: "+strings.Join(notes, "; ")), f
	m.notice = m.formNote
}

// typeWord is a property schema's type as a word ("integer", "string|null").
func typeWord(prop json.RawMessage) string {
	var p struct {
		Type any `json:"type"`
	}
	_ = json.Unmarshal(prop, &p)
	switch t := p.Type.(type) {
	case string:
		return t
	case []any:
		var words []string
		for _, w := range t {
			if s, ok := w.(string); ok {
				words = append(words, s)
			}
		}
		if len(words) > 0 {
			return strings.Join(words, "|")
		}
	}
	return "of another type"
}

// fitsType reports whether a JSON value is of a type the property schema allows (any,
// when it names none).
func fitsType(val, prop json.RawMessage) bool {
	var p struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(prop, &p) != nil || p.Type == nil {
		return true
	}
	var types []string
	switch t := p.Type.(type) {
	case string:
		types = []string{t}
	case []any:
		for _, w := range t {
			if s, ok := w.(string); ok {
				types = append(types, s)
			}
		}
	}
	var v any
	if json.Unmarshal(val, &v) != nil {
		return false
	}
	for _, t := range types {
		switch x := v.(type) {
		case string:
			if t == "string" {
				return true
			}
		case float64:
			if t == "number" || (t == "integer" && x == float64(int64(x))) {
				return true
			}
		case bool:
			if t == "boolean" {
				return true
			}
		case nil:
			if t == "null" {
				return true
			}
		case []any:
			if t == "array" {
				return true
			}
		case map[string]any:
			if t == "object" {
				return true
			}
		}
	}
	return false
}
