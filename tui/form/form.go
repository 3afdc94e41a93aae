// Package form builds a keyboard-driven form from a JSON Schema: a tool's
// inputSchema or an elicitation's requestedSchema.
//
// A Form is a plain struct owned by the root model, which forwards messages
// to Update while the form has focus and draws View where it wants the form.
// Anything the form cannot express becomes a JSON text field for that
// subtree, so every schema gives a usable form. ToggleRaw switches the whole
// form to one JSON text area and back without losing values.
package form

import (
	"github.com/mcpscope/mcpscope/fields"
	"github.com/mcpscope/mcpscope/internal/plural"

	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
)

// FieldError is a problem with one field. Path is the JSON pointer of the
// value ("" for the whole value).
type FieldError struct{ Path, Message string }

func (e FieldError) Error() string {
	p := e.Path
	if p == "" {
		p = "/"
	}
	return p + ": " + e.Message
}

// Form is a form built from a JSON Schema.
type Form struct {
	schema []byte
	doc    any
	b      *builder
	root   *node

	// focus: the node and sub-row (multi-select option) with focus, and
	// its last row index for when the node goes away.
	fnode *node
	fsub  int
	fidx  int
	top   int // first visible line
	drawn int // rows the last View rendered (tests check it stays what fits)

	// rowCache is the form flattened into rows, kept until the form's shape changes
	// (an item added, removed or moved, a variant switched, null toggled, a value
	// loaded): typing into a field does not rebuild 10,000 rows.
	rowCache []row
	rowsOK   bool

	errs      map[string]string // validation errors by path
	validated bool              // Validate ran; check again after edits
	gen       int               // bumped by every edit: a check of an older value is stale
	dirty     bool              // edited since the last check was scheduled

	raw bool
	// ta is the raw JSON text area, made when raw mode opens and dropped when it
	// closes (hasTA says whether it is there): a text area holds about 240 KiB from
	// its start (room for 10,000 lines), and the workbench keeps a form for every
	// tool the user visited, few of which ever go raw.
	ta      textarea.Model
	hasTA   bool
	rawErr  string
	rawErrs []FieldError

	val    validatorState
	styles Styles
	keys   KeyMap
}

// New builds a form from a JSON Schema. It fails only when schema is not
// JSON; a schema the form cannot lay out becomes a JSON text field.
func New(schema json.RawMessage) (*Form, error) {
	doc, err := fields.Parse(schema)
	if err != nil {
		return nil, fmt.Errorf("form: the schema is not JSON: %w", err)
	}
	f := &Form{
		schema: slices.Clone(schema),
		doc:    doc,
		b:      newBuilder(doc),
		fsub:   -1,
		styles: DefaultStyles(),
		keys:   DefaultKeyMap(),
	}
	f.b.fresh()
	f.root = f.b.build(doc, 0, true)
	f.focusFirst()
	return f, nil
}

func newTextarea(s Styles) textarea.Model {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = ""
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.MaxWidth = 0
	ta.Placeholder = "{}"
	ta.SetStyles(s.textareaStyles())
	return ta
}

// SetStyles replaces the form's styles (see DefaultStyles).
func (f *Form) SetStyles(s Styles) {
	f.styles = s
	if f.hasTA {
		f.ta.SetStyles(s.textareaStyles())
	}
}

// Keys returns the bindings the form matches keys on, for a help view.
func (f *Form) Keys() KeyMap { return f.keys }

// RawKeys returns the main keys of the raw JSON text area (ToggleRaw), as it
// matches them, for a help view. Enter is left out: the caller keeps it.
func (f *Form) RawKeys() []key.Binding {
	k := textarea.DefaultKeyMap() // the text area's own: newTextarea keeps them
	return []key.Binding{k.LinePrevious, k.LineNext, k.CharacterBackward, k.CharacterForward,
		k.WordBackward, k.WordForward, k.LineStart, k.LineEnd, k.InputBegin, k.InputEnd,
		k.PageUp, k.PageDown, k.DeleteCharacterBackward, k.DeleteCharacterForward,
		k.DeleteWordBackward, k.DeleteBeforeCursor, k.DeleteAfterCursor}
}

// Raw reports whether the form shows one raw JSON text area.
func (f *Form) Raw() bool { return f.raw }

// Focused returns the JSON pointer of the focused field ("" for the whole
// value, and in raw mode).
func (f *Form) Focused() string {
	if f.raw {
		return ""
	}
	rows := f.rows()
	if i := f.focusIndex(rows); i >= 0 {
		return rows[i].path
	}
	return ""
}

// Value returns the arguments as compact JSON. Optional fields left empty
// are left out; pre-filled defaults are kept. When a field does not parse (a
// number field holding "abc", a JSON field holding broken JSON) the error
// says which, and the JSON returned is a best effort with that text as a
// string, so a caller can still send it on purpose.
func (f *Form) Value() (json.RawMessage, error) {
	if f.raw {
		v, err := f.rawParse()
		if err != nil {
			return nil, err
		}
		return fields.Encode(v, ""), nil
	}
	var errs []FieldError
	v := f.rootValue(&errs)
	out := json.RawMessage(fields.Encode(v, ""))
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return out, errors.New("form: " + strings.Join(msgs, "; "))
	}
	return out, nil
}

// rootValue is the whole value; an empty JSON root (a schema such as {}
// that accepts anything) gives {} since tool arguments are an object.
func (f *Form) rootValue(errs *[]FieldError) any {
	if f.root.k == kJSON && strings.TrimSpace(f.root.ed.text) == "" && !(f.root.nullable && f.root.isNull) {
		return fields.NewMap()
	}
	v, ok := f.root.value("", true, errs)
	if !ok {
		return nil
	}
	return v
}

// SetValue loads values into the form, replacing what it held (defaults
// included). A value that does not fit the form's fields (a string where the
// schema wants a number, an unknown enum value) is an error and leaves the
// form unchanged; in raw mode the text is replaced either way.
func (f *Form) SetValue(v json.RawMessage) error {
	val, err := fields.Parse(v)
	if err != nil {
		return fmt.Errorf("form: the value is not JSON: %w", err)
	}
	if f.raw {
		f.ta.SetValue(prettyText(val))
		f.ta.MoveToBegin()
		f.rawErr = ""
	}
	return f.load(val)
}

func (f *Form) load(val any) error {
	f.b.fresh()
	root := f.b.build(f.doc, 0, true)
	if err := root.set(val); err != nil {
		return fmt.Errorf("form: %w", err)
	}
	path := f.Focused()
	f.root = root
	f.reshaped()
	f.errs = nil
	f.focusPath(path)
	f.gen++ // a check of the old value is stale
	if f.validated {
		f.Validate()
	}
	return nil
}

// SetRawText switches to the raw JSON text area and puts text there as it is,
// with why as the error shown above it: an edit that does not fit the fields
// (or is not JSON yet) is kept rather than lost.
func (f *Form) SetRawText(text, why string) {
	if !f.raw {
		f.ToggleRaw()
	}
	f.ta.SetValue(text)
	f.ta.MoveToBegin()
	f.rawErr, f.rawErrs = why, nil
}

// ToggleRaw switches between the fields and one raw JSON text area. Going
// back to the fields parses the text; if it is not JSON, or does not fit the
// fields, the form stays raw and shows why.
func (f *Form) ToggleRaw() {
	if !f.raw {
		v, _ := f.Value()
		val, err := fields.Parse(v)
		text := string(v)
		if err == nil {
			text = prettyText(val)
		}
		f.ta, f.hasTA = newTextarea(f.styles), true
		f.ta.SetValue(text)
		f.ta.MoveToBegin()
		f.ta.Focus()
		f.raw = true
		f.rawErr = ""
		f.rawErrs = nil
		return
	}
	val, err := f.rawParse()
	if err != nil {
		f.rawErr = err.Error()
		return
	}
	if err := f.load(val); err != nil {
		f.rawErr = err.Error()
		return
	}
	f.ta, f.hasTA = textarea.Model{}, false
	f.raw = false
	f.rawErr = ""
	f.rawErrs = nil
}

// prettyText indents v, unless that would be too many lines for the text
// area.
func prettyText(v any) string {
	s := string(fields.Encode(v, "  "))
	if strings.Count(s, "\n") > 5000 {
		return string(fields.Encode(v, ""))
	}
	return s
}

func (f *Form) rawParse() (any, error) {
	text := f.ta.Value()
	if strings.TrimSpace(text) == "" {
		if f.root.k == kObject {
			return fields.NewMap(), nil
		}
		return nil, errors.New("form: the raw JSON is empty")
	}
	v, err := fields.Parse([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("form: invalid JSON%s: %v", syntaxPos(text, err), err)
	}
	return v, nil
}

// syntaxPos turns a syntax error offset into " at line L, column C".
func syntaxPos(text string, err error) string {
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Offset <= 0 || int(se.Offset) > len(text) {
		return ""
	}
	before := text[:se.Offset]
	line := strings.Count(before, "\n") + 1
	col := len([]rune(before[strings.LastIndexByte(before, '\n')+1:]))
	return fmt.Sprintf(" at line %d, column %d", line, col)
}

// Update handles a message while the form has focus. Enter and escape are
// left to the caller (in raw mode enter inserts a newline).
//
// Update costs the field edited: when the value must be checked again (after a
// first Validate or CheckCmd), it returns a command that does it once the user
// pauses, off the caller's goroutine. Messages of those commands (Msg) go to Handle.
func (f *Form) Update(msg tea.Msg) tea.Cmd {
	if m, ok := msg.(Msg); ok {
		return Handle(m)
	}
	if f.raw {
		if p, ok := msg.(tea.PasteMsg); ok {
			p.Content = pasteText(p.Content) // the text area would make \r\n two lines
			msg = p
		}
		var cmd tea.Cmd
		f.ta, cmd = f.ta.Update(msg)
		return cmd
	}
	switch m := msg.(type) {
	case tea.KeyPressMsg:
		f.key(m)
	case tea.PasteMsg:
		rows := f.rows()
		if i := f.focusIndex(rows); i >= 0 && rows[i].kind == rowField && rows[i].n.isText() {
			n := rows[i].n
			if n.isNull {
				f.reshaped()
			}
			n.isNull = false
			if n.pristine {
				n.ed.setText("") // a paste over the schema's default replaces it too
				n.pristine = false
			}
			n.ed.insert(pasteText(m.Content))
			f.edited(n)
		}
	}
	return f.due()
}

// --- rows: the form flattened into lines of fields ---

type rowKind int

const (
	rowField   rowKind = iota // a scalar field (or any field set to null)
	rowHeader                 // an object, array or multi-select heading
	rowOption                 // one choice of a multi-select
	rowVariant                // the oneOf/anyOf selector
	rowNote                   // text that cannot take focus
)

// focusable says whether the row can take focus: notes and fixed values
// cannot.
func (r row) focusable() bool {
	if r.kind == rowNote {
		return false
	}
	return !(r.kind == rowField && r.n.k == kConst && !r.n.nullable)
}

type row struct {
	n     *node
	kind  rowKind
	sub   int // option index for rowOption, else -1
	depth int
	label string
	path  string
	note  string
}

func (f *Form) rows() []row {
	if f.rowsOK {
		return f.rowCache
	}
	rs := make([]row, 0, len(f.rowCache))
	defer func() { f.rowCache, f.rowsOK = rs, true }()
	r := f.root
	if r.k == kObject && !(r.nullable && r.isNull) {
		f.children(r, 0, "", &rs)
		switch {
		case r.free:
			rs = append(rs, row{n: r, kind: rowNote, sub: -1, note: "any arguments are accepted (the schema lists none): ctrl+n adds a key/value row; a value that parses as JSON is sent as JSON, else as text"})
			for _, p := range r.pairs {
				rs = append(rs,
					row{n: p[0], kind: rowField, sub: -1, label: "key", path: ""},
					row{n: p[1], kind: rowField, sub: -1, label: "  value", path: p[1].path()})
			}
		case len(r.props) == 0 && r.extras.Len() == 0:
			rs = append(rs, row{n: r, kind: rowNote, sub: -1, note: "no arguments"})
		}
	} else {
		f.flatten(r, 0, "value", "", &rs)
	}
	return rs
}

func (f *Form) flatten(n *node, depth int, label, path string, rs *[]row) {
	add := func(k rowKind) {
		*rs = append(*rs, row{n: n, kind: k, sub: -1, depth: depth, label: label, path: path})
	}
	if n.nullable && n.isNull {
		add(rowField)
		return
	}
	switch n.k {
	case kObject:
		add(rowHeader)
		f.children(n, depth+1, path, rs)
	case kArray:
		add(rowHeader)
		for i, c := range n.items {
			f.flatten(c, depth+1, "["+strconv.Itoa(i)+"]", path+"/"+strconv.Itoa(i), rs)
		}
	case kMulti:
		add(rowHeader)
		for i := range n.opts {
			*rs = append(*rs, row{n: n, kind: rowOption, sub: i, depth: depth + 1, path: path})
		}
	case kUnion:
		add(rowVariant)
		c := n.kid(n.vsel)
		if c.k == kObject && !(c.nullable && c.isNull) {
			f.children(c, depth+1, path, rs)
		} else {
			f.flatten(c, depth+1, "value", path, rs)
		}
	default:
		add(rowField)
	}
}

func (f *Form) children(n *node, depth int, path string, rs *[]row) {
	for _, c := range n.props {
		f.flatten(c, depth, c.key, path+"/"+fields.PtrEscape(c.key), rs)
	}
	if k := n.extras.Len(); k > 0 {
		note := fmt.Sprintf("+ %s kept from the loaded value: %s (edit as raw JSON)", plural.Count(k, "more key"), strings.Join(n.extras.Keys, ", "))
		*rs = append(*rs, row{n: n, kind: rowNote, sub: -1, depth: depth, path: path, note: note})
	}
}

// focusIndex finds the focused row, moving focus to a neighbour when the
// focused node is gone. It returns -1 when nothing can take focus.
func (f *Form) focusIndex(rows []row) int {
	for i, r := range rows {
		if r.focusable() && r.n == f.fnode && r.sub == f.fsub {
			f.fidx = i
			return i
		}
	}
	i := min(max(f.fidx, 0), len(rows)-1)
	for j := i; j < len(rows); j++ {
		if rows[j].focusable() {
			f.setFocus(rows, j)
			return j
		}
	}
	for j := i; j >= 0; j-- {
		if rows[j].focusable() {
			f.setFocus(rows, j)
			return j
		}
	}
	return -1
}

func (f *Form) setFocus(rows []row, i int) {
	f.fnode, f.fsub, f.fidx = rows[i].n, rows[i].sub, i
}

func (f *Form) focusFirst() {
	f.fidx = 0
	f.fnode = nil
	f.focusIndex(f.rows())
}

func (f *Form) focusPath(path string) {
	rows := f.rows()
	for i, r := range rows {
		if r.focusable() && r.path == path {
			f.setFocus(rows, i)
			return
		}
	}
	f.focusFirst()
}

// focusNode focuses the first row of n, or the next row that can take
// focus.
func (f *Form) focusNode(n *node) {
	rows := f.rows()
	for i, r := range rows {
		if r.n != n {
			continue
		}
		for j := i; j < len(rows); j++ {
			if rows[j].focusable() {
				f.setFocus(rows, j)
				return
			}
		}
		return
	}
}

// move shifts focus by delta focusable rows, stopping at the ends.
func (f *Form) move(rows []row, i, delta int) {
	step := 1
	if delta < 0 {
		step, delta = -1, -delta
	}
	j := i
	for k := 0; k < delta; k++ {
		nj := j + step
		for nj >= 0 && nj < len(rows) && !rows[nj].focusable() {
			nj += step
		}
		if nj < 0 || nj >= len(rows) {
			break
		}
		j = nj
	}
	f.setFocus(rows, j)
}

// --- keys ---

// reshaped drops the cached rows after a change of the form's shape.
func (f *Form) reshaped() { f.rowsOK = false }

func (f *Form) key(m tea.KeyPressMsg) {
	rows := f.rows()
	i := f.focusIndex(rows)
	if i < 0 {
		if f.root.free && key.Matches(m, f.keys.AddItem) {
			f.addPair()
		}
		return
	}
	r := rows[i]
	n := r.n
	switch {
	case key.Matches(m, f.keys.Next, f.keys.Prev, f.keys.PageDown, f.keys.PageUp):
		// moving keeps the shape
	case r.kind == rowField && n.isText() && !(n.nullable && n.isNull) && n.pairKey == nil && n.pairVal == nil && !key.Matches(m, f.keys.AddItem, f.keys.RemoveItem, f.keys.MoveUp, f.keys.MoveDown, f.keys.ToggleNull):
		// typing into a text field keeps the shape
	default:
		f.reshaped()
	}
	switch {
	case f.root.free && key.Matches(m, f.keys.AddItem):
		f.addPair()
	case key.Matches(m, f.keys.RemoveItem) && (n.pairKey != nil || n.pairVal != nil) && n.ed.text == "":
		f.removePair(n)
	case key.Matches(m, f.keys.Next):
		f.move(rows, i, 1)
	case key.Matches(m, f.keys.Prev):
		f.move(rows, i, -1)
	case key.Matches(m, f.keys.PageDown):
		f.move(rows, i, 10)
	case key.Matches(m, f.keys.PageUp):
		f.move(rows, i, -10)
	case key.Matches(m, f.keys.AddItem):
		f.addItem(r)
	case key.Matches(m, f.keys.RemoveItem) && !(r.kind == rowField && n.isText() && (r.n.parent == nil || f.itemFor(r) == nil)):
		f.removeItem(r)
	case key.Matches(m, f.keys.MoveUp):
		f.moveItem(r, -1)
	case key.Matches(m, f.keys.MoveDown):
		f.moveItem(r, 1)
	case key.Matches(m, f.keys.ToggleNull):
		f.toggleNull(n)
	default:
		if f.edit(r, m) {
			f.edited(n)
		}
	}
}

// itemFor returns the innermost array item holding the row's node.
func (f *Form) itemFor(r row) *node {
	it, _ := itemOf(r.n)
	return it
}

func (f *Form) edited(n *node) {
	if f.errs != nil {
		delete(f.errs, n.path())
	}
	if f.validated {
		if _, ok := f.QuickCheck(); !ok {
			f.gen++
			f.dirty = true // checked by the command Update returns
		}
	}
}

// isTyping reports a key that types text.
func isTyping(m tea.KeyPressMsg) bool {
	if m.Text == "" || m.Mod&(tea.ModCtrl|tea.ModAlt|tea.ModSuper|tea.ModHyper|tea.ModMeta) != 0 {
		return false
	}
	for _, r := range m.Text {
		if isControl(r) {
			return false
		}
	}
	return true
}

// edit applies a key to the focused row and reports whether a value changed. Each
// kind of row, and of field, has its own step below.
func (f *Form) edit(r row, m tea.KeyPressMsg) bool {
	n := r.n
	if n.nullable && n.isNull {
		return f.editNull(n, m)
	}
	switch r.kind {
	case rowOption:
		return f.editOption(n, r.sub, m)
	case rowVariant:
		return f.editVariant(n, m)
	case rowHeader:
		return f.editHeader(n, m)
	case rowNote:
		return false
	}
	switch n.k {
	case kString, kNumber, kInteger, kJSON:
		return f.editText(n, m)
	case kBool:
		return f.editBool(n, m)
	case kEnum:
		return f.editEnum(n, m)
	}
	return false
}

// editNull: typing into a null field, or toggling it, brings it back; any other key
// leaves it null.
func (f *Form) editNull(n *node, m tea.KeyPressMsg) bool {
	if !(isTyping(m) || key.Matches(m, f.keys.Toggle, f.keys.NextValue, f.keys.PrevValue)) {
		return false
	}
	n.isNull = false
	if n.isText() && isTyping(m) {
		n.ed.insert(m.Text)
	}
	return true
}

// editOption: space or enter toggles choice sub of a multi-select.
func (f *Form) editOption(n *node, sub int, m tea.KeyPressMsg) bool {
	if !key.Matches(m, f.keys.Toggle, f.keys.Choose) {
		return false
	}
	if j := slices.Index(n.msel, sub); j >= 0 {
		n.msel = slices.Delete(n.msel, j, j+1)
	} else {
		n.msel = append(n.msel, sub)
	}
	return true
}

// editVariant: →/space and ← cycle a union's chosen variant.
func (f *Form) editVariant(n *node, m tea.KeyPressMsg) bool {
	d := 0
	switch {
	case key.Matches(m, f.keys.NextValue, f.keys.Toggle):
		d = 1
	case key.Matches(m, f.keys.PrevValue):
		d = -1
	}
	if d == 0 || len(n.variants) == 0 {
		return false
	}
	n.vsel = (n.vsel + d + len(n.variants)) % len(n.variants)
	n.present = true
	return true
}

// editHeader: clear on an optional section's header takes back an empty array, a
// multi-select's choices, or an object typed into.
func (f *Form) editHeader(n *node, m tea.KeyPressMsg) bool {
	if !key.Matches(m, f.keys.Clear) || n.required {
		return false
	}
	switch n.k {
	case kArray:
		if len(n.items) == 0 && n.present {
			n.present = false
			return true
		}
	case kMulti:
		if len(n.msel) > 0 || n.present {
			n.msel, n.present = nil, false
			return true
		}
	case kObject:
		// An optional section typed into can be switched off again.
		if n.parent != nil && n.isSet() {
			n.clear()
			return true
		}
	}
	return false
}

// editBool: toggle, clear (an optional one), or a typed t/y/1 or f/n/0.
func (f *Form) editBool(n *node, m tea.KeyPressMsg) bool {
	switch {
	case key.Matches(m, f.keys.Toggle, f.keys.NextValue, f.keys.PrevValue):
		n.bval = !n.bval || !n.bset
		n.bset = true
	case key.Matches(m, f.keys.Clear):
		if n.required || !n.bset {
			return false
		}
		n.bset, n.bval = false, false
	case isTyping(m) && strings.ContainsAny(strings.ToLower(m.Text), "ty1"):
		n.bset, n.bval = true, true
	case isTyping(m) && strings.ContainsAny(strings.ToLower(m.Text), "fn0"):
		n.bset, n.bval = true, false
	default:
		return false
	}
	return true
}

// editEnum: cycle the choices (through none, when optional), clear, or jump to the
// next choice starting with what was typed.
func (f *Form) editEnum(n *node, m tea.KeyPressMsg) bool {
	count := len(n.opts)
	switch {
	case key.Matches(m, f.keys.NextValue, f.keys.Toggle):
		n.sel++
		if n.sel >= count {
			n.sel = 0
			if !n.required {
				n.sel = -1
			}
		}
	case key.Matches(m, f.keys.PrevValue):
		n.sel--
		if n.sel < -1 || (n.sel == -1 && n.required) {
			n.sel = count - 1
		}
	case key.Matches(m, f.keys.Clear):
		if n.sel < 0 {
			return false
		}
		n.sel = -1
	case isTyping(m):
		return jumpToChoice(n, m.Text)
	default:
		return false
	}
	return true
}

// jumpToChoice moves an enum to the next choice whose label starts with text.
func jumpToChoice(n *node, text string) bool {
	count := len(n.opts)
	t := strings.ToLower(text)
	for k := 1; k <= count; k++ {
		j := (n.sel + k + count) % count
		if j < 0 {
			j += count
		}
		if strings.HasPrefix(strings.ToLower(n.opts[j].Label), t) {
			n.sel = j
			return true
		}
	}
	return false
}

func (f *Form) editText(n *node, m tea.KeyPressMsg) bool {
	e := &n.ed
	before := e.text
	k := &f.keys
	if n.pristine && isTyping(m) {
		e.setText("") // the first key typed over the schema's default replaces it
	}
	n.pristine = false
	switch {
	case key.Matches(m, k.CursorLeft):
		e.left()
	case key.Matches(m, k.CursorRight):
		e.right()
	case key.Matches(m, k.LineStart):
		e.home()
	case key.Matches(m, k.LineEnd):
		e.end()
	case key.Matches(m, k.WordLeft):
		e.wordLeft()
	case key.Matches(m, k.WordRight):
		e.wordRight()
	case key.Matches(m, k.DeleteBack):
		e.backspace()
	case key.Matches(m, k.DeleteForward):
		e.del()
	case key.Matches(m, k.KillLeft):
		e.killLeft()
	case key.Matches(m, k.KillRight):
		e.killRight()
	case key.Matches(m, k.DeleteWord):
		e.deleteWordLeft()
	default:
		if !isTyping(m) {
			return false
		}
		e.insert(m.Text)
	}
	if e.text == before {
		return false
	}
	if e.text == "" {
		n.present = false
	}
	return true
}

// --- key/value rows of a free object ---

func (f *Form) addPair() {
	f.reshaped()
	k, _ := f.root.newPair()
	f.focusNode(k)
	f.edited(f.root)
}

// removePair drops the pair of an empty key or value field (ctrl+d).
func (f *Form) removePair(n *node) {
	f.reshaped()
	k := n
	if n.pairKey != nil {
		k = n.pairKey
	}
	for i, p := range f.root.pairs {
		if p[0] == k {
			f.root.pairs = slices.Delete(f.root.pairs, i, i+1)
			break
		}
	}
	f.focusFirst()
	f.edited(f.root)
}

// --- arrays and null ---

func (f *Form) addItem(r row) {
	var arr *node
	pos := 0
	if r.n.k == kArray && (r.kind == rowHeader || r.n.isNull) {
		arr, pos = r.n, len(r.n.items)
	} else {
		var it *node
		it, arr = itemOf(r.n)
		if arr == nil {
			return
		}
		pos = slices.Index(arr.items, it) + 1
	}
	arr.isNull = false
	c := arr.newItem()
	arr.items = slices.Insert(arr.items, pos, c)
	target := c
	if c.k == kObject && len(c.props) > 0 {
		target = c.props[0]
	}
	f.focusNode(target)
	f.edited(arr)
}

func (f *Form) removeItem(r row) {
	it, arr := itemOf(r.n)
	if arr == nil {
		return
	}
	i := slices.Index(arr.items, it)
	if i < 0 {
		return
	}
	arr.items = slices.Delete(arr.items, i, i+1)
	switch {
	case i < len(arr.items):
		f.focusNode(arr.items[i])
	case i > 0:
		f.focusNode(arr.items[i-1])
	default:
		f.focusNode(arr)
	}
	f.edited(arr)
}

func (f *Form) moveItem(r row, d int) {
	it, arr := itemOf(r.n)
	if arr == nil {
		return
	}
	i := slices.Index(arr.items, it)
	j := i + d
	if i < 0 || j < 0 || j >= len(arr.items) {
		return
	}
	arr.items[i], arr.items[j] = arr.items[j], arr.items[i]
	f.edited(arr)
}

func (f *Form) toggleNull(n *node) {
	for c := n; c != nil; c = c.parent {
		if c.nullable {
			c.isNull = !c.isNull
			f.focusNode(c)
			f.edited(c)
			return
		}
	}
}
