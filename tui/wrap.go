package tui

import (
	"math"
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
// for views whose lines are long (Stderr, Logs). The offset counts source lines; when
// following the end, the last lines fill the window. Only the lines in view are read
// (from the spill file for old ones) and wrapped.
func (v *lineView) wrapView(height, width int) string {
	v.height = height
	rows, first := wrapWindow(v.len(), v.at, v.offset, !v.back, height, width)
	if !v.back {
		v.offset = first
	}
	return strings.Join(rows, "\n")
}

// wrapView is the scroller's window with each source line wrapped at width, as
// lineView.wrapView does it: the offset counts source lines, and following the end
// shows the last lines that fill the window. It counts the whole source, so it is
// for sources whose count is cheap (the filtered Logs rows).
func (s *scroller) wrapView(height, width int) string {
	s.height = height
	if s.src == nil {
		return ""
	}
	at := func(i int) string {
		if l := s.src.Lines(i, i+1); len(l) > 0 {
			return l[0]
		}
		return ""
	}
	rows, first := wrapWindow(s.count(math.MaxInt), at, s.offset, s.follow, height, width)
	if s.follow {
		s.offset = first
	}
	return strings.Join(rows, "\n")
}

// wrapWindow lays out source lines [0, n), each wrapped at width, in at most height
// rows: from line first on, or (fromEnd) the last lines, backwards until the window
// is full. It returns the rows and the first line shown (the top one may show only
// its end). Only the lines in view are read and wrapped.
func wrapWindow(n int, at func(int) string, first int, fromEnd bool, height, width int) ([]string, int) {
	if height <= 0 || n == 0 {
		return nil, min(first, max(n-1, 0))
	}
	if fromEnd {
		var rows []string
		i := n - 1
		for ; i >= 0 && len(rows) < height; i-- {
			w := appendWrapped(nil, at(i), width)
			rows = append(w, rows...)
		}
		if len(rows) > height {
			rows = rows[len(rows)-height:]
		}
		return rows, i + 1
	}
	first = min(max(first, 0), n-1)
	var rows []string
	for i := first; i < n && len(rows) < height; i++ {
		rows = appendWrapped(rows, at(i), width)
	}
	if len(rows) > height {
		rows = rows[:height]
	}
	return rows, first
}
