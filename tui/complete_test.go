package tui

import (
	"strings"
	"testing"
)

// Issue 19, item 9h: completion is picked one way wherever it is offered. On the
// bundled host, which completes a prompt argument (summarize's style) and a template
// variable (the colours template's name), the same keys do the same in both: typing
// offers the values as a pick list under the field, ↓ highlights the first, enter
// puts it in the field (and nothing else: the prompt is not got, the URI not read
// yet), and the next enter does what the view is for. The template form used
// alt+↓/↑ and a list of its own, where ↓ left the field and enter read the URI as
// typed.
func TestCompletionPicksTheSameWayInPromptsAndTemplates(t *testing.T) {
	t.Parallel()
	h := ready(t, 120, 40)
	const hint = "↓/↑ pick · enter takes it · esc hides"

	// The prompt's style.
	h.press("9")
	h.until("the host's prompts", screenHas(h, "summarize"))
	h.press("/")
	h.typeText("summ")
	h.press("enter", "enter")
	h.until("the form", screenHas(h, "Arguments", "enter gets the prompt"))
	h.typeText("hello")
	h.press("tab")
	h.typeText("d")
	h.until("detailed offered", screenHas(h, "  detailed", hint))
	h.press("down", "enter")
	h.until("detailed taken", screenHas(h, "Style (style)  detailed"))
	if o := h.m.prompts.open; o == nil || o.running || o.res != nil {
		t.Fatalf("enter on a picked value got the prompt instead of taking the value")
	}
	h.press("esc")
	h.until("the prompts list", screenHas(h, "enter opens"))

	// The template's name, with the same keys.
	resourcesOpen(t, h)
	pick(h, "colors/{")
	h.press("enter")
	h.until("the template form", screenHas(h, "reads mcpscope://demo/colors/"))
	h.typeText("te")
	h.until("teal offered", screenHas(h, "  teal", hint))
	h.press("down")
	h.until("teal highlighted", screenHas(h, "▸ teal"))
	h.press("enter")
	h.until("teal taken", screenHas(h, "name  teal", "reads mcpscope://demo/colors/teal"))
	if h.m.res.open != nil {
		t.Fatalf("enter on a picked value read %s instead of taking the value", h.m.res.open.uri)
	}
	if s := h.screen(); strings.Contains(s, "  teal\n") || strings.Contains(s, hint) {
		t.Errorf("the pick list stayed after the value was taken:\n%s", s)
	}
	// The help (f1: the field has the keys) names the same keys for the template as
	// for a prompt.
	h.press("f1")
	h.until("the help", screenHas(h, "Resource template", "pick the next value", "take the value picked", "hide the values offered"))
	if s := h.screen(); strings.Contains(s, "alt+↓") {
		t.Errorf("the help still lists alt+↓:\n%s", s)
	}
	h.press("esc")
	h.until("the help closed", func(m *model) bool { return helpOf(m) == nil })
	h.press("enter")
	readDone(h)
	h.contains("mcpscope://demo/colors/teal", `"#008080"`)
}
