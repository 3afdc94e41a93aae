package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/themes"
)

// Issue 19, item 8: rejecting a sampling request (ctrl+x) shows the call's outcome
// as the user's rejection, in full, in both eras (sampling/createMessage in 2025,
// an input_required round trip in 2026-07-28), not "(no content)" and a cut reason.
func TestSamplingRejectedSaysSo(t *testing.T) {
	for _, protocol := range []string{"", "2025-11-25"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			h := hostWith(t, protocol, Options{Sampling: true})
			h.selectTool("sample")
			h.press("enter", "enter")
			h.until("the dialog", func(m *model) bool { return samplingOf(m) != nil })
			h.press("ctrl+x")
			h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && samplingOf(m) == nil })
			scr := h.screen()
			if strings.Contains(scr, "(no content)") {
				t.Errorf("the rejected call shows no content:\n%s", scr)
			}
			if !strings.Contains(scr, "rejected the sampling request") {
				t.Errorf("the screen does not say the user rejected the sampling request:\n%s", scr)
			}
			// The notice says what the server got: an error to its request in 2025,
			// nothing (no retry) in 2026-07-28.
			told := "main was told so"
			if protocol == "" {
				told = "main's request is not retried"
			}
			if !strings.Contains(scr, told) {
				t.Errorf("the notice does not say %q:\n%s", told, scr)
			}
			if protocol != "" {
				// The server was answered with the spec's code for it, -1 (it got 0).
				h.press("3")
				h.until("the answer in Traffic", func(m *model) bool { return strings.Contains(h.screen(), "error -1 for #") })
			}
		})
	}
}

// Smaller (the same item): what the SDK said about a result it could not decode,
// and a result's problems, are wrapped, not cut at the pane's edge.
func TestResultWarningsAreWrapped(t *testing.T) {
	end := "and this is the end of the reason"
	o := &outcome{tool: client.Tool{Name: "x"}, result: &client.CallResult{
		SDKError: "multi round-trip: fulfilling input request \"reply\": something long went wrong " + end,
		Problems: []string{"content[0] is not an object, so the block is shown as it came " + end},
	}}
	lines := resultLines(newStyles(themes.Dark), o, 60)
	got := ansi.Strip(strings.Join(lines, "\n"))
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 60 {
			t.Errorf("a line of %d columns in a pane of 60 is cut:\n%s", w, got)
		}
	}
	if n := strings.Count(strings.ReplaceAll(got, "\n", " "), end); n != 2 {
		t.Errorf("%d of the 2 warnings are whole:\n%s", n, got)
	}
}
