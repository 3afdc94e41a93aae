package tui

import (
	"fmt"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// --keep bounds what waits for the screen too (issue 23, target 3): the pump's
// pending frames and lines are part of what Traffic and Logs hold, so while the screen
// is blocked they stay within their share of Keep, not a fixed 64 MiB whatever
// --keep says. Counted in bytes, never in time.
func TestBlockedScreenWaitsWithinKeep(t *testing.T) {
	const keep = 8 << 20
	h := newHarnessWith(t, Options{Target: client.Target{Argv: testutil.FakeServer(t, "flood")}, Name: "flood", Theme: "dark", Keep: keep}, 120, 40)
	h.until("the tool list", func(m *model) bool { return len(m.list.tools) > 0 })
	h.block()
	testutil.Eventually(t, "the flood to pass the pump's share of --keep while the screen is blocked", func() (bool, string) {
		h.m.pump.mu.Lock()
		defer h.m.pump.mu.Unlock()
		if h.m.pump.bytes > keep {
			t.Fatalf("%d bytes wait in the pump with --keep %d", h.m.pump.bytes, keep)
		}
		return h.m.pump.lostLog > 0, fmt.Sprintf("%d bytes waiting, %d lines counted", h.m.pump.bytes, h.m.pump.lostLog)
	})
	h.resume()
}

// The shares of --keep add up to 3/4 of it: Traffic, Logs, Stderr and the pump
// together count at most that as theirs (the rest is what records cost beyond their
// count and the collector's room, under the runtime's limit).
func TestKeepSharesAddUpToKeep(t *testing.T) {
	for _, keep := range []int64{1 << 10, 8 << 20, 64 << 20, 1<<30 + 7} {
		s := splitKeep(keep)
		if sum := s.traffic + s.logs + s.stderr + s.pending; sum > keep/4*3 || sum < keep/4*3-64 {
			t.Errorf("--keep %d: the shares %+v add up to %d", keep, s, sum)
		}
	}
}
