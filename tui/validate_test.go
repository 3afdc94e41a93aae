package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
)

// hostileOutputSchema: allOf of two $refs per level, 22 levels (the validator's work
// doubles per level).
func hostileOutputSchema() json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	for i := range 22 {
		fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	b.WriteString(`"d22":{"type":"object"}}}`)
	return json.RawMessage(b.String())
}

// runAll runs a command and its batch, returning the messages.
func runAll(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, runAll(c)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}

// Issue 14 item 5: a result checked against a hostile output schema: Update returns at
// once with a command (the validator does not run inside Update), and the outcome
// says it was not validated because it is too costly.
func TestHostileOutputSchemaIsCheckedOffTheUI(t *testing.T) {
	m := newModel(Options{Theme: "dark"})
	defer m.closeSpools()
	m.width, m.height = 120, 40
	setReady(m.srv)
	o := &outcome{id: 1, tool: client.Tool{Name: "hostile", OutputSchema: hostileOutputSchema()}, running: true}
	m.calls, m.current, m.tab = []*outcome{o}, o, tabResult
	m.cancels[1] = func() {}
	r := &client.CallResult{Structured: json.RawMessage(`{"a":1}`), Raw: json.RawMessage(`{"structuredContent":{"a":1}}`)}
	_, cmd := m.Update(callDoneMsg{id: 1, result: r})
	if cmd == nil || o.checked {
		t.Fatalf("Update checked the result inline (cmd %v, checked %v)", cmd != nil, o.checked)
	}
	if s := m.render(); !strings.Contains(s, "checking against the outputSchema") {
		t.Errorf("while the check runs the result does not say so:\n%s", s)
	}
	for _, msg := range runAll(cmd) {
		if _, ok := msg.(structuredCheckedMsg); ok {
			m.Update(msg)
		}
	}
	if !o.checked {
		t.Fatal("the check never finished")
	}
	if s := m.render(); !strings.Contains(s, "not validated: too costly") {
		t.Errorf("the result does not say it was not validated:\n%s", s)
	}
}

func wideToolSchema(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","required":["p0"],"properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"p%d":{"type":"string","description":"field %d"}`, i, i)
	}
	b.WriteString(`}}`)
	return json.RawMessage(b.String())
}

// Issue 14 item 5: with a 10,000-property input schema, enter does not validate
// inside Update: it returns a command, and the answer (here: p0 is required) comes
// back as a message. Typing after that costs the field: the re-check is a command too.
func TestWideFormIsCheckedOffTheUI(t *testing.T) {
	m := newModel(Options{Theme: "dark"})
	defer m.closeSpools()
	m.width, m.height = 120, 40
	setReady(m.srv)
	// The server lists the tool: a call goes to the tool as its server lists it.
	m.srv.snap.Tools = &client.ToolList{Tools: []client.Tool{{Name: "wide", InputSchema: wideToolSchema(10000)}}}
	m.list.setTools(m.srv.tools())
	m.syncForm()
	buildForm(m) // a big schema's form is built in a command
	m.focus, m.tab = paneRight, tabTool
	f := m.form
	_, cmd := m.Update(keyMsg("enter"))
	if cmd == nil || f.Checks() != 0 {
		t.Fatalf("enter validated inline (cmd %v, checks %d)", cmd != nil, f.Checks())
	}
	deliver := func(cmd tea.Cmd) {
		for msgs := runAll(cmd); len(msgs) > 0; {
			var next []tea.Msg
			for _, msg := range msgs {
				_, c := m.Update(msg)
				next = append(next, runAll(c)...)
			}
			msgs = next
		}
	}
	deliver(cmd)
	if f.Checks() != 1 || !strings.Contains(m.notice, "1 argument error") {
		t.Fatalf("after the check: %d checks, notice %q", f.Checks(), m.notice)
	}
	_, cmd = m.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
	if cmd == nil || f.Checks() != 1 {
		t.Fatalf("a keystroke validated inline (cmd %v, checks %d)", cmd != nil, f.Checks())
	}
}

// A hostile input schema: enter returns a command (the check does not run inside
// Update), and the call is not held back: the status bar says the arguments were not
// validated because the schema is too costly to check.
func TestHostileInputSchemaIsNotValidated(t *testing.T) {
	m := newModel(Options{Theme: "dark"})
	defer m.closeSpools()
	m.width, m.height = 120, 40
	setReady(m.srv)
	// The server lists the tool: a call goes to the tool as its server lists it.
	m.srv.snap.Tools = &client.ToolList{Tools: []client.Tool{{Name: "hostile", InputSchema: hostileOutputSchema()}}}
	m.list.setTools(m.srv.tools())
	m.syncForm()
	buildForm(m) // a big schema's form is built in a command
	m.focus, m.tab = paneRight, tabTool
	f := m.form
	_, cmd := m.Update(keyMsg("enter"))
	if cmd == nil || f.Checks() != 0 {
		t.Fatalf("enter validated inline (cmd %v, checks %d)", cmd != nil, f.Checks())
	}
	for msgs := runAll(cmd); len(msgs) > 0; {
		var next []tea.Msg
		for _, msg := range msgs {
			_, c := m.Update(msg)
			next = append(next, runAll(c)...)
		}
		msgs = next
	}
	if !strings.Contains(m.notice, "not validated") || !strings.Contains(m.notice, "too costly") {
		t.Errorf("notice %q", m.notice)
	}
}
