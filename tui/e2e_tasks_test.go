package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// pickTool goes back to the tool list (from the form or a tab) and opens a tool's
// form by name.
func (x *tmux) pickTool(name string) {
	x.t.Helper()
	x.keys("1")
	// The Tool view opens with the keyboard in the list, never in the form.
	x.waitFor("tab or enter to fill in the arguments")
	x.openTool(name)
}

// In a real terminal, with --sampling: a task run to completion and another
// cancelled (x, then y), then a sampling request answered in its dialog, on the
// bundled host and on server-everything.
func TestE2ETasksAndSampling(t *testing.T) {
	for _, tc := range []struct {
		name, args       string
		task, long, done string
		sample, reply    string
	}{
		{name: "host", task: "research", long: "10000", done: "Report on owls: 4 stages done.",
			sample: "sample", reply: "The model replied: a reply from tmux"},
		{name: "everything", args: "-- " + strings.Join(testutil.Everything(t), " "), task: "simulate-research-query",
			// The reply as the result quotes it: the bare text is also what the dialog's
			// field shows while the reply is typed, so waiting for it could go on before
			// enter was read, and q then met the call still running (seen under load).
			done: "Research Report: owls", sample: "trigger-sampling-request", reply: `"text": "a reply from tmux"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bin := testutil.Mcpscope(t)
			x := newTmux(t, 120, 40, fmt.Sprintf("sh -c '%s --sampling %s; echo mcpscope-exited:$?; sleep 30'", bin, tc.args))
			x.waitFor("connected")

			// A task, to completion.
			x.pickTool(tc.task)
			x.waitFor("enter starts a task")
			if tc.long != "" { // the host's form: delayMs, then topic
				x.typeText("30")
				x.keys("Tab")
			}
			x.typeText("owls")
			x.keys("Enter")
			x.waitFor("0 Tasks")
			x.waitFor(tc.done)
			x.waitFor("completed")

			// Another, cancelled while it runs.
			x.pickTool(tc.task)
			if tc.long != "" { // the form is as it was left: on topic, after delayMs 30
				x.keys("BTab", "C-u")
				x.typeText(tc.long)
			}
			x.keys("Enter")
			x.waitFor("working")
			x.keys("x")
			x.waitFor("Cancel task")
			x.keys("y")
			x.waitFor("cancelled")

			// A sampling request, answered.
			x.pickTool(tc.sample)
			if tc.name == "everything" {
				x.typeText("Say hi") // its prompt field
			}
			x.keys("Enter")
			x.waitFor("asks for a model reply")
			x.typeText("a reply from tmux")
			x.keys("Enter")
			x.waitFor(tc.reply)

			x.keys("Tab", "q")
			x.waitFor("mcpscope-exited:0")
		})
	}
}
