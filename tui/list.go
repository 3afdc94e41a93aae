package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// list is the one windowed list every list view uses (tools, servers, traffic,
// history, and the views that come next): a cursor, the first row shown, moves by
// rows, pages, home and end, and drawing of only the rows on screen. It holds no
// rows: the view owns them and passes their number n, and a callback draws row i.
// So a list of a million rows costs a frame what the rows on screen cost.
//
// A view embeds it (its fields cursor and offset are the view's), moves it with
// keyMove (or moveBy for the mouse wheel and its own jumps), and draws with draw
// (or window when it lays rows out itself).
type list struct {
	cursor int // the selected row: 0 ≤ cursor < n (0 when the list is empty)
	offset int // the first row shown
	height int // rows shown at the last draw: a page is one row less
}

// clamp keeps the cursor on a row of a list of n.
func (l *list) clamp(n int) {
	l.cursor = min(max(l.cursor, 0), max(n-1, 0))
}

// moveBy moves the cursor by delta rows (negative: up), within the n rows.
func (l *list) moveBy(delta, n int) {
	// A jump to either end (±1<<30) must not overflow.
	c := int64(l.cursor) + int64(delta)
	l.cursor = int(min(max(c, 0), int64(max(n-1, 0))))
}

// page is how far a page key moves: the rows shown less one, which stays in view.
func (l *list) page() int { return max(l.height-1, 1) }

// home and end select the first and the last row.
func (l *list) home()     { l.cursor = 0 }
func (l *list) end(n int) { l.cursor = max(n-1, 0) }

// keyMove moves the cursor for the list keys (up, down, page up/down, home, end)
// and reports whether k was one of them.
func (l *list) keyMove(k tea.KeyPressMsg, keys keyMap, n int) bool {
	switch {
	case key.Matches(k, keys.Up):
		l.moveBy(-1, n)
	case key.Matches(k, keys.Down):
		l.moveBy(1, n)
	case key.Matches(k, keys.PageUp):
		l.moveBy(-l.page(), n)
	case key.Matches(k, keys.PageDown):
		l.moveBy(l.page(), n)
	case key.Matches(k, keys.Home):
		l.home()
	case key.Matches(k, keys.End):
		l.end(n)
	default:
		return false
	}
	return true
}

// window settles which of n rows show in height lines and returns them as
// [from, to): the cursor stays in view, and the screen stays full (no blank lines
// under the last row while rows above it are hidden), whatever changed since the
// last frame (the rows, the height, the cursor).
func (l *list) window(n, height int) (from, to int) {
	height = max(height, 0)
	l.height = height
	l.clamp(n)
	l.offset = min(l.offset, max(n-height, 0))
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if height > 0 && l.cursor >= l.offset+height {
		l.offset = l.cursor - height + 1
	}
	l.offset = max(l.offset, 0)
	return l.offset, min(l.offset+height, n)
}

// draw returns the rows on screen, each drawn by row (called only for them, with
// whether it is the selected one).
func (l *list) draw(n, height int, row func(i int, selected bool) string) []string {
	from, to := l.window(n, height)
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, row(i, i == l.cursor))
	}
	return out
}
