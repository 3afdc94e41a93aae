package tui

// Screens a user must read whole: what was cut at the pane's edge (Logs, long words,
// a failed start's stderr, the status bar at 80 columns, the level picker) and a key
// the status bar offered while it could do nothing.

import (
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/target"
)

// A log line longer than the pane (a JSON payload, as the host's log tool sends)
// wraps, as Stderr's lines do: cut with … there was no way to read its end, since
// Logs has no line to open. Both with no filter and with a level filter on (the
// filtered rows are drawn by another scroller).
func TestLongLogLinesWrap(t *testing.T) {
	h := ready(t, 100, 40)
	h.call("log", `{}`)
	h.until("the log lines", func(m *model) bool { return m.logs.len() >= 8 })
	h.press("4")
	// The end of the last message: "…at level emergency from the log tool"}".
	const end = `tool"}`
	if s := h.screen(); strings.Count(s, end) < 8 {
		t.Errorf("the ends of the 8 log lines are not all on screen (%d):\n%s", strings.Count(s, end), s)
	}
	h.press("f") // level ≥ info: the filter's own scroller
	h.until("the filtered rows", func(m *model) bool { return len(m.logFilter.rows) == 7 })
	if s := h.screen(); strings.Count(s, end) < 7 || !strings.Contains(s, "7 of 8 lines") {
		t.Errorf("with the level filter on, the ends of the 7 log lines are not all on screen (%d):\n%s", strings.Count(s, end), s)
	}
}

// A word longer than the line (a URL in a tool's description, the path in the
// Changes view's "pin accept" command, a path in an error) is broken across lines,
// not cut with …: wrapText drew it whole on one line and the pane cut its end, the
// part a user needs to copy it.
func TestLongWordsWrapInText(t *testing.T) {
	url := "https://example.com/docs/" + strings.Repeat("very-long-segment/", 8) + "the-end-of-the-url"
	tools := t.TempDir() + "/tools.json"
	writeMailTools(t, tools, strings.Replace(mailTools, "Sends an email.", "Sends an email. See "+url+" for the rules.", 1))
	h := newHarness(t, hostTarget(t, "--tools", tools), 100, 40)
	h.until("the tool list", func(m *model) bool { return len(m.list.tools) == 2 })
	h.selectTool("send_email")
	s := h.screen()
	if !strings.Contains(s, "the-end-of-the-url") || !strings.Contains(s, "rules.") {
		t.Errorf("the end of the description's URL is not on screen:\n%s", s)
	}
	joined := strings.ReplaceAll(strings.Join(wrapText(url, 30), ""), " ", "")
	if joined != url {
		t.Errorf("the URL broken at 30 cells does not read back whole: %q", joined)
	}
	for _, l := range wrapText("  see "+url, 30) {
		if w := len(l); w > 30 {
			t.Errorf("a line is %d wide, over 30: %q", w, l)
		}
	}
}

// A server that fails at its start with a long stderr line (node's "Cannot find
// module '<path>'") shows that line whole in the failure view, wrapped: cut at the
// pane's edge, the path that says what is missing was lost. The count is said in
// words that agree with it.
func TestFailureViewWrapsStderr(t *testing.T) {
	path := "/srv/" + strings.Repeat("a-rather-long-directory/", 5) + "entry/point/index.js"
	script := `echo "Error: Cannot find module '` + path + `'" >&2; exit 1`
	h := newHarness(t, target.Target{Argv: []string{"sh", "-c", script}}, 100, 30)
	h.until("the failure with its stderr", func(m *model) bool {
		return m.srv.state() == stateFailed && m.stderr.len() >= 1
	})
	h.contains("stderr (1 line)", "point/index.js'", "q quits")
}

// esc in the tool list clears the filter; with none set the status bar does not
// offer it, and pressing it says why it did nothing.
func TestToolListEscWithoutAFilterSaysWhy(t *testing.T) {
	h := newHarness(t, target.Target{Argv: []string{"sh", "-c", "exit 1"}}, 120, 30)
	h.until("the failure", func(m *model) bool { return m.srv.state() == stateFailed })
	if s := h.screen(); strings.Contains(s, "esc clear filter") {
		t.Errorf("the status bar offers esc with no filter to clear:\n%s", s)
	}
	h.press("esc")
	h.contains("no filter")
}

// At 80 columns the status bar keeps what matters when it cannot hold everything:
// the server's state and "● REC" stay, the transport, the protocol and the last
// call's time give way. Cut at the end, the state and the recording were what went.
func TestStatusBarKeepsStateAndRecordingAt80(t *testing.T) {
	calls := 0
	toggle := func() (string, error) { // the first R starts, the second stops
		calls++
		if calls == 1 {
			return "/rec/session.jsonl", nil
		}
		return "", nil
	}
	h := newHarnessWith(t, Options{Target: hostTarget(t), Name: "bundled host", Theme: "dark", ToggleRecording: toggle}, 80, 24)
	h.until("the tools", func(m *model) bool { return len(m.list.tools) > 0 && m.srv.state() == stateReady })
	h.call("echo", `{"text":"hi"}`)
	h.press("R")
	h.until("the recording", func(m *model) bool { return m.opts.Recording != "" })
	lines := strings.Split(h.screen(), "\n")
	bar := lines[len(lines)-1]
	for _, want := range []string{"mcpscope-host", "connected", "● REC", "session.jsonl", "? help"} {
		if !strings.Contains(bar, want) {
			t.Errorf("the status bar lacks %q: %q", want, bar)
		}
	}
}

// The log level picker (l in Logs) is read whole on a 120-column screen: its last
// levels and its keys were cut off the pane's edge, so "emergency" could be chosen
// without being seen.
func TestLogLevelPickerIsWhole(t *testing.T) {
	h := ready(t, 120, 40)
	h.press("4", "l")
	for range 8 {
		h.press("right")
	}
	h.contains("emergency", "enter sets · esc")
	h.press("enter")
	h.until("the level set", func(m *model) bool { return strings.Contains(m.notice, "emergency") })
}
