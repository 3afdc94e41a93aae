package tui

import (
	"strings"
	"testing"
)

// helpScreens opens the help and scrolls it to its end, returning everything it
// showed (the help scrolls on small screens).
func (h *harness) helpScreens() string {
	h.t.Helper()
	if h.m.typing() {
		h.press("f1") // ? is text in a field
	} else {
		h.press("?")
	}
	if helpOf(h.m) == nil {
		h.t.Fatalf("? did not open the help; screen:\n%s", h.screen())
	}
	seen := h.screen()
	for range 30 {
		h.press("j")
		seen += h.screen()
	}
	h.press("esc")
	if helpOf(h.m) != nil {
		h.t.Fatal("esc did not close the help")
	}
	return seen
}

// ? shows the keys of whatever has the focus first, then the global ones; the
// form's own keys (array items, null, moving items) are in it when the form has the
// keyboard, and the status bar shows the focused view's main keys.
func TestHelpShowsTheFocusedViewFirst(t *testing.T) {
	h := ready(t, 120, 40)
	first := func(what, title string, want ...string) {
		t.Helper()
		seen := h.helpScreens()
		lines := strings.Split(seen, "\n")
		// The section title is the line after "Keys".
		if len(lines) < 3 || !strings.Contains(lines[2], title) {
			t.Errorf("%s: the help does not start with %q:\n%s", what, title, strings.Join(lines[:min(len(lines), 6)], "\n"))
		}
		at, global := strings.Index(seen, title), strings.Index(seen, "Everywhere")
		if at < 0 || global < 0 || at > global {
			t.Errorf("%s: %q is not before the global keys", what, title)
		}
		for _, w := range want {
			if !strings.Contains(seen, w) {
				t.Errorf("%s: the help lacks %q", what, w)
			}
		}
	}
	first("the tool list", "Tool list", "open the tool", "refetch tools", "next pane", "quit")
	if !strings.Contains(lastLine(h.screen()), "/ filter") {
		t.Errorf("the status bar does not hint at the list's keys: %q", lastLine(h.screen()))
	}

	h.selectTool("rich_form")
	h.press("enter") // the form has the keyboard
	first("the form", "Arguments form",
		"call the tool", "ctrl+j", "ctrl+e",
		"ctrl+n", "add item", "ctrl+d", "remove item", "ctrl+t", "toggle null",
		"alt+↑", "move item up", "alt+↓", "move item down", "ctrl+u", "delete to the start",
		"back to the tool list")
	if !strings.Contains(lastLine(h.screen()), "enter call the tool") {
		t.Errorf("the status bar does not hint at the form's keys: %q", lastLine(h.screen()))
	}
	h.press("ctrl+j") // the raw JSON text area, with keys of its own
	first("the raw JSON editor", "Arguments (raw JSON)", "form ↔ raw JSON", "next line", "word forward", "delete before cursor")
	h.press("ctrl+j")

	h.press("esc", "3") // back to the list, then Traffic
	first("Traffic", "Traffic", "open/close the frame", "direction filter")
	h.press("2")
	first("Result", "Result", "save result to a file", "copy as mcpscope call")
	h.press("6")
	first("History", "History", "re-run", "show its result")
	h.press("4")
	first("Logs", "Logs", "page down")

	// A question takes every key: the status bar says which, and offers no help.
	h.selectTool("pretend_delete")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"path":"/tmp/x"}`))
	h.press("enter")
	h.contains("is destructive")
	if l := lastLine(h.screen()); !strings.Contains(l, "y yes · any key no") || strings.Contains(l, "help") {
		t.Errorf("while a question waits the status bar says %q", l)
	}
	h.press("n")
	h.contains("call not sent")
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// The Logs tab's hint and help follow what has its keys. While the logger filter is
// typed, f is text: the hint offered "f raise min level" there, and f typed an f.
// While the level picker is open, ←/→ and enter pick a level: the hint did not say
// so. And / (filter by logger) and esc (clear the filters), which the tab always
// handled, were in no help at all.
func TestLogsHintFollowsItsMode(t *testing.T) {
	h := ready(t, 120, 40)
	h.press("4")
	if l := lastLine(h.screen()); !strings.Contains(l, "f raise min level") {
		t.Errorf("the Logs hint lacks its level key: %q", l)
	}
	if seen := h.helpScreens(); !strings.Contains(seen, "filter by logger") || !strings.Contains(seen, "clear the filters") {
		t.Errorf("the Logs help lacks / and esc, which the tab handles:\n%s", seen)
	}
	h.press("/")
	h.contains("logger: ")
	if l := lastLine(h.screen()); strings.Contains(l, "raise min level") || !strings.Contains(l, "enter keep the logger filter") {
		t.Errorf("while the logger is typed the hint says %q", l)
	}
	h.press("esc", "l")
	h.contains("set the log level")
	if l := lastLine(h.screen()); strings.Contains(l, "raise min level") || !strings.Contains(l, "← previous level") || !strings.Contains(l, "enter set this level") {
		t.Errorf("while the level is picked the hint says %q", l)
	}
	h.press("esc")
}

// The tool list lists shift+↑/↓ (scroll the tool detail) whatever tab is shown; off
// the Tool view the key did nothing and said nothing. Now it says why.
func TestToolDetailKeysSayWhyOffTheToolView(t *testing.T) {
	h := ready(t, 120, 40)
	h.press("3", "shift+tab") // Traffic shown, the list has the keys
	if h.m.focus != paneList || h.m.tab != tabTraffic {
		t.Fatalf("setup: focus %v tab %v", h.m.focus, h.m.tab)
	}
	h.press("shift+down")
	h.contains("the tool detail is not shown")
	if seen := h.helpScreens(); !strings.Contains(seen, "not shown") {
		t.Errorf("the help does not say why shift+↑/↓ does nothing here:\n%s", seen)
	}
}
