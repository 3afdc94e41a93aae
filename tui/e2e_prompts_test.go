package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// e2ePrompt gets a prompt in a real terminal: the Prompts tab, the filter, the form,
// a value picked from the completion offered as the user types, then prompts/get.
func e2ePrompt(t *testing.T, args, prompt string, steps func(x *tmux), want string) {
	bin := testutil.Mcpscope(t)
	x := newTmux(t, 120, 40, fmt.Sprintf("sh -c '%s %s; echo mcpscope-exited:$?; sleep 30'", bin, args))
	x.waitFor("connected")
	x.keys("9")
	x.waitFor(prompt)
	x.keys("/")
	x.typeText(prompt)
	x.keys("Enter", "Enter")
	x.waitFor("enter gets the prompt")
	steps(x)
	x.keys("Enter")
	x.waitFor(want)
	// esc closes the form; q quits, and everything mcpscope started is gone.
	x.keys("Escape")
	x.waitFor("enter opens")
	x.keys("q")
	x.waitFor("mcpscope-exited:0")
}

func TestEndToEndPromptBundledHost(t *testing.T) {
	t.Parallel()
	e2ePrompt(t, "", "summarize", func(x *tmux) {
		x.typeText("hello tmux")
		x.keys("Tab")
		x.waitFor("↓/↑ pick")
		x.typeText("bu")
		// The values offered for "bu" alone (those for the empty field went when
		// typing began).
		x.waitUntil("bullets alone offered", func(s string) bool {
			return strings.Contains(s, "Style (style)  bu") && strings.Contains(s, "  bullets") && !strings.Contains(s, "  detailed")
		})
		x.keys("Down", "Enter")
		x.waitFor("Style (style)  bullets")
	}, "Summarize the following text (bullets):")
}

func TestEndToEndPromptServerEverything(t *testing.T) {
	t.Parallel()
	argv := testutil.Everything(t)
	e2ePrompt(t, "-- "+strings.Join(argv, " "), "completable-prompt", func(x *tmux) {
		x.typeText("Eng")
		x.waitUntil("Engineering alone offered", func(s string) bool {
			return strings.Contains(s, "  Engineering") && !strings.Contains(s, "  Sales")
		})
		x.keys("Down")
		x.waitFor("▸ Engineering")
		x.keys("Enter")
		// The name's values depend on the department (context.arguments).
		x.keys("Tab")
		x.waitFor("  Alice")
		x.keys("Down", "Enter")
	}, "Please promote Alice to the head of the Engineering team.")
}
