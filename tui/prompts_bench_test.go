package tui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// openSummarize opens the bundled host's summarize prompt with its style field
// focused.
func openSummarize(b *testing.B) *harness {
	h := newHarness(b, hostTarget(b), 120, 40)
	h.until("the tools", func(m *model) bool { return len(m.list.tools) > 0 })
	h.press("9")
	h.until("the prompts", func(m *model) bool { e, ok := m.prompts.selected(); return ok && e.p.Name != "" })
	h.press("/")
	h.typeText("summarize")
	h.press("enter", "enter")
	h.typeText("some text")
	h.press("tab")
	h.until("the style values", func(m *model) bool { return len(m.prompts.open.form.fields[1].values) == 3 })
	return h
}

// BenchmarkPromptKeystroke: one keystroke in an open prompt's form (its completion
// cycle started: the pick list cleared and a debounce tick scheduled) and the frame
// drawn after it. No network is on this path; compare with a 16 ms frame.
func BenchmarkPromptKeystroke(b *testing.B) {
	h := openSummarize(b)
	m := h.m
	keys := []tea.KeyPressMsg{{Code: 'b', Text: "b"}, keyMsg("backspace")}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Update(keys[i%2]) // the returned tick is dropped: no completion is asked
		_ = m.render()
	}
}

// BenchmarkCompletionRoundTrip: from a keystroke to the values for it on screen,
// against the bundled host over stdio: the debounce pause (completeDebounce) plus
// one completion/complete. Reported as the round trip less the debounce.
func BenchmarkCompletionRoundTrip(b *testing.B) {
	h := openSummarize(b)
	f := h.m.prompts.open.form
	texts := []string{"b", "d"}
	var total time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.press("ctrl+u")
		start := time.Now()
		h.typeText(texts[i%2])
		want := map[string]string{"b": "brief", "d": "detailed"}[texts[i%2]]
		h.until("the values", func(*model) bool {
			v := f.fields[1].values
			return len(v) > 0 && v[0] == want
		})
		total += time.Since(start)
	}
	b.ReportMetric(float64((total/time.Duration(b.N))-completeDebounce)/1e6, "ms-after-debounce/op")
}
