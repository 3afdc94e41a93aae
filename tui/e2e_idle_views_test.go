package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// Issue 19, item 4: a server that went idle (--idle-disconnect) before Resources,
// Prompts or the Servers tab's counts were first shown is reconnected by showing
// them, as a call reconnects it: they list what it offers instead of "No connected
// server offers resources" or counts that never come.
func TestEndToEndIdleServerListsWhenAViewOpens(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	x := newTmux(t, 140, 40, fmt.Sprintf("sh -c '%s --idle-disconnect 1s; echo mcpscope-exited:$?; sleep 30'", bin))
	x.waitFor("echo")
	idle := func() { x.waitFor("idle (the next call reconnects)") }

	idle()
	x.keys("8")
	x.waitUntil("the resources listed", func(s string) bool {
		return strings.Contains(s, "readme") && !strings.Contains(s, "No connected server")
	})

	idle()
	x.keys("9")
	x.waitUntil("the prompts listed", func(s string) bool {
		return strings.Contains(s, "summarize") && !strings.Contains(s, "No connected server")
	})

	idle()
	x.keys("7")
	counted := regexp.MustCompile(`resources \d+  prompts \d+`)
	x.waitUntil("the server's counts", func(s string) bool { return counted.MatchString(s) })

	x.keys("q")
	x.waitFor("mcpscope-exited:0")
}

// Issue 19 item 4, the tool list's side: r (refetch) in the tool list reconnects an
// idle server and lists its tools again, as a call does; it skipped idle servers, and
// "refetching tools…" stayed on a list nobody fetched.
func TestRefetchToolsWakesAnIdleServer(t *testing.T) {
	h := newHarnessWith(t, Options{Target: hostTarget(t), Name: "bundled host", Theme: "dark", IdleDisconnect: 300 * time.Millisecond}, 120, 40)
	h.until("the tools", func(m *model) bool { return len(m.list.tools) > 0 })
	h.until("the server idle", func(m *model) bool { return m.srv.state() == stateIdle })
	gen := h.m.srv.gen()
	lists := countMethod(h.m, "tools/list")
	h.press("r")
	h.until("the server reconnected and listed its tools again", func(m *model) bool {
		return m.srv.gen() > gen && countMethod(m, "tools/list") > lists
	})
	h.until("the refetched list on screen", func(m *model) bool {
		return len(m.list.tools) > 0 && !strings.Contains(m.notice, "refetching")
	})
}

// countMethod counts the requests of a method in Traffic.
func countMethod(m *model, method string) int {
	n := 0
	for i := 0; i < m.traffic.entries.Len(); i++ {
		e := m.traffic.entries.At(i)
		if e.e.Dir == wire.Send && (e.summary == method || strings.HasPrefix(e.summary, method+" ")) {
			n++
		}
	}
	return n
}
