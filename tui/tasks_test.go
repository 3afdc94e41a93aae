package tui

import (
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/target"
)

// hostWith connects a harness to the bundled host in one protocol era ("" for the
// newest) with these client options.
func hostWith(t *testing.T, protocol string, opts Options) *harness {
	opts.Target = hostTarget(t)
	opts.Name, opts.Theme = "bundled host", "dark"
	opts.Client.Protocol = protocol
	h := newHarnessWith(t, opts, 120, 40)
	h.until("the tools", func(m *model) bool { return len(m.list.tools) > 0 && m.srv.state() == stateReady })
	return h
}

func taskDone(m *model) bool {
	it := m.tasks.selected()
	return it != nil && it.done
}

// The host's research tool requires tasks: enter on its form starts a task in either
// dialect, the Tasks tab follows its stages, and its report is shown once complete.
// A second, slow one is cancelled with x (asked first) and ends cancelled.
func TestTaskRunsAndCancelsInBothDialects(t *testing.T) {
	for _, tc := range []struct{ protocol, dialect string }{{"", client.Tasks2026}, {"2025-11-25", client.Tasks2025}} {
		t.Run("protocol="+tc.protocol, func(t *testing.T) {
			h := hostWith(t, tc.protocol, Options{})
			h.selectTool("research")
			h.press("enter")
			h.contains("enter starts a task")
			if err := h.m.form.SetValue([]byte(`{"topic":"owls","delayMs":30}`)); err != nil {
				t.Fatal(err)
			}
			h.press("enter")
			h.until("the task to complete", taskDone)
			h.contains("0 Tasks", "research", "completed", "Report on owls: 4 stages done.", "status", tc.dialect)
			it := h.m.tasks.selected()
			if it.dialect != tc.dialect || it.out == nil || it.out.err != nil {
				t.Fatalf("dialect %q, outcome %+v", it.dialect, it.out)
			}
			// Its status history: as created (a stage or "starting"), then its end.
			if n := len(it.notes); n < 2 || it.notes[0].status != "working" || it.notes[n-1].status != "completed" {
				t.Fatalf("status history %+v", it.notes)
			}
			// enter shows the result in the Result tab, as a call's.
			h.press("enter")
			h.contains("Report on owls")

			// A long one, cancelled.
			h.toTool("research")
			h.press("enter")
			h.m.form.SetValue([]byte(`{"topic":"slow","delayMs":10000}`))
			h.press("enter")
			h.until("the task to run", func(m *model) bool {
				it := m.tasks.selected()
				return it != nil && it.created && it.task.Status == "working"
			})
			h.press("x")
			h.contains("Cancel task", "y/n")
			h.press("n")
			h.contains("the task goes on")
			if it := h.m.tasks.selected(); it.cancelling || it.done {
				t.Fatal("n cancelled the task")
			}
			h.press("x", "y")
			h.until("the task to end cancelled", func(m *model) bool {
				it := m.tasks.selected()
				return it != nil && it.done && it.task.Status == "cancelled"
			})
			h.contains("cancelled", "cancelled by the client")
			h.until("tasks/cancel in Traffic", func(m *model) bool { return sawMethod(m, "tasks/cancel") })
		})
	}
}

// A task that never completes: polled at its interval (off Update, one request at a
// time), the screen keeps answering, and x cancels it.
func TestTaskThatNeverCompletes(t *testing.T) {
	h := newHarness(t, target.Target{Argv: testutil.FakeServer(t, "primitives")}, 120, 40)
	h.until("the tools", func(m *model) bool { return len(m.list.tools) > 0 })
	h.selectTool("forever")
	h.press("enter", "enter")
	h.until("several polls", func(m *model) bool {
		it := m.tasks.selected()
		return it != nil && it.created && it.poll.Unchanged() >= 3
	})
	h.contains("working", "still thinking", "t-forever", "x cancels")
	// The screen answers keys while the task runs.
	h.press("3")
	h.contains("tasks/get")
	h.press("0", "x", "y")
	h.until("the task to end cancelled", func(m *model) bool {
		it := m.tasks.selected()
		return it != nil && it.done && it.task.Status == "cancelled"
	})
	// Polling stops with the task: the tick already scheduled is dropped.
	h.until("polling to stop", func(m *model) bool { return !m.tasks.selected().polling })
	h.contains("cancelled")
}

// ctrl+g on a tool that does not support tasks says so and calls nothing.
func TestAsTaskRefusedForForbidden(t *testing.T) {
	h := hostWith(t, "", Options{})
	h.selectTool("echo")
	h.press("enter")
	h.press("ctrl+g")
	h.contains("does not support tasks")
	if len(h.m.tasks.items) != 0 || len(h.m.calls) != 0 {
		t.Fatal("something was called")
	}
	if strings.Contains(h.screen(), "0 Tasks") {
		t.Error("the Tasks tab shows with no task")
	}
}

// The host's sample tool asks for a model reply: with --sampling a dialog opens with
// the messages and the system prompt; the reply typed there is what the tool returns.
// ctrl+o puts a canned reply; ctrl+x rejects. In both eras (sampling/createMessage,
// input_required).
func TestSamplingDialog(t *testing.T) {
	for _, protocol := range []string{"", "2025-11-25"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			h := hostWith(t, protocol, Options{Sampling: true})
			h.selectTool("sample")
			h.press("enter")
			h.m.form.SetValue([]byte(`{"prompt":"What is an owl?","messages":3}`))
			h.press("enter")
			h.until("the dialog", func(m *model) bool { return samplingOf(m) != nil })
			h.contains("asks for a model reply", "3 messages, maxTokens 200", "You are the model behind mcpscope", "message 1 of 3", "What is an owl?", "Your reply")
			h.press("enter")
			h.contains("write a reply")
			h.typeText("A bird.")
			h.press("enter")
			h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running })
			h.contains("The model replied: A bird.")

			// Rejected.
			h.toTool("sample")
			h.press("enter", "enter")
			h.until("the dialog", func(m *model) bool { return samplingOf(m) != nil })
			h.press("ctrl+x")
			h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && samplingOf(m) == nil })
			if strings.Contains(h.screen(), "The model replied") {
				t.Fatalf("a rejected request got a reply:\n%s", h.screen())
			}

			// A canned reply.
			h.toTool("sample")
			h.press("enter", "enter")
			h.until("the dialog", func(m *model) bool { return samplingOf(m) != nil })
			h.press("ctrl+o", "enter")
			h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && samplingOf(m) == nil })
			h.contains("The model replied: Hello from mcpscope")
		})
	}
}

// A request of 1,000 messages opens at once (only the messages in view are laid
// out), scrolls to its end, and is answered.
func TestSamplingThousandMessages(t *testing.T) {
	h := hostWith(t, "", Options{Sampling: true})
	h.selectTool("sample")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"prompt":"the last one","messages":1000}`))
	h.press("enter")
	h.until("the dialog", func(m *model) bool { return samplingOf(m) != nil })
	h.contains("1000 messages", "message 1 of 1000", "more below")
	if n := len(samplingOf(h.m).src.done); n > 60 {
		t.Errorf("%d messages laid out for the first screen", n)
	}
	h.press("ctrl+end")
	h.contains("the last one", "1000/1000")
	h.press("ctrl+o", "enter")
	h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && samplingOf(m) == nil })
	h.contains("The model replied")
}

// --sampling-reply answers without a dialog.
func TestSamplingReplyFlag(t *testing.T) {
	h := hostWith(t, "", Options{SamplingReply: "canned by flag"})
	h.selectTool("sample")
	h.press("enter", "enter")
	h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running })
	if samplingOf(h.m) != nil {
		t.Fatal("a dialog opened")
	}
	h.contains("The model replied: canned by flag")
}

// --root declares roots: the host's roots tool lists them; the Servers tab shows them
// and edits them live (o, then a adds a directory, d removes one), and the next
// roots/list answers with the new set (notifications/roots/list_changed in 2025).
func TestRootsEditedLive(t *testing.T) {
	for _, protocol := range []string{"", "2025-11-25"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			one, two := t.TempDir(), t.TempDir()
			r1, err := client.RootFromDir(one)
			if err != nil {
				t.Fatal(err)
			}
			r2, _ := client.RootFromDir(two)
			h := hostWith(t, protocol, Options{Roots: []client.Root{r1}})
			callRoots := func() {
				h.toTool("roots")
				h.press("enter", "enter")
				h.until("the roots result", func(m *model) bool {
					return m.current != nil && m.current.tool.Name == "roots" && !m.current.running
				})
			}
			callRoots()
			h.contains("The client's roots:", r1.URI)

			h.press("7")
			h.contains("declared to this server", "roots", r1.URI)
			h.press("o")
			h.contains("Roots offered to", r1.URI, "a adds")
			h.press("a")
			h.typeText(two)
			h.press("enter")
			h.until("the root to be sent", func(m *model) bool { return strings.Contains(m.notice, " now; ") })
			h.contains(r2.URI)
			if protocol != "" {
				h.until("notifications/roots/list_changed", func(m *model) bool { return sawMethod(m, "notifications/roots/list_changed") })
			}
			h.press("esc")
			callRoots()
			h.contains(r1.URI, r2.URI)

			// Remove the first.
			h.press("7", "o", "g", "d")
			h.until("the removal to be sent", func(m *model) bool { return strings.Contains(m.notice, "1 root now") })
			h.press("esc")
			callRoots()
			s := h.screen()
			if strings.Contains(s, r1.URI) || !strings.Contains(s, r2.URI) {
				t.Fatalf("after removing %s:\n%s", r1.URI, s)
			}
		})
	}
}

// S in the Servers tab declares sampling (the server reconnects with it), after
// which the host's sample tool opens the dialog.
func TestSamplingDeclaredFromServersTab(t *testing.T) {
	h := hostWith(t, "2025-11-25", Options{})
	h.press("7")
	h.contains("sampling    no")
	h.press("S")
	h.until("the reconnect", func(m *model) bool { return m.srv.gen() >= 2 && m.srv.state() == stateReady && len(m.list.tools) > 0 })
	h.contains("sampling    yes")
	h.selectTool("sample")
	h.press("enter", "enter")
	h.until("the dialog", func(m *model) bool { return samplingOf(m) != nil })
	h.press("ctrl+o", "enter")
	h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && samplingOf(m) == nil })
	h.contains("The model replied")
}

// The Logs tab filters by level (f raises the lowest level shown) and by logger (/),
// and l sets the server's level: logging/setLevel in 2025, each request's _meta
// logLevel in 2026-07-28; the next messages come at that level and above only.
func TestLogsFilterAndLevel(t *testing.T) {
	for _, protocol := range []string{"", "2025-11-25"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			h := hostWith(t, protocol, Options{})
			h.selectTool("log")
			h.press("enter", "enter")
			h.until("eight log lines", func(m *model) bool { return m.logs.len() >= 8 && m.current != nil && !m.current.running })
			h.press("tab", "4")
			h.contains("f level≥debug", `"level":"debug"`, `"level":"emergency"`)
			h.press("f", "f", "f") // ≥ warning
			s := h.screen()
			if strings.Contains(s, `"level":"debug"`) || strings.Contains(s, `"level":"notice"`) || !strings.Contains(s, `"level":"warning"`) || !strings.Contains(s, `"level":"emergency"`) {
				t.Fatalf("level ≥ warning:\n%s", s)
			}
			h.contains("f level≥warning", "5 of 8 lines")
			h.press("/")
			h.typeText("nosuchlogger")
			h.press("enter")
			h.contains("No line passes the filter")
			h.press("/")
			h.typeText("dem")
			h.press("enter")
			h.contains("logger ~ dem", "5 of 8 lines")
			h.press("esc")
			h.contains(`"level":"debug"`)

			// l: the server's level, then the same eight messages again.
			h.press("l", "right", "right", "right", "right", "enter") // error
			h.until("the level to be set", func(m *model) bool { return strings.Contains(m.notice, "error") && !strings.Contains(m.notice, "…") })
			if protocol != "" {
				h.until("logging/setLevel in Traffic", func(m *model) bool { return sawMethod(m, "logging/setLevel") })
			}
			before := h.m.logs.len()
			h.toTool("log")
			h.press("enter", "enter")
			h.until("the call", func(m *model) bool { return m.current != nil && !m.current.running && m.current.id > 1 })
			h.until("the new lines", func(m *model) bool { return m.logs.len() >= before+4 })
			var got []string
			for i := before; i < h.m.logs.len(); i++ {
				got = append(got, h.m.logs.at(i))
			}
			joined := strings.Join(got, "\n")
			if strings.Contains(joined, `"level":"warning"`) || strings.Contains(joined, `"level":"debug"`) || !strings.Contains(joined, `"level":"error"`) {
				t.Fatalf("after setting error, the server sent:\n%s", joined)
			}
		})
	}
}

// A server→client sampling/createMessage of 1,000 messages whose texts and system
// prompt carry terminal escapes: the dialog opens laying out only what it shows, the
// escapes are drawn inert, and the reply reaches the server.
func TestSamplingThousandHostileMessages(t *testing.T) {
	h := newHarnessWith(t, Options{Target: target.Target{Argv: testutil.FakeServer(t, "asks")}, Name: "fake", Theme: "dark", Sampling: true}, 120, 40)
	h.until("the tools", func(m *model) bool { return len(m.list.tools) > 0 })
	h.selectTool("ask_model")
	h.press("enter", "enter")
	h.until("the dialog", func(m *model) bool { return samplingOf(m) != nil })
	s := h.screen()
	if n := len(samplingOf(h.m).src.done); n > 60 {
		t.Errorf("%d of 1000 messages laid out for the first screen", n)
	}
	for _, want := range []string{"1000 messages, maxTokens 64", "message 1 of 1000", "␛]2;pwned", "hints claude", "speed 0.8"} {
		if !strings.Contains(s, want) {
			t.Errorf("dialog lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(h.m.render(), "\x1b]2;pwned") {
		t.Fatal("a server's escape reached the terminal")
	}
	h.press("ctrl+end")
	h.contains("message 1000 of 1000")
	h.typeText("short")
	h.press("enter")
	h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && samplingOf(m) == nil })
	h.contains("said: short")
}

// maybe_task's taskSupport is optional: enter calls it plainly, ctrl+g (shown in the
// form's hint) runs it as a task.
func TestOptionalTaskKey(t *testing.T) {
	h := newHarness(t, target.Target{Argv: testutil.FakeServer(t, "asks")}, 120, 40)
	h.until("the tools", func(m *model) bool { return len(m.list.tools) > 0 })
	h.selectTool("maybe_task")
	h.press("enter")
	h.contains("ctrl+g as a task")
	h.press("enter")
	h.until("the plain result", func(m *model) bool { return m.current != nil && !m.current.running })
	h.contains("ran as a plain call")
	if len(h.m.tasks.items) != 0 {
		t.Fatal("enter started a task")
	}
	h.toTool("maybe_task")
	h.press("enter", "ctrl+g")
	h.until("the task", taskDone)
	h.contains("0 Tasks", "completed", "ran as a task")
}

// Quitting with a sampling dialog open (and another request queued behind it) does
// not wait for the user: closing the session rejects what is still asked.
func TestCloseWithDialogOpen(t *testing.T) {
	h := newHarnessWith(t, Options{Target: target.Target{Argv: testutil.FakeServer(t, "asks")}, Name: "fake", Theme: "dark", Sampling: true}, 120, 40)
	h.until("the tools", func(m *model) bool { return len(m.list.tools) > 0 })
	for range 2 {
		h.toTool("ask_model")
		h.press("enter", "enter")
	}
	h.until("the dialog and a queued request", func(m *model) bool { return samplingOf(m) != nil && len(m.waiting) == 1 })
	testutil.Within(t, "closing with dialogs open", h.close)
}

// endedResearchTask is the bundled host (2025-11-25) with the research tool run as a
// task to its end, its detail in the Tasks view.
func endedResearchTask(t *testing.T) *harness {
	t.Helper()
	h := hostWith(t, "2025-11-25", Options{})
	h.selectTool("research")
	h.press("enter")
	if err := h.m.form.SetValue([]byte(`{"topic":"owls","delayMs":30}`)); err != nil {
		t.Fatal(err)
	}
	h.press("enter")
	h.until("the task to complete", taskDone)
	return h
}

// A task that has ended is no longer polled, and its detail does not say when the
// next poll is due: "next in 1s" stayed under a completed task.
func TestEndedTaskSaysNoNextPoll(t *testing.T) {
	h := endedResearchTask(t)
	s := h.screen()
	if !strings.Contains(s, "every 100 ms") {
		t.Fatalf("the task's detail has no poll line:\n%s", s)
	}
	if strings.Contains(s, "next in") {
		t.Errorf("a completed task's detail says when its next poll is:\n%s", s)
	}
}

// On an ended task the Tasks view's keys say why they do nothing: x (cancel) in the
// help, and r (poll again), which did nothing there without a word, when pressed.
func TestEndedTaskKeysSayWhy(t *testing.T) {
	h := endedResearchTask(t)
	h.press("0", "?")
	h.contains("cancel a task (task ended)")
	h.press("esc", "r")
	h.contains("the task has ended: it is polled no more")
}
