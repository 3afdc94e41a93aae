package tui

import (
	"encoding/json"
	"math"
	"strings"
	"unsafe"
)

// lineSource is what a scroller shows: lines produced on demand, so that a 100 MiB
// text costs the lines on screen, not a slice of every line.
type lineSource interface {
	// Lines returns lines [from, to), fewer at the end.
	Lines(from, to int) []string
	// Count returns the number of lines, or limit when there are at least that many
	// (it looks no further than it must).
	Count(limit int) int
}

// sliceSource is a source of lines already made.
type sliceSource []string

func (s sliceSource) Lines(from, to int) []string {
	to = min(to, len(s))
	if from >= to {
		return nil
	}
	return s[from:to]
}

func (s sliceSource) Count(limit int) int { return min(len(s), limit) }

// markEvery is how many wrapped lines share one remembered start offset.
const markEvery = 256

// wrapped is a big text hard-wrapped at width on demand, line by line as wrapHard
// would cut it: it scans only as far as the lines asked for, remembering the start of
// every markEvery-th line to come back to. Each line shown is made safe for the
// terminal on its own.
type wrapped struct {
	text  string
	width int
	marks []int // marks[k] is the byte offset of line k*markEvery
	next  int   // scan frontier: the byte offset of line n
	n     int   // lines found so far
	done  bool
}

func newWrapped(text string, width int) *wrapped {
	return &wrapped{text: text, width: max(width, 1), marks: []int{0}, done: text == ""}
}

// step returns the line starting at byte p and the start of the next.
func (w *wrapped) step(p int) (string, int) {
	end := min(len(w.text), p+4*w.width+4) // width runes fit in 4*width bytes
	win := w.text[p:end]
	paraNext := -1
	if nl := strings.IndexByte(win, '\n'); nl >= 0 {
		win, paraNext = win[:nl], p+nl+1
	} else if end == len(w.text) {
		paraNext = end
	}
	if paraNext >= 0 { // the window reaches the end of the paragraph
		win = strings.TrimSuffix(win, "\r")
		cut := cutAt(win, w.width)
		if cut == len(win) {
			return win, paraNext
		}
		return win[:cut], p + cut
	}
	cut := cutAt(win, w.width)
	return win[:cut], p + cut
}

// extend scans until upto lines are known (or the text ends).
func (w *wrapped) extend(upto int) {
	for !w.done && w.n < upto {
		_, w.next = w.step(w.next)
		w.n++
		if w.next >= len(w.text) {
			w.done = true
		} else if w.n%markEvery == 0 {
			w.marks = append(w.marks, w.next)
		}
	}
}

func (w *wrapped) Count(limit int) int {
	w.extend(limit)
	return min(w.n, limit)
}

func (w *wrapped) Lines(from, to int) []string {
	w.extend(to)
	to = min(to, w.n)
	if from >= to {
		return nil
	}
	k := from / markEvery
	p := w.marks[k]
	for i := k * markEvery; i < from; i++ {
		_, p = w.step(p)
	}
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		var line string
		line, p = w.step(p)
		out = append(out, safeText(line))
	}
	return out
}

// doc is a document of parts: lines made at once, and big texts wrapped on demand.
type doc struct {
	parts []lineSource
	width int
	// wraps, when set, keeps the wrapped texts across rebuilds of the document (a
	// progress message elsewhere redraws the result; what was scanned stays scanned).
	wraps map[wrapKey]*wrapped
}

type wrapKey struct {
	data  *byte
	n     int
	width int
}

func (d *doc) wrap(s string) *wrapped {
	if d.wraps == nil {
		return newWrapped(s, d.width)
	}
	k := wrapKey{unsafe.StringData(s), len(s), d.width}
	w, ok := d.wraps[k]
	if !ok {
		w = newWrapped(s, d.width)
		d.wraps[k] = w
	}
	return w
}

// add appends lines made at once.
func (d *doc) add(lines ...string) {
	if len(lines) == 0 {
		return
	}
	if n := len(d.parts); n > 0 {
		if s, ok := d.parts[n-1].(sliceSource); ok {
			d.parts[n-1] = append(s, lines...)
			return
		}
	}
	d.parts = append(d.parts, sliceSource(append([]string(nil), lines...)))
}

// addText shows text as textLines does; a big text is wrapped on demand.
func (d *doc) addText(st styles, s string) {
	if len(s) >= bigText {
		d.parts = append(d.parts, d.wrap(s))
		return
	}
	d.add(textLines(st, s, d.width)...)
}

// addJSON shows JSON as jsonLines does; big JSON is wrapped on demand.
func (d *doc) addJSON(st styles, raw json.RawMessage) {
	if len(raw) >= bigText {
		d.parts = append(d.parts, d.wrap(unsafe.String(unsafe.SliceData(raw), len(raw))))
		return
	}
	d.add(jsonLines(st, raw, d.width)...)
}

func (d *doc) Count(limit int) int {
	total := 0
	for _, p := range d.parts {
		total += p.Count(limit - total)
		if total >= limit {
			return limit
		}
	}
	return total
}

func (d *doc) Lines(from, to int) []string {
	var out []string
	base := 0
	for _, p := range d.parts {
		if base >= to {
			break
		}
		c := p.Count(to - base)
		if from < base+c {
			out = append(out, p.Lines(max(from-base, 0), c)...)
		}
		base += c
	}
	return out
}

// all is every line (for tests and small documents).
func (d *doc) all() []string { return d.Lines(0, math.MaxInt) }
