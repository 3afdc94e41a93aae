package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestLogLevelPickerKeepsTheKeys: while the Logs tab's level picker is open (l), the
// keys are the picker's until enter sets a level or esc keeps it, as its line says
// ("←/→ · enter sets · esc"). The picker was not declared as taking the keys, so the
// keys that mean something everywhere acted behind it: 2 showed Result with the
// picker left open under it, and q ended the session.
func TestLogLevelPickerKeepsTheKeys(t *testing.T) {
	h := ready(t, 120, 40)
	h.press("4", "l")
	h.contains("set the log level")
	h.press("2")
	if h.m.tab != tabLogs || !strings.Contains(h.screen(), "set the log level") {
		t.Errorf("2 with the level picker open showed %s:\n%s", h.m.tab, h.screen())
	}
	if cmd := h.m.onKey(keyMsg("q")); cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Errorf("q with the level picker open quits")
		}
	}
	if l := lastLine(h.screen()); !strings.Contains(l, "enter set this level") {
		t.Errorf("the hint is not the picker's: %q", l)
	}
	h.press("right", "esc")
	if strings.Contains(h.screen(), "set the log level") {
		t.Errorf("esc left the picker open:\n%s", h.screen())
	}
	h.press("2")
	if h.m.tab != tabResult {
		t.Errorf("2 after the picker closed showed %s", h.m.tab)
	}
}

// TestTrafficSearchDoesNotFollowToOtherViews: whether keys are typed is asked of the
// view shown (its registry entry's typing), not of a field named by hand. Traffic's
// search field was named in typing() whatever the view: left open while a command
// (ctrl+p, which works while typing) showed another view, it kept that view's keys
// from acting: 2 did nothing on Prompts, q did not quit.
func TestTrafficSearchDoesNotFollowToOtherViews(t *testing.T) {
	h := ready(t, 120, 40)
	h.press("3", "/")
	h.typeText("tools")
	if !h.m.typing() {
		t.Fatalf("setup: Traffic's search is not typed:\n%s", h.screen())
	}
	h.press("ctrl+p")
	h.typeText("prompts")
	h.press("enter")
	if h.m.tab != tabPrompts {
		t.Fatalf("setup: :prompts showed %s", h.m.tab)
	}
	h.press("2")
	if h.m.tab != tabResult {
		t.Errorf("2 on Prompts, with Traffic's search left open, showed %s:\n%s", h.m.tab, h.screen())
	}
	h.press("3")
	if h.m.tab != tabTraffic || !h.m.typing() {
		t.Errorf("back on Traffic, its search is no longer typed (tab %s)", h.m.tab)
	}
}

// TestTabLeavesTheToolDetail: with the tool's raw detail shown instead of its form
// (v), tab switches panes as the help says. Tab was handed to the hidden form
// whenever the tool had one, so it moved the focus between fields nobody saw and
// the keyboard stayed on the detail; and the view said it was typed into, so q and
// the digits did nothing there.
func TestTabLeavesTheToolDetail(t *testing.T) {
	h := ready(t, 120, 40)
	h.until("the selected tool's form", func(m *model) bool { return m.form != nil })
	h.press("v", "tab")
	if h.m.focus != paneRight || !h.m.toolRaw {
		t.Fatalf("setup: focus %v, raw %v", h.m.focus, h.m.toolRaw)
	}
	if h.m.typing() {
		t.Errorf("the tool's raw detail, which has no field, is said to be typed into:\n%s", h.screen())
	}
	h.press("tab")
	if h.m.focus != paneList {
		t.Errorf("tab on the tool's raw detail kept the keyboard there:\n%s", h.screen())
	}
	h.press("v", "tab")
	if h.m.focus != paneRight || h.m.toolRaw {
		t.Fatalf("setup: focus %v, raw %v", h.m.focus, h.m.toolRaw)
	}
	if h.m.form.Focused() == "" {
		t.Skip("the first tool's form has no field to move to")
	}
	before := h.m.form.Focused()
	h.press("tab")
	if h.m.focus != paneRight {
		t.Errorf("tab in the form left it (field %q)", before)
	}
}
