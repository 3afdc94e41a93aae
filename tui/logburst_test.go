package tui

import (
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/target"
)

// A server that says 1,000 log lines at its start (fakemcp log-burst: all of them
// before its initialize answer) must not hold the tool list back behind them (issue
// 23: 0.08 s became 1.08 s, each log its own message and its own full View, and the
// server's "connected" queued behind them). What a user would see is time; what the
// test counts is the messages the program had to take (each is an Update and a View)
// before the tool list was on screen: one per log before, a few batches now. Then
// every line is in the Logs view, level and logger kept for its filters.
func TestLogBurstAtStartDoesNotDelayTheToolList(t *testing.T) {
	const logs = 1000
	h := newHarness(t, target.Target{Argv: testutil.FakeServer(t, "log-burst")}, 120, 40)
	h.until("the tool list", func(m *model) bool { return len(m.list.tools) > 0 })
	if h.updates >= logs/2 {
		t.Errorf("the tool list came after %d messages to the screen: the %d log lines came one message each, before it", h.updates, logs)
	}
	h.until("every log line", func(m *model) bool { return m.logs.len() >= logs })
	h.press("4")
	h.contains(`[burst] "log burst done"`, "f level≥debug")
	h.press("f", "f", "f") // ≥ warning: the burst is info, so no line passes
	h.contains("No line passes the filter")
	if n := h.m.logs.len(); n != logs {
		t.Errorf("the Logs view holds %d lines, want %d", n, logs)
	}
	if s := h.screen(); !strings.Contains(s, "echo") {
		t.Errorf("the tool list is not on screen:\n%s", s)
	}
}
