package tui

import (
	"strings"
	"testing"
)

// A log line longer than the pane (a JSON payload, as the host's log tool sends)
// wraps, as Stderr's lines do: cut with … there was no way to read its end, since
// Logs has no line to open. Both with no filter and with a level filter on (the
// filtered rows are drawn by another scroller).
func TestLongLogLinesWrap(t *testing.T) {
	h := ready(t, 100, 40)
	h.call("log", `{}`)
	h.until("the log lines", func(m *model) bool { return m.logs.len() >= 8 })
	h.press("4")
	// The end of the last message: "…at level emergency from the log tool"}".
	const end = `tool"}`
	if s := h.screen(); strings.Count(s, end) < 8 {
		t.Errorf("the ends of the 8 log lines are not all on screen (%d):\n%s", strings.Count(s, end), s)
	}
	h.press("f") // level ≥ info: the filter's own scroller
	h.until("the filtered rows", func(m *model) bool { return len(m.logFilter.rows) == 7 })
	if s := h.screen(); strings.Count(s, end) < 7 || !strings.Contains(s, "7 of 8 lines") {
		t.Errorf("with the level filter on, the ends of the 7 log lines are not all on screen (%d):\n%s", strings.Count(s, end), s)
	}
}
