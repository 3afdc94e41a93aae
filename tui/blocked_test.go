package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// While the screen takes no messages (an $EDITOR runs) a server flooding logs fills
// a bounded queue, not memory (issue 22: 0.9 → 11 MiB in 20 s, no ceiling): the
// workbench's reader waits on the screen with a status in hand (the restart that
// began as the screen blocked), and what comes behind it stays within the
// subscription's bound. Once the screen takes messages again, Logs says how many
// lines were dropped, and the screen goes on: the restarted server's tools, the
// flood's fresh lines. Counted in events, never in time.
func TestBlockedScreenStaysBoundedAndSaysWhatItDropped(t *testing.T) {
	h := newHarness(t, client.Target{Argv: testutil.FakeServer(t, "flood")}, 120, 40)
	h.until("the tool list", func(m *model) bool { return len(m.list.tools) > 0 })
	// Blocked first: the restart's statuses then come while nothing is taken, and
	// the reader waits on the screen with the first one.
	h.block()
	h.press("ctrl+r")
	if questionOf(h.m) != nil {
		h.press("y")
	}
	// The reader waits on the screen with the restart's status in hand once what
	// comes behind it fills the queue; then the flood goes on past it.
	testutil.Eventually(t, "the events behind the blocked reader to fill its queue", func() (bool, string) {
		n, _ := h.m.wbSub.Queued()
		return n >= wbQueue, fmt.Sprintf("%d queued", n)
	})
	from := h.emitted.Load()
	testutil.Eventually(t, "the flood to go on while the screen is blocked", func() (bool, string) {
		n := h.emitted.Load() - from
		return n > 2*wbQueue, fmt.Sprintf("%d frames since the queue filled", n)
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
	h.until("the restarted server's tools", func(m *model) bool { return m.srv.state == stateReady && len(m.list.tools) > 0 })
	seen := h.m.logs.len()
	h.until("fresh lines after the note", func(m *model) bool { return m.logs.len() > seen+10 })
	h.press("1")
	h.contains("echo")
}
