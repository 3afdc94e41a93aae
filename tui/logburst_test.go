package tui

import (
	"fmt"
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

// A burst that comes while the screen takes no messages (here: the restart's status
// waits for it, as it would behind an $EDITOR) reaches Logs whole once the screen is
// back: every line, the last one too, and no drop note, as long as it fits the
// pump's bound. The lines came through a bounded subscription once, which dropped
// every log past its 1,024 events whenever its reader waited on the screen; in the
// binary that reader fell behind a fast burst without any block, and about one line
// in sixteen was lost, the last ("log burst done") with them.
func TestLogBurstWhileTheScreenWaitsArrivesWhole(t *testing.T) {
	const logs = 5000
	t.Setenv("FAKEMCP_LOGS", fmt.Sprint(logs))
	h := newHarness(t, target.Target{Argv: testutil.FakeServer(t, "log-burst")}, 120, 40)
	h.until("the first burst", func(m *model) bool { return m.logs.len() >= logs })
	h.block()
	h.press("ctrl+r")
	if questionOf(h.m) != nil {
		h.press("y")
	}
	testutil.Eventually(t, "the restarted server's burst in the pump while the screen waits", func() (bool, string) {
		h.m.pump.mu.Lock()
		defer h.m.pump.mu.Unlock()
		return len(h.m.pump.logs) >= logs, fmt.Sprintf("%d lines wait, %d counted as dropped", len(h.m.pump.logs), h.m.pump.lostLog)
	})
	h.resume()
	h.until("the second burst", func(m *model) bool { return m.logs.len() >= 2*logs })
	if n := h.m.logs.len(); n != 2*logs {
		t.Errorf("the Logs view holds %d lines, want both bursts, %d", n, 2*logs)
	}
	for i := 0; i < h.m.logs.total(); i++ {
		if strings.Contains(h.m.logs.raw(i), "dropped") {
			t.Fatalf("line %d: %s", i, h.m.logs.raw(i))
		}
	}
	h.press("4")
	h.contains(`[burst] "log burst done"`)
}
