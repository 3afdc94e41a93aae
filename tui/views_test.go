package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/target"
)

// TestEveryViewIsWholeInEveryState walks the registry (views.go), which is all a new
// view registers: in every server state (connecting, failed, ready) each view is
// reached by ]/[ in the registry's order and by its key, is drawn within a pane of a usual size,
// is named on the bar while shown, has a key table, and every other view is on the
// bar exactly when it says it is visible. A view registered without one of these
// (a draw that overflows or panics, a key that opens something else, a bar that
// disagrees with visible) fails here.
func TestEveryViewIsWholeInEveryState(t *testing.T) {
	states := []struct {
		name     string
		scenario string
		ready    func(*model) bool
	}{
		// mute reads and never answers: the handshake waits.
		{"connecting", "mute", func(m *model) bool { return m.srv.state() == stateConnecting }},
		{"failed", "exit-at-once", func(m *model) bool { return m.srv.state() == stateFailed }},
		// skills declares tools, resources, prompts and skills: their views are on the bar.
		{"ready", "skills", func(m *model) bool {
			return m.srv.state() == stateReady && m.hasSkills() && m.hasPrompts() && m.hasResources()
		}},
	}
	for _, st := range states {
		t.Run(st.name, func(t *testing.T) {
			h := newHarness(t, target.Target{Argv: testutil.FakeServer(t, st.scenario)}, 220, 30)
			h.until("the "+st.name+" state", st.ready)

			// ] goes through every view in the registry's order and comes back; [ the other way.
			for i := range tabCount + 1 {
				want := tab(int(i) % int(tabCount))
				if h.m.tab != want {
					t.Fatalf("after %d × ] the view is %s, want %s", i, h.m.tab, want)
				}
				checkView(t, h, want)
				h.press("]")
			}
			for i := range tabCount + 1 {
				want := (h.m.tab + tabCount - 1) % tabCount
				h.press("[")
				if h.m.tab != want {
					t.Fatalf("after %d × [ the view is %s, want %s", i+1, h.m.tab, want)
				}
			}

			// Each view's key opens it, from any other view.
			for tb := range tabCount {
				v := views[tb]
				if v.key == nil {
					continue
				}
				h.press("]") // away from the view the key opens
				h.press(v.key.Keys()[0])
				if h.m.tab != tb {
					t.Fatalf("%s's key %q opened %s", v.name, v.key.Keys()[0], h.m.tab)
				}
				checkView(t, h, tb)
			}
		})
	}
}

// checkView checks the shown view tb: its label on the bar, its body within its
// size, its key table, and every other view on the bar exactly when visible.
func checkView(t *testing.T, h *harness, tb tab) {
	t.Helper()
	if tb == tabTool {
		h.press("tab", "shift+tab") // the Tool view: the list has the keys, draw it anyway
	}
	screen := h.screen()
	bar := ""
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "1 Tool") {
			bar = l
			break
		}
	}
	if bar == "" {
		t.Fatalf("%s: no tab bar on the screen:\n%s", tb, screen)
	}
	for other := range tabCount {
		label := views[other].name
		if k := views[other].key; k != nil {
			label = k.Help().Key + " " + label
		}
		if on := strings.Contains(bar, label); on != h.m.onBar(other) {
			t.Errorf("%s shown: %s on the bar %v, its registration says %v:\n%s", tb, views[other].name, on, h.m.onBar(other), bar)
		}
	}
	if !h.m.onBar(tb) {
		t.Errorf("%s is shown but not on the bar", tb)
	}
	// A pane of a usual size (the screen clamps what overflows, cutting the last
	// lines a view meant to show).
	if body := views[tb].draw(h.m, 100, 20); strings.Count(body, "\n")+1 > 20 {
		t.Errorf("%s drawn in 100×20 is %d lines:\n%s", tb, strings.Count(body, "\n")+1, body)
	}
	kt := views[tb].keys(h.m)
	if kt.name == "" || len(kt.groups) == 0 {
		t.Errorf("%s's key table has no name or no keys: %+v", tb, kt)
	}
}

// A narrow bar names the views from the left and shortens the last digits: first to
// the start of their name, then to the digit alone, with the views without a digit
// set apart ("8 9 · Skills", never "8 9 Skills").
func TestNarrowTabBarShortensFromTheRight(t *testing.T) {
	h := newHarness(t, target.Target{Argv: testutil.FakeServer(t, "skills")}, 220, 30)
	h.until("the skills listed", func(m *model) bool {
		return m.srv.state() == stateReady && m.hasSkills() && m.hasPrompts() && m.hasResources()
	})
	h.press("]", "]", "]") // Logs: the view shown keeps its name
	for _, c := range []struct {
		width int
		want  string
	}{
		{120, " 1 Tool  2 Result  3 Traffic  4 Logs  5 Stderr  6 History  8 Resources  9 Prompts  Skills "},
		{75, "1 Tool 2 Result 3 Traffic 4 Logs 5 Stderr 6 History 8 Res… 9 Pro… Skills"},
		{40, "1 Tool 2 3 4 Logs 5 6 8 9 · Skills"},
	} {
		if got := ansi.Strip(h.m.tabBar(c.width)); got != c.want {
			t.Errorf("the bar in %d columns:\n got %q\nwant %q", c.width, got, c.want)
		}
	}
}
