package tui

import (
	"strings"
	"testing"
)

// A refetch's "refetching tools…" gives way once the tools have come: it had stayed on
// the status bar, saying the work was under way long after it was done.
func TestRefetchNoticeSettlesWhenTheToolsCome(t *testing.T) {
	h := newHarness(t, hostTarget(t), 120, 40)
	h.until("the tools", func(m *model) bool { _, ok := m.toolByName(m.srv.name, "echo"); return ok })
	h.press("r")
	if h.m.notice != refetchingTools {
		t.Fatalf("r put up %q, want %q", h.m.notice, refetchingTools)
	}
	h.until("the refetch to settle", func(m *model) bool { return m.notice == "tools refetched" })
	if strings.Contains(h.screen(), "refetching") {
		t.Errorf("the screen still says refetching:\n%s", h.screen())
	}
}
