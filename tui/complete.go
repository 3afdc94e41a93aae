package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/workbench"
)

// This file is the one completion engine for forms of string fields that ask the
// server for completions as the user types: prompt arguments (prompts.go) and
// resource template variables (resources.go) both use it, so completion has one set
// of keys, one debounce, one context and one pick list wherever it is offered.
// An argForm holds the fields, asks completion/complete for the focused one after a
// pause in typing (debounced, in a tea.Cmd: no keystroke waits on the network),
// passes the other filled fields as context.arguments, drops answers that an edit made
// stale, and offers the values as a pick list under the field.

// completeDebounce is the pause in typing after which a completion is asked.
var completeDebounce = 120 * time.Millisecond

// completeTimeout bounds one completion/complete: a server that never answers leaves
// a note under the field, never a waiting screen.
const completeTimeout = 10 * time.Second

// pickRows is how many offered values the pick list shows at once.
const pickRows = 8

// argField is one string field of an argForm.
type argField struct {
	Name, Title, Description string
	Required                 bool

	text []rune
	cur  int
	// The completion of this field: the values offered for text as it was when
	// asked, and the one highlighted (-1: none).
	values  []string
	total   *int64
	hasMore bool
	pick    int
	note    string // why there are no values (the server failed, timed out)
}

// Value is the field's text.
func (f *argField) Value() string { return string(f.text) }

func (f *argField) setText(s string) {
	f.text = []rune(s)
	f.cur = len(f.text)
}

// argForm is a form of string fields with completion as the user types.
type argForm struct {
	server string // the workbench server the completions go to
	ref    client.CompletionRef
	fields []*argField
	focus  int
	// complete: the server declared the completions capability (else nothing is
	// asked).
	complete bool
	seq      int                // bumped on every edit and focus change; older answers are stale
	cancel   context.CancelFunc // the completion in flight, cancelled by a newer one
	asked    int                // completion requests sent (for tests and benchmarks)
	timeout  time.Duration      // of one completion (completeTimeout)
	submit   string             // what enter does with the fields as typed ("gets the prompt"), for the timeout note
}

// newArgForm makes a form; complete says whether the server offers completions,
// submit what enter does with the fields as typed ("gets the prompt", "reads the
// URI").
func newArgForm(server string, ref client.CompletionRef, fields []argField, complete bool, submit string) *argForm {
	f := &argForm{server: server, ref: ref, complete: complete, timeout: completeTimeout, submit: submit}
	for i := range fields {
		fl := fields[i]
		fl.pick = -1
		f.fields = append(f.fields, &fl)
	}
	return f
}

// Messages of the completion cycle. They carry their form, so that an answer for a
// form that was closed meanwhile goes nowhere.
type (
	completeDueMsg struct {
		form *argForm
		seq  int
	}
	completeDoneMsg struct {
		form  *argForm
		seq   int
		field int
		c     *client.Completion
		err   error
	}
)

// A completion belongs to the argument form that asked for it.
func (msg completeDueMsg) handle(m *model) tea.Cmd { return msg.form.onDue(msg, m.wb) }

func (msg completeDoneMsg) handle(m *model) tea.Cmd {
	msg.form.onDone(msg)
	return nil
}

// completesOf reports whether a server declared the completions capability.
func completesOf(s *server) bool {
	var caps map[string]json.RawMessage
	if s == nil || json.Unmarshal(s.info().Capabilities, &caps) != nil {
		return false
	}
	v, ok := caps["completions"]
	return ok && string(v) != "null"
}

// Values are the fields that hold text, by name.
func (f *argForm) Values() map[string]string {
	out := map[string]string{}
	for _, fl := range f.fields {
		if len(fl.text) > 0 {
			out[fl.Name] = fl.Value()
		}
	}
	return out
}

// Missing names the required fields left empty.
func (f *argForm) Missing() []string {
	var out []string
	for _, fl := range f.fields {
		if fl.Required && len(fl.text) == 0 {
			out = append(out, fl.Name)
		}
	}
	return out
}

// Focused is the field with the focus (nil in a form without fields).
func (f *argForm) Focused() *argField {
	if f.focus < 0 || f.focus >= len(f.fields) {
		return nil
	}
	return f.fields[f.focus]
}

// context is the other fields that hold text (before and after the focused one):
// what the server may use to narrow its answer (context.arguments).
func (f *argForm) context() map[string]string {
	out := map[string]string{}
	for i, fl := range f.fields {
		if i != f.focus && len(fl.text) > 0 {
			out[fl.Name] = fl.Value()
		}
	}
	return out
}

// changed starts a new completion cycle for the focused field: the pick list goes,
// and a completion is asked once typing pauses.
func (f *argForm) changed() tea.Cmd {
	f.seq++
	fl := f.Focused()
	if fl == nil || !f.complete {
		return nil
	}
	fl.values, fl.total, fl.hasMore, fl.pick, fl.note = nil, nil, false, -1, ""
	seq := f.seq
	if completeDebounce <= 0 {
		return func() tea.Msg { return completeDueMsg{form: f, seq: seq} }
	}
	return tea.Tick(completeDebounce, func(time.Time) tea.Msg { return completeDueMsg{form: f, seq: seq} })
}

// onDue asks the server, in a command, unless the user typed on since.
func (f *argForm) onDue(msg completeDueMsg, wb *workbench.Workbench) tea.Cmd {
	fl := f.Focused()
	if msg.seq != f.seq || fl == nil || wb == nil {
		return nil // stale: a newer edit has its own tick
	}
	if f.cancel != nil {
		f.cancel() // the older question's answer no longer matters
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
	f.cancel = cancel
	f.asked++
	seq, field, server, ref := f.seq, f.focus, f.server, f.ref
	name, value, args := fl.Name, fl.Value(), f.context()
	return func() tea.Msg {
		defer cancel()
		return useSession(ctx, wb, server, func(ctx context.Context, s *client.Session) tea.Msg {
			c, err := s.Complete(ctx, ref, name, value, args)
			if ctx.Err() != nil {
				err = ctx.Err() // timed out, or cancelled by a newer question
			}
			return completeDoneMsg{form: f, seq: seq, field: field, c: c, err: err}
		}, func(err error) tea.Msg {
			return completeDoneMsg{form: f, seq: seq, field: field, err: err}
		})
	}
}

// onDone shows an answer, unless it is stale.
func (f *argForm) onDone(msg completeDoneMsg) {
	if msg.seq != f.seq || msg.field != f.focus || msg.field >= len(f.fields) {
		return
	}
	fl := f.fields[msg.field]
	switch {
	case errors.Is(msg.err, context.DeadlineExceeded):
		fl.note = fmt.Sprintf("completion: no answer within %s; type on, or enter %s as typed", f.timeout, f.submit)
	case errors.Is(msg.err, context.Canceled):
	case msg.err != nil:
		fl.note = "completion: " + oneLine(msg.err.Error(), 200)
	default:
		fl.values, fl.total, fl.hasMore, fl.pick = msg.c.Values, msg.c.Total, msg.c.HasMore, -1
		if len(msg.c.Problems) > 0 {
			fl.note = "completion: " + oneLine(strings.Join(msg.c.Problems, "; "), 200)
		}
	}
}

// close cancels the completion in flight (the form is closed or replaced).
func (f *argForm) close() {
	if f.cancel != nil {
		f.cancel()
		f.cancel = nil
	}
	f.seq++
}

// open starts the cycle for the first field (its values offered before any typing).
func (f *argForm) open() tea.Cmd { return f.changed() }

// argKeys is an argForm's key map.
type argKeys struct {
	Next, Prev, PickDown, PickUp, Take, Hide key.Binding
	Left, Right, Home, End                   key.Binding
	Erase, Delete, KillLeft, KillRight       key.Binding
}

func defaultArgKeys() argKeys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return argKeys{
		Next:      b("tab", "next field", "tab"),
		Prev:      b("shift+tab", "previous field", "shift+tab"),
		PickDown:  b("↓", "pick the next value offered (or the next field)", "down"),
		PickUp:    b("↑", "pick the previous value offered (or the previous field)", "up"),
		Take:      b("enter", "take the value picked", "enter"),
		Hide:      b("esc", "hide the values offered", "esc"),
		Left:      b("←", "cursor left", "left"),
		Right:     b("→", "cursor right", "right"),
		Home:      b("home/ctrl+a", "start of the field", "home", "ctrl+a"),
		End:       b("end/ctrl+e", "end of the field", "end", "ctrl+e"),
		Erase:     b("backspace", "erase", "backspace"),
		Delete:    b("delete", "delete", "delete"),
		KillLeft:  b("ctrl+u", "erase to the start", "ctrl+u"),
		KillRight: b("ctrl+k", "erase to the end", "ctrl+k"),
	}
}

var argFormKeys = defaultArgKeys()

// key handles a key; handled is false for keys the form leaves to its owner (enter
// with no value picked, esc with no pick list, and keys it does not know).
func (f *argForm) key(k tea.KeyPressMsg) (cmd tea.Cmd, handled bool) {
	fl := f.Focused()
	if fl == nil {
		return nil, false
	}
	ks := argFormKeys
	switch {
	case key.Matches(k, ks.Next, ks.Prev):
		if len(f.fields) < 2 {
			return nil, true
		}
		d := 1
		if key.Matches(k, ks.Prev) {
			d = len(f.fields) - 1
		}
		f.focus = (f.focus + d) % len(f.fields)
		return f.changed(), true
	case key.Matches(k, ks.PickDown, ks.PickUp):
		down := key.Matches(k, ks.PickDown)
		if len(fl.values) > 0 {
			n := min(len(fl.values), 100)
			if down {
				fl.pick = min(fl.pick+1, n-1)
			} else {
				fl.pick = max(fl.pick-1, -1)
			}
			return nil, true
		}
		if down && f.focus < len(f.fields)-1 {
			f.focus++
			return f.changed(), true
		}
		if !down && f.focus > 0 {
			f.focus--
			return f.changed(), true
		}
		return nil, true
	case key.Matches(k, ks.Take):
		if fl.pick >= 0 && fl.pick < len(fl.values) {
			fl.setText(fl.values[fl.pick])
			f.seq++ // a completion asked before the pick is stale
			fl.values, fl.total, fl.hasMore, fl.pick = nil, nil, false, -1
			return nil, true
		}
		return nil, false
	case key.Matches(k, ks.Hide):
		if len(fl.values) > 0 || fl.note != "" {
			fl.values, fl.pick, fl.note = nil, -1, ""
			f.seq++
			return nil, true
		}
		return nil, false
	case key.Matches(k, ks.Left):
		fl.cur = max(fl.cur-1, 0)
		return nil, true
	case key.Matches(k, ks.Right):
		fl.cur = min(fl.cur+1, len(fl.text))
		return nil, true
	case key.Matches(k, ks.Home):
		fl.cur = 0
		return nil, true
	case key.Matches(k, ks.End):
		fl.cur = len(fl.text)
		return nil, true
	case key.Matches(k, ks.Erase):
		if fl.cur == 0 {
			return nil, true
		}
		fl.text = append(fl.text[:fl.cur-1], fl.text[fl.cur:]...)
		fl.cur--
		return f.changed(), true
	case key.Matches(k, ks.Delete):
		if fl.cur >= len(fl.text) {
			return nil, true
		}
		fl.text = append(fl.text[:fl.cur], fl.text[fl.cur+1:]...)
		return f.changed(), true
	case key.Matches(k, ks.KillLeft):
		fl.text, fl.cur = fl.text[fl.cur:], 0
		return f.changed(), true
	case key.Matches(k, ks.KillRight):
		fl.text = fl.text[:fl.cur]
		return f.changed(), true
	}
	if k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt) == 0 {
		return f.insert(k.Text), true
	}
	return nil, false
}

// help is the form's keys, for ?.
func (argKeys) help() []key.Binding {
	k := argFormKeys
	return []key.Binding{k.Next, k.Prev, k.PickDown, k.PickUp, k.Take, k.Hide, k.Home, k.End, k.KillLeft, k.KillRight}
}

// insert types text at the cursor (a paste too: line breaks become spaces).
func (f *argForm) insert(s string) tea.Cmd {
	fl := f.Focused()
	if fl == nil || s == "" {
		return nil
	}
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s)
	r := []rune(s)
	text := make([]rune, 0, len(fl.text)+len(r))
	text = append(append(append(text, fl.text[:fl.cur]...), r...), fl.text[fl.cur:]...)
	fl.text, fl.cur = text, fl.cur+len(r)
	return f.changed()
}

// view draws the fields (the focused one with its pick list) in at most height
// lines of width cells. focused says whether the form has the keyboard.
func (f *argForm) view(st styles, width, height int, focused bool) []string {
	if len(f.fields) == 0 {
		return []string{st.muted.Render("(no arguments)")}
	}
	labelW := 0
	for _, fl := range f.fields {
		labelW = max(labelW, len([]rune(safe(fieldLabel(fl))))+2)
	}
	labelW = min(labelW, max(width/3, 8))
	var lines []string
	focusLine := 0
	for i, fl := range f.fields {
		if i == f.focus {
			focusLine = len(lines)
		}
		label := truncate(safe(fieldLabel(fl)), labelW-2)
		mark := "  "
		if fl.Required {
			label += st.err.Render("*")
		} else {
			label += " "
		}
		cursor := focused && i == f.focus
		if i == f.focus {
			mark = st.selected.Render("›") + " "
		}
		pad := strings.Repeat(" ", max(labelW-1-len([]rune(truncate(safe(fieldLabel(fl)), labelW-2))), 0))
		lines = append(lines, mark+label+pad+fieldText(st, fl, max(width-labelW-3, 4), cursor))
		if i != f.focus {
			continue
		}
		indent := strings.Repeat(" ", labelW+2)
		if fl.Description != "" {
			for _, d := range wrapText(fl.Description, max(width-labelW-2, 10)) {
				lines = append(lines, indent+st.muted.Render(d))
			}
		}
		if fl.note != "" {
			// Wrapped, not cut: the note says what enter does now.
			for _, l := range wrapText(fl.note, max(width-labelW-2, 10)) {
				lines = append(lines, indent+st.warn.Render(l))
			}
		}
		lines = append(lines, pickLines(st, fl, indent, max(width-labelW-2, 10))...)
	}
	if len(lines) > height {
		// Keep the focused field in view.
		from := min(max(focusLine-1, 0), max(len(lines)-height, 0))
		lines = lines[from : from+max(height, 0)]
	}
	return lines
}

func fieldLabel(fl *argField) string {
	if fl.Title != "" && fl.Title != fl.Name {
		return fl.Title + " (" + fl.Name + ")"
	}
	return fl.Name
}

// fieldText is the field's text in a box of width cells, with a cursor when it has
// the keyboard; long text scrolls to keep the cursor in view.
func fieldText(st styles, fl *argField, width int, cursor bool) string {
	text := fl.text
	from := 0
	if fl.cur >= width {
		from = fl.cur - width + 1
	}
	end := min(len(text), from+width)
	shown := string(text[from:end])
	if !cursor {
		if len(text) == 0 {
			return st.muted.Render("·")
		}
		return safe(shown)
	}
	at := fl.cur - from
	r := []rune(shown)
	before, cur, after := string(r[:min(at, len(r))]), " ", ""
	if at < len(r) {
		cur, after = string(r[at]), string(r[at+1:])
	}
	return safe(before) + st.selected.Reverse(true).Render(safe(cur)) + safe(after)
}

// pickLines is the pick list of the offered values.
func pickLines(st styles, fl *argField, indent string, width int) []string {
	if len(fl.values) == 0 {
		return nil
	}
	n := min(len(fl.values), 100)
	from := 0
	if fl.pick >= pickRows {
		from = fl.pick - pickRows + 1
	}
	var lines []string
	for i := from; i < min(n, from+pickRows); i++ {
		v := truncate(safe(fl.values[i]), width-2)
		if i == fl.pick {
			lines = append(lines, indent+st.selected.Render("▸ "+v))
		} else {
			lines = append(lines, indent+"  "+v)
		}
	}
	more := ""
	switch {
	case fl.total != nil && int(*fl.total) > n:
		more = fmt.Sprintf("%d of %d values", n, *fl.total)
	case fl.hasMore:
		more = fmt.Sprintf("%d values, the server has more", n)
	case n > pickRows:
		more = fmt.Sprintf("%d values", n)
	}
	hint := "↓/↑ pick · enter takes it · esc hides"
	if more != "" {
		hint = more + " · " + hint
	}
	return append(lines, indent+st.muted.Render(truncate(hint, width)))
}
