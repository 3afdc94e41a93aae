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

// wrapView is the scroller's window with each of its lines wrapped at width, for
// views whose lines are long (Stderr). The offset counts source lines; when
// following, the last lines fill the window.
func (s *scroller) wrapView(height, width int) string {
	s.height = height
	if height <= 0 || len(s.lines) == 0 {
		return ""
	}
	if s.follow {
		// From the end backwards, until the window is full.
		var rows []string
		i := len(s.lines) - 1
		for ; i >= 0 && len(rows) < height; i-- {
			w := appendWrapped(nil, s.lines[i], width)
			rows = append(w, rows...)
		}
		s.offset = i + 1
		if len(rows) > height {
			rows = rows[len(rows)-height:]
		}
		return strings.Join(rows, "\n")
	}
	var rows []string
	for i := min(s.offset, len(s.lines)-1); i < len(s.lines) && len(rows) < height; i++ {
		rows = appendWrapped(rows, s.lines[i], width)
	}
	if len(rows) > height {
		rows = rows[:height]
	}
	return strings.Join(rows, "\n")
}
