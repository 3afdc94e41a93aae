package form

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/clipperhouse/uax29/v2/graphemes"

	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// editor is a one-line text editor over grapheme clusters: the cursor never
// splits an emoji or a letter with its combining marks.
type editor struct {
	text string
	cur  int // byte offset, always on a grapheme boundary
	off  int // byte offset of the first visible cluster
}

func (e *editor) setText(s string) {
	e.text = strings.ToValidUTF8(s, "\uFFFD")
	e.cur = len(e.text)
	e.off = 0
}

// clusters calls fn with the start and end of every grapheme cluster.
func clusters(s string, fn func(start, end int) bool) {
	g := graphemes.FromString(s)
	for g.Next() {
		if !fn(g.Start(), g.End()) {
			return
		}
	}
}

func (e *editor) prev(pos int) int {
	p := 0
	clusters(e.text, func(start, end int) bool {
		if start >= pos {
			return false
		}
		p = start
		return true
	})
	return p
}

func (e *editor) next(pos int) int {
	n := len(e.text)
	clusters(e.text, func(start, end int) bool {
		if end > pos {
			n = end
			return false
		}
		return true
	})
	return n
}

// snap moves pos to the end of the cluster it falls inside.
func (e *editor) snap(pos int) int {
	out := pos
	clusters(e.text, func(start, end int) bool {
		if start >= pos {
			return false
		}
		if pos < end {
			out = end
			return false
		}
		return true
	})
	return out
}

func (e *editor) insert(s string) {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if s == "" {
		return
	}
	e.text = e.text[:e.cur] + s + e.text[e.cur:]
	e.cur = e.snap(e.cur + len(s))
}

func (e *editor) left()  { e.cur = e.prev(e.cur) }
func (e *editor) right() { e.cur = e.next(e.cur) }
func (e *editor) home()  { e.cur = 0 }
func (e *editor) end()   { e.cur = len(e.text) }

func (e *editor) backspace() {
	if e.cur == 0 {
		return
	}
	p := e.prev(e.cur)
	e.text = e.text[:p] + e.text[e.cur:]
	e.cur = p
}

func (e *editor) del() {
	if e.cur >= len(e.text) {
		return
	}
	n := e.next(e.cur)
	e.text = e.text[:e.cur] + e.text[n:]
}

func (e *editor) killLeft() {
	e.text = e.text[e.cur:]
	e.cur = 0
}

func (e *editor) killRight() { e.text = e.text[:e.cur] }

func isSpaceAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r) || unicode.IsPunct(r)
}

func (e *editor) wordLeft() {
	p := e.cur
	for p > 0 && isSpaceAt(e.text, e.prev(p)) {
		p = e.prev(p)
	}
	for p > 0 && !isSpaceAt(e.text, e.prev(p)) {
		p = e.prev(p)
	}
	e.cur = p
}

func (e *editor) wordRight() {
	p := e.cur
	for p < len(e.text) && isSpaceAt(e.text, p) {
		p = e.next(p)
	}
	for p < len(e.text) && !isSpaceAt(e.text, p) {
		p = e.next(p)
	}
	e.cur = p
}

func (e *editor) deleteWordLeft() {
	end := e.cur
	e.wordLeft()
	e.text = e.text[:e.cur] + e.text[end:]
}

// display makes one cluster safe and visible on a terminal (termsafe's rule):
// control characters and escapes are shown, a newline as ↵ and a tab as ⇥, and a
// zero-width cluster as a dot.
func display(c string) string {
	if c == "\t" {
		return "⇥"
	}
	c = termsafe.Line(c)
	if ansi.StringWidth(c) == 0 {
		return "·"
	}
	return c
}

func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0)
}

// sanitize makes any text (labels, descriptions, values, hints) safe to print on
// one line.
func sanitize(s string) string { return termsafe.Line(s) }

// pasteText is a paste as the field should hold it: terminals send a pasted line
// break as \r (some clipboards as \r\n), which in a value means \n.
func pasteText(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// view renders the editor in w cells with the cursor drawn in cursorStyle,
// scrolling horizontally to keep the cursor visible.
func (e *editor) view(w int, text, cursorStyle lipgloss.Style) string {
	if w <= 0 {
		return ""
	}
	type cl struct {
		start, end int
		disp       string
		w          int
	}
	var cls []cl
	clusters(e.text, func(start, end int) bool {
		d := display(e.text[start:end])
		cls = append(cls, cl{start, end, d, ansi.StringWidth(d)})
		return true
	})
	curIdx := len(cls)
	for i, c := range cls {
		if c.start >= e.cur {
			curIdx = i
			break
		}
	}
	offIdx := 0
	for i, c := range cls {
		if c.start >= e.off {
			offIdx = i
			break
		}
		offIdx = i + 1
	}
	if offIdx > curIdx {
		offIdx = curIdx
	}
	width := func(from, to int) int { // cells of clusters [from, to] incl. cursor cell
		sum := 0
		for i := from; i <= to && i <= len(cls); i++ {
			if i == len(cls) {
				sum++
			} else {
				sum += cls[i].w
			}
		}
		return sum
	}
	for offIdx < curIdx && width(offIdx, curIdx) > w {
		offIdx++
	}
	if offIdx < len(cls) {
		e.off = cls[offIdx].start
	} else {
		e.off = len(e.text)
	}
	var b strings.Builder
	used := 0
	var run strings.Builder
	flush := func() {
		if run.Len() > 0 {
			b.WriteString(text.Render(run.String()))
			run.Reset()
		}
	}
	for i := offIdx; i <= len(cls); i++ {
		d, cw := " ", 1
		if i < len(cls) {
			d, cw = cls[i].disp, cls[i].w
		}
		if used+cw > w {
			break
		}
		if i == curIdx {
			flush()
			b.WriteString(cursorStyle.Render(d))
		} else if i < len(cls) {
			run.WriteString(d)
		}
		used += cw
	}
	flush()
	return b.String()
}
