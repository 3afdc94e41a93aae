package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/history"
	"github.com/mcpscope/mcpscope/workbench"
)

// Issue 19, item 2: ctrl+r in the Servers view restarts the highlighted row's server,
// not the server of the tool selected in the list, and the question names it.
func TestServersViewRestartsTheHighlightedServer(t *testing.T) {
	t.Parallel()
	target := hostTarget(t)
	h := newHarnessWith(t, Options{Theme: "dark", Servers: []workbench.Spec{
		{Name: "alpha", Target: target}, {Name: "beta", Target: target},
	}}, 140, 40)
	h.until("both servers' tools", func(m *model) bool {
		return len(m.servers) == 2 && len(m.servers[0].tools()) > 0 && len(m.servers[1].tools()) > 0 &&
			m.servers[0].state() == stateReady && m.servers[1].state() == stateReady
	})
	h.selectTool("alpha/echo") // the list's tool is alpha's
	alpha, beta := h.m.server("alpha"), h.m.server("beta")
	genA, genB := alpha.gen(), beta.gen()
	h.press("7", "down") // the Servers view, beta highlighted
	h.until("beta highlighted", func(m *model) bool { return strings.Contains(screenLine(h, "› beta"), "connected") })
	h.press("ctrl+r")
	h.until("the question", func(m *model) bool { return questionOf(m) != nil })
	if s := h.screen(); !strings.Contains(s, "Restart beta?") {
		t.Fatalf("the restart question does not name the highlighted server beta:\n%s", s)
	}
	h.press("y")
	h.until("beta restarted and connected", func(m *model) bool { return beta.gen() > genB && beta.state() == stateReady })
	if alpha.gen() != genA {
		t.Errorf("alpha (the list's tool's server) was restarted too: gen %d → %d", genA, alpha.gen())
	}
	// The other questions name their server and tool too: cancelling a long call and
	// quitting while it runs.
	h.selectTool("beta/slow")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"steps":2000,"delayMs":50}`))
	h.press("enter")
	h.until("progress", func(m *model) bool { return m.current != nil && m.current.progress != nil })
	h.m.current.started = h.m.current.started.Add(-time.Minute) // as if it ran a minute
	h.press("x")
	h.contains("Cancel beta/slow? It has run for")
	h.press("n", "q")
	h.contains("1 call still running (beta/slow). Quit anyway")
	h.press("n", "ctrl+r")
	h.contains("Restart beta? Its running call is interrupted. y/n")
	h.press("n", "x", "y")
	h.until("the cancel", func(m *model) bool { return !m.current.running })
}

// Issue 19, item 7: 1 opens the Tool view without putting the keyboard in the form,
// so the digits listed under "everywhere" still open views; enter (or tab) goes into
// the form, as the view's hint says.
func TestToolViewKeyLeavesTheKeyboardOutOfTheForm(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("echo")
	h.press("3", "1")
	h.until("the Tool view", func(m *model) bool { return m.tab == tabTool })
	h.contains("tab or enter to fill in the arguments", "? help")
	h.press("3")
	if h.m.tab != tabTraffic {
		t.Fatalf("3 after 1 did not open Traffic (it typed into the form?):\n%s", h.screen())
	}
	// ] from a view with the keyboard into the Tool view does the same.
	h.press("[", "[")
	if h.m.tab != tabTool || h.m.typing() {
		t.Fatalf("[ into the Tool view put the keyboard in the form:\n%s", h.screen())
	}
	h.press("1", "enter")
	h.typeText("42")
	if v, _ := h.m.form.Value(); !strings.Contains(string(v), "42") {
		t.Errorf("enter from the Tool view did not put the keyboard in the form: %s\n%s", v, h.screen())
	}
	h.contains("f1 help")
}

// Issue 19, item 9a: the status bar keeps its last character ("f1 help", not
// "f1 hel") at 80 and 60 columns, where the server's line is cut to fit.
func TestStatusBarKeepsItsHelpAtNarrowWidths(t *testing.T) {
	h := ready(t, 80, 24)
	h.selectTool("echo")
	h.press("enter") // the form has the keys: the hint is f1 help, wider than ? help
	for _, w := range []int{80, 60} {
		h.update(tea.WindowSizeMsg{Width: w, Height: 24})
		lines := strings.Split(strings.TrimRight(h.screen(), "\n"), "\n")
		last := strings.TrimRight(lines[len(lines)-1], " ")
		if !strings.HasSuffix(last, "f1 help") {
			t.Errorf("at %d columns the status bar ends %q, want … f1 help:\n%s", w, last, h.screen())
		}
	}
}

// Issue 19, item 9b: Traffic keeps the active search visible when its header is cut
// to the pane's width.
func TestTrafficHeaderKeepsTheSearchWhenCut(t *testing.T) {
	h := ready(t, 80, 24)
	h.press("3", "/")
	h.typeText("tools/list")
	h.press("enter")
	if s := h.screen(); !strings.Contains(s, "tools/list") || !strings.Contains(strings.Split(s, "\n")[3], "tools/list") {
		t.Errorf("the cut Traffic header hides the search:\n%s", s)
	}
}

// Issue 19, item 9d: a cancelled call is "cancelled" in History, in this session and
// in the next (it was stored as a failure, "failed" with "context canceled").
func TestHistoryShowsACancelledCallAsCancelled(t *testing.T) {
	dir := t.TempDir()
	h := histHarness(t, dir, history.Options{})
	h.selectTool("slow")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"steps":2000,"delayMs":50}`))
	h.press("enter")
	h.until("progress", func(m *model) bool { return m.current != nil && m.current.progress != nil })
	h.press("x")
	h.until("the cancel", func(m *model) bool { return !m.current.running })
	h.waitStored(1)
	h.press("6")
	h.contains("cancelled  slow")
	h.close()

	h2 := histHarness(t, dir, history.Options{})
	h2.until("the earlier call", func(m *model) bool { return len(m.hist.past) == 1 })
	h2.press("6")
	h2.contains("◷ cancelled  slow")
	h2.press("right")
	h2.until("its result", func(m *model) bool { return m.tab == tabResult && m.current != nil })
	if s := h2.screen(); !strings.Contains(s, "Cancelled") || strings.Contains(s, "context canceled") {
		t.Errorf("the earlier cancelled call's result:\n%s", s)
	}
}

// Issue 19, item 9c: with several servers the Result names the call's server and tool
// (server/tool, as the list does), while it runs and after.
func TestResultHeaderNamesTheServer(t *testing.T) {
	t.Parallel()
	target := hostTarget(t)
	h := newHarnessWith(t, Options{Theme: "dark", Servers: []workbench.Spec{
		{Name: "alpha", Target: target}, {Name: "beta", Target: target},
	}}, 120, 40)
	h.until("both servers' tools", func(m *model) bool {
		return len(m.servers) == 2 && len(m.servers[0].tools()) > 0 && len(m.servers[1].tools()) > 0
	})
	h.selectTool("beta/echo")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"text":"hi"}`))
	h.press("enter")
	h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running })
	if !strings.Contains(rightPaneText(h), "beta/echo") {
		t.Errorf("the Result does not name beta/echo:\n%s", h.screen())
	}
}

// rightPaneText is the screen's right pane (the tabs), without the tool list.
func rightPaneText(h *harness) string {
	var b strings.Builder
	for _, l := range strings.Split(h.screen(), "\n") {
		if _, right, ok := strings.Cut(l, "││"); ok {
			b.WriteString(right + "\n")
		}
	}
	return b.String()
}

// Issue 19, item 9e: esc in Result goes back where the user came from: the Tool view
// after a call from the form (the keyboard with the list, as 1 leaves it), History
// after a row's result was opened there.
func TestEscInResultGoesBack(t *testing.T) {
	h := ready(t, 120, 40)
	h.call("echo", `{"text":"hi"}`)
	if h.m.tab != tabResult {
		t.Fatalf("the call did not show its result (tab %d)", h.m.tab)
	}
	h.press("esc")
	if h.m.tab != tabTool || h.m.typing() {
		t.Fatalf("esc in Result: tab %s, typing %v\n%s", h.m.tab, h.m.typing(), h.screen())
	}
	h.contains("tab or enter to fill in the arguments")
	h.press("6", "right")
	h.until("the row's result", func(m *model) bool { return m.tab == tabResult })
	h.press("esc")
	if h.m.tab != tabHistory {
		t.Fatalf("esc in a result opened from History went to %s\n%s", h.m.tab, h.screen())
	}
}

// Issue 19, item 9f: :q and :quit quit, asking first while calls run, as q does.
func TestCommandLineQuits(t *testing.T) {
	h := ready(t, 120, 40)
	quits := func(word string) bool {
		h.press(":")
		h.typeText(word)
		_, cmd := h.m.Update(keyMsg("enter"))
		if cmd == nil {
			return false
		}
		_, ok := cmd().(tea.QuitMsg)
		return ok
	}
	for _, w := range []string{"q", "quit"} {
		if !quits(w) {
			t.Errorf(":%s did not quit; notice %q", w, h.m.notice)
		}
	}
	h.selectTool("slow")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"steps":2000,"delayMs":50}`))
	h.press("enter")
	h.until("progress", func(m *model) bool { return m.current != nil && m.current.progress != nil })
	if quits("q") {
		t.Fatal(":q quit at once during a running call")
	}
	h.contains("1 call still running (slow). Quit anyway")
	h.press("n", "x")
	h.until("the cancel", func(m *model) bool { return !m.current.running })
}
