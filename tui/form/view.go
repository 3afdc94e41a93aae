package form

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/textarea"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpscope/mcpscope/fields"
	"github.com/mcpscope/mcpscope/internal/plural"
)

// Styles are the form's lipgloss styles. The root model maps its theme onto
// them with SetStyles.
type Styles struct {
	Label        lipgloss.Style // field names
	FocusedLabel lipgloss.Style // the focused field's name
	Section      lipgloss.Style // object and array headings
	Marker       lipgloss.Style // the focus marker
	Required     lipgloss.Style // the required mark
	Text         lipgloss.Style // values
	Placeholder  lipgloss.Style // empty fields, unset choices, null
	Hint         lipgloss.Style // formats, bounds, defaults, descriptions
	Error        lipgloss.Style // errors beside fields
	Cursor       lipgloss.Style // the text cursor
}

// DefaultStyles uses the 16 ANSI colours so any terminal theme reads well.
func DefaultStyles() Styles {
	return Styles{
		Label:        lipgloss.NewStyle(),
		FocusedLabel: lipgloss.NewStyle().Bold(true),
		Section:      lipgloss.NewStyle().Bold(true),
		Marker:       lipgloss.NewStyle().Foreground(lipgloss.Cyan).Bold(true),
		Required:     lipgloss.NewStyle().Foreground(lipgloss.Red).Bold(true),
		Text:         lipgloss.NewStyle(),
		Placeholder:  lipgloss.NewStyle().Faint(true),
		Hint:         lipgloss.NewStyle().Faint(true),
		Error:        lipgloss.NewStyle().Foreground(lipgloss.Red),
		Cursor:       lipgloss.NewStyle().Reverse(true),
	}
}

func (s Styles) textareaStyles() textarea.Styles {
	ts := textarea.DefaultDarkStyles()
	plain := lipgloss.NewStyle()
	for _, st := range []*textarea.StyleState{&ts.Focused, &ts.Blurred} {
		st.Base = plain
		st.Text = s.Text
		st.CursorLine = plain
		st.CursorLineNumber = s.Hint
		st.LineNumber = s.Hint
		st.EndOfBuffer = plain
		st.Placeholder = s.Placeholder
		st.Prompt = plain
		st.Selection = plain.Reverse(true)
	}
	ts.Cursor.Blink = false
	ts.Cursor.Color = nil // plain reverse video reads on any background
	return ts
}

// View renders the form in width×height cells: only what fits, scrolled so
// the focused field is visible. No line is wider than width.
func (f *Form) View(width, height int) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	var lines []string
	if f.raw {
		lines = f.rawView(width, height)
	} else {
		lines = f.fieldsView(width, height)
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			lines[i] = ansi.Truncate(l, width, "…")
		}
	}
	return strings.Join(lines, "\n")
}

func (f *Form) rawView(width, height int) []string {
	var errs []string
	if f.rawErr != "" {
		errs = append(errs, f.styles.Error.Render("✗ "+sanitize(f.rawErr)))
	}
	for i, e := range f.rawErrs {
		if i == 3 {
			errs = append(errs, f.styles.Hint.Render(fmt.Sprintf("… %d more", len(f.rawErrs)-3)))
			break
		}
		errs = append(errs, f.styles.Error.Render("✗ "+sanitize(e.Error())))
	}
	if len(errs) > height-1 {
		errs = errs[:max(height-1, 0)]
	}
	taH := max(height-len(errs), 1)
	f.ta.SetWidth(width)
	f.ta.SetHeight(taH)
	lines := strings.Split(f.ta.View(), "\n")
	if len(lines) > taH {
		lines = lines[:taH]
	}
	lines = append(lines, errs...)
	if len(lines) > height {
		lines = lines[:height]
	}
	return lines
}

// layout is the geometry shared by all rows of one frame.
type layout struct {
	width  int
	labelW int // label column, without the 2-cell focus marker
	valX   int // column where values start
	valW   int
}

// fieldsView draws the rows that fit. Only the rows on screen are rendered; the
// others are counted (a row's height is known without drawing it), so a form of
// 10,000 fields costs the fields shown.
func (f *Form) fieldsView(width, height int) []string {
	rows := f.rows()
	fi := f.focusIndex(rows)

	lw := 0
	for _, r := range rows {
		if r.kind == rowNote || r.kind == rowOption {
			continue
		}
		w := 2*r.depth + labelWidth(r.label)
		if r.n.required && r.kind != rowVariant || r.kind == rowVariant && r.n.required {
			w += 1
		}
		lw = max(lw, w)
	}
	lw = min(max(lw, 6), max(6, width*2/5))
	lay := layout{width: width, labelW: lw, valX: 2 + lw + 1}
	lay.valW = max(width-lay.valX, 0)

	rowErrs, unplaced := f.placeErrors(rows)

	var head []string
	for _, msg := range unplaced {
		head = append(head, f.styles.Error.Render("✗ "+sanitize(msg)))
	}
	counts := make([]int, len(rows))
	var focused []string
	total, focusA, focusB := len(head), 0, 0
	for i, r := range rows {
		if i == fi {
			focused = f.renderRow(r, true, lay, rowErrs[i])
			counts[i] = len(focused)
			focusA, focusB = total, total+counts[i]
		} else {
			counts[i] = rowLines(r, rowErrs[i], lay)
		}
		total += counts[i]
	}
	if total == 0 {
		return []string{f.styles.Placeholder.Render("no fields")}
	}
	f.drawn = 1
	// get renders lines [from, to) of the whole form.
	get := func(from, to int) []string {
		out := make([]string, 0, to-from)
		for i := from; i < min(to, len(head)); i++ {
			out = append(out, head[i])
		}
		at := len(head)
		for i, r := range rows {
			if at >= to {
				break
			}
			next := at + counts[i]
			if next > from {
				lines := focused
				if i != fi {
					lines = f.renderRow(r, false, lay, rowErrs[i])
					f.drawn++
				}
				lo, hi := max(from-at, 0), min(to-at, len(lines))
				out = append(out, lines[lo:hi]...)
			}
			at = next
		}
		return out
	}
	return f.window(total, height, focusA, focusB, get)
}

// labelWidth is the width of a label as drawn; plain ASCII labels (the common case)
// are measured without a copy.
func labelWidth(label string) int {
	for i := 0; i < len(label); i++ {
		if c := label[i]; c < 0x20 || c >= 0x7f {
			return ansi.StringWidth(sanitize(label))
		}
	}
	return len(label)
}

// rowLines is how many lines renderRow draws for a row without focus.
func rowLines(r row, errs []string, lay layout) int {
	switch r.kind {
	case rowNote, rowOption:
		return 1
	}
	n := 1
	for _, e := range withLive(liveOf(r), errs) {
		n += len(errorLines(e, errColumn(r, lay), lay.width))
	}
	return n
}

// errColumn is where a row's errors start: under its value, or under its label
// when the value column is too narrow to read them there.
func errColumn(r row, lay layout) int {
	if lay.valW < 20 {
		return 2 + 2*r.depth
	}
	return lay.valX
}

// maxErrorLines bounds one error as drawn (a server's pattern can be kilobytes).
const maxErrorLines = 4

// errorLines is one error as drawn from column x of a form width wide, unstyled:
// whole, wrapped, so that the reason at its end ("month out of range") is read
// rather than cut at the pane's edge; at most maxErrorLines lines.
func errorLines(e string, x, width int) []string {
	w := width - x - 2 // "✗ " and the indent of the lines after the first
	if w < 10 {
		return []string{"✗ " + sanitize(e)} // no room to wrap: View cuts it
	}
	lines := strings.Split(ansi.Wrap(sanitize(e), w, " "), "\n")
	if len(lines) > maxErrorLines {
		lines = lines[:maxErrorLines]
		lines[maxErrorLines-1] = ansi.Truncate(lines[maxErrorLines-1]+" …", w, "…")
	}
	for i := range lines {
		if i == 0 {
			lines[i] = "✗ " + lines[i]
		} else {
			lines[i] = "  " + lines[i]
		}
	}
	return lines
}

// withLive is the errors a row shows: the live check first, then validation's errors
// (the two may say the same thing: it is said once).
func withLive(live string, errs []string) []string {
	if live == "" {
		return errs
	}
	kept := []string{live}
	for _, e := range errs {
		if !strings.HasPrefix(e, live) {
			kept = append(kept, e)
		}
	}
	return kept
}

// liveOf is the live error renderValue shows for a row.
func liveOf(r row) string {
	n := r.n
	if (n.nullable && n.isNull) || r.kind == rowHeader || r.kind == rowVariant {
		return ""
	}
	switch n.k {
	case kString, kNumber, kInteger, kJSON:
		return liveError(n)
	}
	return ""
}

// window picks the lines that fit, keeping [a, b) (the focused field) in
// view, with "more" markers where lines are cut off; get renders a range of the
// total lines.
func (f *Form) window(total, height, a, b int, get func(from, to int) []string) []string {
	if total <= height {
		f.top = 0
		return get(0, total)
	}
	if height < 3 {
		f.top = min(max(a, 0), total-height)
		return get(f.top, f.top+height)
	}
	up, down := 0, 1
	var inner int
	for range 4 {
		inner = height - up - down
		if a < f.top {
			f.top = a
		}
		if b > f.top+inner {
			f.top = min(b-inner, a)
		}
		f.top = min(max(f.top, 0), total-inner)
		nu, nd := 0, 0
		if f.top > 0 {
			nu = 1
		}
		if f.top+(height-nu-down) < total {
			nd = 1
		}
		if nu == up && nd == down {
			break
		}
		up, down = nu, nd
	}
	inner = height - up - down
	f.top = min(max(f.top, 0), total-inner)
	out := make([]string, 0, height)
	if up > 0 {
		out = append(out, f.styles.Hint.Render(fmt.Sprintf("  ↑ %d more", f.top)))
	}
	out = append(out, get(f.top, f.top+inner)...)
	if down > 0 {
		out = append(out, f.styles.Hint.Render(fmt.Sprintf("  ↓ %d more", total-f.top-inner)))
	}
	return out
}

// placeErrors assigns each stored error to the row of its path, or of the
// nearest ancestor shown; the rest go above the form.
func (f *Form) placeErrors(rows []row) (map[int][]string, []string) {
	if len(f.errs) == 0 {
		return nil, nil
	}
	owner := map[string]int{}
	for i, r := range rows {
		if r.kind == rowNote {
			continue
		}
		j, ok := owner[r.path]
		if !ok || (rows[j].kind == rowVariant && r.kind == rowField) {
			owner[r.path] = i
		}
	}
	placed := map[int][]string{}
	var unplaced []string
	paths := make([]string, 0, len(f.errs))
	for p := range f.errs {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		msg := f.errs[p]
		q := p
		for {
			if i, ok := owner[q]; ok {
				if q != p {
					msg = strings.TrimPrefix(p, q+"/") + ": " + msg
				}
				placed[i] = append(placed[i], msg)
				break
			}
			k := strings.LastIndexByte(q, '/')
			if k < 0 {
				if p != "" {
					msg = p + ": " + msg
				}
				unplaced = append(unplaced, msg)
				break
			}
			q = q[:k]
		}
	}
	return placed, unplaced
}

func (f *Form) renderRow(r row, focused bool, lay layout, errs []string) []string {
	st := f.styles
	n := r.n
	marker := "  "
	if focused {
		marker = st.Marker.Render("› ")
	}
	indent := strings.Repeat("  ", r.depth)
	var out []string
	switch r.kind {
	case rowNote:
		return []string{"  " + indent + st.Hint.Render(sanitize(r.note))}
	case rowOption:
		box := "[ ]"
		if slices.Contains(n.msel, r.sub) {
			box = "[x]"
		}
		label := sanitize(n.opts[r.sub].Label)
		ls := st.Label
		if focused {
			ls = st.FocusedLabel
		}
		out = append(out, marker+indent+box+" "+ls.Render(label))
		if focused {
			if d := n.opts[r.sub].Desc; d != "" {
				out = append(out, f.descLines(d, 2+2*r.depth+4, lay.width)...)
			}
		}
		return out
	}

	req := n.required
	reqW := 0
	if req {
		reqW = 1
	}
	label := indent + sanitize(r.label)
	if ansi.StringWidth(label)+reqW > lay.labelW {
		label = ansi.Truncate(label, max(lay.labelW-reqW, 1), "…")
	}
	ls := st.Label
	if r.kind == rowHeader {
		ls = st.Section
	}
	if focused {
		ls = st.FocusedLabel
	}
	line := marker + ls.Render(label)
	if req {
		line += st.Required.Render("*")
	}
	if pad := lay.labelW - ansi.StringWidth(label) - reqW; pad > 0 {
		line += strings.Repeat(" ", pad)
	}
	line += " "

	value, hints, live := f.renderValue(r, focused, lay.valW)
	if focused {
		hints = joinHints(hints, keyHints(r))
	}
	line += value
	if hints != "" {
		room := lay.valW - ansi.StringWidth(value) - 2
		if room >= 4 {
			line += "  " + st.Hint.Render(ansi.Truncate(sanitize(hints), room, "…"))
		}
	}
	out = append(out, line)

	errX := errColumn(r, lay)
	errs = withLive(live, errs)
	for _, e := range errs {
		for _, l := range errorLines(e, errX, lay.width) {
			out = append(out, strings.Repeat(" ", errX)+st.Error.Render(l))
		}
	}
	if focused {
		var desc []string
		if n.title != "" && n.title != r.label {
			desc = append(desc, n.title)
		}
		if n.desc != "" {
			desc = append(desc, n.desc)
		}
		if n.k == kJSON && n.reason != "" && !(n.nullable && n.isNull) {
			desc = append(desc, "edited as JSON: "+n.reason)
		}
		if len(desc) > 0 {
			out = append(out, f.descLines(strings.Join(desc, " — "), errX, lay.width)...)
		}
	}
	return out
}

// descLines wraps a description into at most two dim lines starting at x.
func (f *Form) descLines(text string, x, width int) []string {
	text = sanitize(strings.Join(strings.Fields(text), " "))
	w := width - x
	if w < 10 {
		x, w = 2, width-2
	}
	if w <= 0 {
		return nil
	}
	wrapped := strings.Split(ansi.Wrap(text, w, " "), "\n")
	if len(wrapped) > 2 {
		wrapped = wrapped[:2]
		wrapped[1] = ansi.Truncate(wrapped[1]+" …", w, "…")
	}
	out := make([]string, len(wrapped))
	for i, l := range wrapped {
		out[i] = strings.Repeat(" ", x) + f.styles.Hint.Render(l)
	}
	return out
}

// renderValue draws the value part of a row and returns its dim hints and a
// live error (text that does not parse).
func (f *Form) renderValue(r row, focused bool, w int) (value, hints, live string) {
	st := f.styles
	n := r.n
	hl := schemaHints(n)
	if n.nullable && n.isNull {
		return st.Placeholder.Render("null"), strings.Join(hl, " · "), ""
	}
	switch r.kind {
	case rowHeader:
		switch n.k {
		case kArray:
			value = st.Placeholder.Render(plural.Count(len(n.items), "item"))

		case kMulti:
			value = st.Placeholder.Render(fmt.Sprintf("%d selected", len(n.msel)))

		case kObject:
			if !n.isSet() && !n.required {
				value = st.Placeholder.Render("optional")
			}
		}
		return value, strings.Join(hl, " · "), ""
	case rowVariant:
		label := ""
		if n.vsel < len(n.vlabels) {
			label = sanitize(n.vlabels[n.vsel])
		}
		value = st.Text.Render("‹ " + ansi.Truncate(label, max(w-4, 1), "…") + " ›")
		hl = append([]string{strconv.Itoa(n.vsel+1) + "/" + strconv.Itoa(len(n.variants))}, hl...)

		return value, strings.Join(hl, " · "), ""
	}
	switch n.k {
	case kString, kNumber, kInteger, kJSON:
		empty := n.ed.text == ""
		if empty && n.k == kString {
			hl = slices.DeleteFunc(hl, func(h string) bool { return h == n.format })
		}
		switch {
		case focused:
			value = n.ed.view(w, st.Text, st.Cursor)
			if empty && !n.present && w > 2 {
				value += st.Placeholder.Render(ansi.Truncate(sanitize(placeholder(n)), w-1, "…"))
			}
		case empty && n.present:
			value = st.Placeholder.Render(`""`)
		case empty:
			value = st.Placeholder.Render(ansi.Truncate(sanitize(placeholder(n)), w, "…"))
		default:
			value = st.Text.Render(ansi.Truncate(sanitize(n.ed.text), w, "…"))
		}
		live = liveError(n)
	case kBool:
		switch {
		case !n.bset:
			value = st.Placeholder.Render("[ ] unset")
		case n.bval:
			value = st.Text.Render("[x] true")
		default:
			value = st.Text.Render("[ ] false")
		}
	case kEnum:
		if n.sel >= 0 && n.sel < len(n.opts) {
			value = st.Text.Render("‹ " + ansi.Truncate(sanitize(n.opts[n.sel].Label), max(w-4, 1), "…") + " ›")
		} else if n.required {
			value = st.Placeholder.Render("‹ choose ›")
		} else {
			value = st.Placeholder.Render("‹ none ›")
		}
		pos := "–"
		if n.sel >= 0 {
			pos = strconv.Itoa(n.sel + 1)
		}
		hl = append([]string{pos + "/" + strconv.Itoa(len(n.opts))}, hl...)
	case kConst:
		value = st.Placeholder.Render("= " + ansi.Truncate(sanitize(string(fields.Encode(n.cval, ""))), max(w-2, 1), "…"))
	}
	return value, strings.Join(hl, " · "), live
}

// tooLarge is what a number beyond a 64-bit float gets (1e400 is valid JSON).
const tooLarge = "too large: beyond a 64-bit float, a server would read it as Infinity"

// liveError checks a text field as it is typed.
func liveError(n *node) string {
	t := strings.TrimSpace(n.ed.text)
	if t == "" {
		return ""
	}
	switch n.k {
	case kNumber, kInteger:
		if !fields.IsNumber(t) {
			return "not a number"
		}
		if fields.Overflows(t) {
			return tooLarge
		}
		if n.k == kInteger && !fields.IsIntegral(t) {
			return "not an integer"
		}
	case kJSON:
		if _, err := fields.Parse([]byte(t)); err != nil {
			return "invalid JSON: " + err.Error()
		}
	}
	return ""
}

func joinHints(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " · " + b
}

// keyHints reminds of the keys that act on the focused row.
func keyHints(r row) string {
	n := r.n
	var h []string
	switch {
	case n.nullable && n.isNull:
	case r.kind == rowVariant:
		h = append(h, "←/→ variant")
	case r.kind == rowHeader && n.k == kArray:
		h = append(h, "ctrl+n add")
	case r.kind == rowHeader && n.k == kMulti:
		h = append(h, "space toggles")
	case r.kind == rowField && n.k == kEnum:
		h = append(h, "←/→")
	case r.kind == rowField && n.k == kBool:
		h = append(h, "space")
	}
	if it, _ := itemOf(n); it == n {
		h = append(h, "ctrl+d remove")
	}
	if n.nullable {
		if n.isNull {
			h = append(h, "ctrl+t unset null")
		} else {
			h = append(h, "ctrl+t null")
		}
	}
	return strings.Join(h, " · ")
}
