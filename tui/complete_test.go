package tui

import (
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
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

// TestCompletionBehavesTheSameInPromptsAndTemplates: one completion engine (argForm)
// serves a prompt's arguments and a resource template's variables, so the same
// behaviour holds in both, through the same keys, against one server (fakemcp
// completion-context: a prompt and a template of the same two fields, owner and repo,
// the repo's values built from context.arguments.owner):
//   - the first field's values are asked when the form opens, before any typing;
//   - typing is debounced: two keys typed together send one completion/complete;
//   - an answer to a question asked before the last edit is dropped (stale);
//   - ↓ highlights a value, enter takes it (and does nothing else), esc hides the list
//     (and leaves the form open);
//   - the other fields go as context.arguments;
//   - enter then does what the view is for, with what was taken.
func TestCompletionBehavesTheSameInPromptsAndTemplates(t *testing.T) {
	t.Parallel()
	for _, place := range []struct {
		name  string
		open  func(h *harness)
		form  func(m *model) *argForm
		used  func(m *model) bool // the view acted on its form (got the prompt, read the URI)
		after string              // what the view shows once enter acts
	}{
		{
			name: "prompt",
			open: func(h *harness) {
				h.press("9")
				h.until("the prompt", screenHas(h, "repos"))
				h.press("enter")
			},
			form: func(m *model) *argForm {
				if m.prompts.open == nil {
					return nil
				}
				return m.prompts.open.form
			},
			used: func(m *model) bool {
				return m.prompts.open != nil && (m.prompts.open.running || m.prompts.open.res != nil)
			},
			after: "repo alice/alice-app",
		},
		{
			name: "template",
			open: func(h *harness) {
				h.press("8")
				h.until("the resources", func(m *model) bool { l := m.res.lists[m.srv.name]; return l != nil && !l.loading })
				pick(h, "owner}/")
				h.press("enter")
			},
			form: func(m *model) *argForm {
				if m.res.tpl == nil {
					return nil
				}
				return m.res.tpl.form
			},
			used:  func(m *model) bool { return m.res.open != nil },
			after: "read fake://alice/alice-app",
		},
	} {
		t.Run(place.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, client.Target{Argv: testutil.FakeServer(t, "completion-context")}, 120, 40)
			h.until("connected", func(m *model) bool { return m.srv.state() == stateReady })
			place.open(h)
			values := func(m *model) []string {
				if f := place.form(m); f != nil && f.Focused() != nil {
					return f.Focused().values
				}
				return nil
			}
			// Asked on opening (after the debounce), before any typing.
			h.until("the question of the empty field", func(m *model) bool { f := place.form(m); return f != nil && f.asked == 1 })
			f := place.form(h.m)

			// Two keys typed together: one question, for "al". The answer to the
			// question of the empty field (alice and bob) is stale by now: it is never
			// shown.
			h.typeText("al")
			stale := false
			h.until("alice offered", func(m *model) bool {
				v := values(m)
				stale = stale || len(v) > 1
				return len(v) == 1 && v[0] == "alice"
			})
			if stale {
				t.Errorf("the answer to a question asked before the edit was shown")
			}
			if f.asked != 2 {
				t.Errorf("%d completion/complete sent for opening and two keys typed together, want 2", f.asked)
			}
			// ↓ highlights, enter takes the value and does nothing else.
			h.press("down")
			h.until("alice highlighted", screenHas(h, "▸ alice"))
			h.press("enter")
			if got := f.Focused().Value(); got != "alice" {
				t.Errorf("enter on the picked value: the field holds %q", got)
			}
			if place.used(h.m) {
				t.Fatalf("enter on a picked value acted instead of taking the value")
			}
			// The owner goes as context.arguments of the repo's question.
			h.press("tab")
			h.until("alice's repos offered", func(m *model) bool {
				v := values(m)
				return len(v) == 2 && v[0] == "alice-app" && v[1] == "alice-lib"
			})
			// esc hides the values; the form stays open with what was typed.
			h.press("esc")
			if len(values(h.m)) != 0 || place.form(h.m) != f {
				t.Fatalf("esc on the pick list: values %v, form still open: %v", values(h.m), place.form(h.m) == f)
			}
			h.typeText("alice-a")
			h.until("alice-app offered", func(m *model) bool {
				v := values(m)
				return len(v) == 2 && v[0] == "alice-app"
			})
			h.press("down", "enter") // take alice-app (the field holds it already, as typed)
			h.press("enter")         // what the view is for
			h.until(place.after, screenHas(h, place.after))
		})
	}
}
