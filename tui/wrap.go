package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// wrapWords wraps text (already made safe) at width cells, breaking at spaces and
// hyphens, and inside a word only when the word alone is longer than a line. Styled
// text (highlighted JSON) keeps its styles across the break.
func wrapWords(s string, width int) []string {
	width = max(width, 1)
	var out []string
	for _, line := range strings.Split(s, "\n") {
		out = appendWrapped(out, strings.TrimSuffix(line, "\r"), width)
	}
	return out
}

func appendWrapped(out []string, line string, width int) []string {
	if ansi.StringWidth(line) <= width {
		return append(out, line)
	}
	return append(out, strings.Split(ansi.Wrap(line, width, ""), "\n")...)
}

// wrapView is the window of a line view with each of its lines wrapped at width,
// for views whose lines are long (Stderr). The offset counts source lines; when
// following the end, the last lines fill the window. Only the lines in view are read
// (from the spill file for old ones) and wrapped.
func (v *lineView) wrapView(height, width int) string {
	v.height = height
	n := v.len()
	if height <= 0 || n == 0 {
		return ""
	}
	if !v.back {
		// From the end backwards, until the window is full.
		var rows []string
		i := n - 1
		for ; i >= 0 && len(rows) < height; i-- {
			w := appendWrapped(nil, v.at(i), width)
			rows = append(w, rows...)
		}
		v.offset = i + 1
		if len(rows) > height {
			rows = rows[len(rows)-height:]
		}
		return strings.Join(rows, "\n")
	}
	var rows []string
	for i := min(v.offset, n-1); i < n && len(rows) < height; i++ {
		rows = appendWrapped(rows, v.at(i), width)
	}
	if len(rows) > height {
		rows = rows[:height]
	}
	return strings.Join(rows, "\n")
}
