package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// While the screen takes no messages (an $EDITOR runs) a server flooding logs fills
// bounded queues, not memory (issue 22: 0.9 → 11 MiB in 20 s, no ceiling): the logs
// wait in the pump, within its bound (made small here so that the flood passes it
// quickly; the binary's is its share of --keep, pendingMax), and past it are counted; the workbench's
// reader waits on the screen with a status in hand (the restart that began as the
// screen blocked), and what comes behind it stays within the subscription's bound.
// Once the screen takes messages again, Logs says how many lines were dropped, and
// the screen goes on: the restarted server's tools, the flood's fresh lines. Counted
// in bytes and lines, never in time.
func TestBlockedScreenStaysBoundedAndSaysWhatItDropped(t *testing.T) {
	h := newHarness(t, client.Target{Argv: testutil.FakeServer(t, "flood")}, 120, 40)
	h.until("the tool list", func(m *model) bool { return len(m.list.tools) > 0 })
	const bound = 32 << 10
	h.m.pump.mu.Lock()
	h.m.pump.max = bound
	h.m.pump.mu.Unlock()
	// Blocked first: the restart's statuses then come while nothing is taken, and
	// the reader waits on the screen with the first one.
	h.block()
	h.press("ctrl+r")
	if questionOf(h.m) != nil {
		h.press("y")
	}
	testutil.Eventually(t, "the flood to pass the pump's bound while the screen is blocked", func() (bool, string) {
		h.m.pump.mu.Lock()
		defer h.m.pump.mu.Unlock()
		if h.m.pump.bytes > bound {
			t.Fatalf("%d bytes wait in the pump; its bound is %d", h.m.pump.bytes, bound)
		}
		return h.m.pump.lostLog > 100, fmt.Sprintf("%d bytes waiting, %d lines counted", h.m.pump.bytes, h.m.pump.lostLog)
	})
	if n, b := h.m.wbSub.Queued(); n > wbQueue+2 {
		t.Errorf("%d events (%d bytes) wait for a blocked screen; the bound is %d", n, b, wbQueue)
	}
	h.resume()
	h.press("4")
	// The note is a line of Logs, where the missing lines would be; the flood goes
	// on after it and scrolls it off the tail, so it is looked for among the lines
	// the view holds (what scrolling back shows), not on the last screen.
	h.until("the drop note in Logs", func(m *model) bool {
		for i := m.logs.total() - 1; i >= 0; i-- {
			if strings.Contains(m.logs.raw(i), "log lines were dropped while the screen was busy") {
				return true
			}
		}
		return false
	})
	h.until("the restarted server's tools", func(m *model) bool { return m.srv.state() == stateReady && len(m.list.tools) > 0 })
	seen := h.m.logs.len()
	h.until("fresh lines after the note", func(m *model) bool { return m.logs.len() > seen+10 })
	h.press("1")
	h.contains("echo")
}
