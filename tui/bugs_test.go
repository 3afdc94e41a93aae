package tui

import (
	"os"

	"github.com/charmbracelet/x/ansi"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/themes"
	"github.com/mcpscope/mcpscope/workbench"
)

// call fills the named tool's form with args and calls it, answering y when asked.
func (h *harness) call(tool, args string) {
	h.t.Helper()
	h.selectTool(tool)
	h.press("enter")
	if err := h.m.form.SetValue([]byte(args)); err != nil {
		h.t.Fatal(err)
	}
	n := len(h.m.calls)
	h.press("enter")
	if questionOf(h.m) != nil {
		h.press("y")
	}
	h.until(tool+"'s result", func(m *model) bool { return len(m.calls) == n+1 && !m.calls[n].running })
}

// Issue 9, item 1: a History entry re-runs its own tool even when the list's filter
// hides it and another tool is selected.
func TestHistoryRerunsItsOwnToolUnderAFilter(t *testing.T) {
	h := ready(t, 120, 40)
	h.call("echo", `{"text":"weather"}`)
	h.call("pretend_delete", `{"path":"/tmp/x"}`)
	h.press("tab") // the list
	h.press("/")
	h.typeText("pretend_del")
	h.press("enter")
	if sel, _ := h.m.list.selected(); sel.Name != "pretend_delete" {
		t.Fatalf("selected %s", sel.Name)
	}
	h.press("6", "down") // History, the older row: echo
	h.contains("› HH:MM:SS  ok  echo")
	h.press("enter")
	h.until("the re-run", func(m *model) bool { return len(m.calls) == 3 && !m.calls[2].running })
	if got := h.m.calls[2]; got.tool.Name != "echo" || string(got.args) != `{"text":"weather"}` {
		t.Errorf("History re-ran %s with %s", got.tool.Name, got.args)
	}
	// e opens the entry's own tool with its arguments, even though the filter hid it.
	h.press("6", "down", "down")
	h.press("e")
	if h.m.formTool != "echo" {
		t.Errorf("e opened the form of %q", h.m.formTool)
	}
	if v, _ := h.m.form.Value(); string(v) != `{"text":"weather"}` {
		t.Errorf("e loaded %s", v)
	}
}

// Item 1: a tool that is gone is said to be gone, and nothing is called.
func TestHistoryRerunOfAToolThatIsGone(t *testing.T) {
	h := ready(t, 120, 40)
	h.call("echo", `{"text":"x"}`)
	var keep []client.Tool
	for _, tl := range h.m.list.tools {
		if tl.Name != "echo" {
			keep = append(keep, tl)
		}
	}
	h.m.list.setTools(keep) // as after a list_changed that dropped it
	h.press("tab", "6", "enter")
	h.contains("echo is not in the server's tool list any more; nothing was called")
	if len(h.m.calls) != 1 {
		t.Errorf("%d calls", len(h.m.calls))
	}
}

// Item 2: re-running a destructive tool from History asks first, as the form does.
func TestHistoryRerunOfADestructiveToolAsks(t *testing.T) {
	h := ready(t, 120, 40)
	h.call("pretend_delete", `{"path":"/tmp/x"}`)
	h.press("tab", "6", "enter")
	// The arguments are checked against the schema first (in a command).
	h.until("the question", func(m *model) bool { return questionOf(m) != nil })
	h.contains(`pretend_delete is destructive. Call it with {"path":"/tmp/x"}? y/n`)
	if len(h.m.calls) != 1 {
		t.Fatal("History re-ran a destructive tool without asking")
	}
	h.press("n")
	h.contains("call not sent")
	h.press("enter")
	h.until("the question again", func(m *model) bool { return questionOf(m) != nil })
	h.press("y")
	h.until("the confirmed re-run", func(m *model) bool { return len(m.calls) == 2 && !m.calls[1].running })
}

// Item 6: after scrolling one result, the next opens at its top.
func TestNewResultOpensAtItsTop(t *testing.T) {
	h := ready(t, 120, 40)
	h.call("echo", `{"text":"short"}`)
	h.press("j") // on a short result
	h.call("echo", `{"text":"`+strings.Repeat("line ", 10)+`"}`)
	long := strings.Repeat(`line\n`, 200)
	h.call("echo", `{"text":"first `+long+`"}`)
	h.contains("first line")
}

// Item 7: esc in the tool list clears the filter, as its hint says, and leaves a
// running call alone; x in the Result view cancels it.
func TestEscClearsTheFilterAndXCancels(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("slow")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"steps":200,"delayMs":50}`))
	h.press("enter")
	h.until("progress", func(m *model) bool { return m.current != nil && m.current.progress != nil })
	h.press("tab") // to the list, its filter still /slow
	h.contains("(esc clears)")
	h.press("esc")
	if h.m.list.filter != "" {
		t.Errorf("esc left the filter %q", h.m.list.filter)
	}
	if !h.m.current.running || h.m.current.cancelled {
		t.Fatal("esc in the tool list cancelled the call")
	}
	h.press("2")
	h.contains("x cancels")
	h.press("x")
	h.until("the cancel", func(m *model) bool { return !m.current.running })
	if s := h.screen(); strings.Contains(s, "context canceled") {
		t.Errorf("the raw context error is shown:\n%s", s)
	}
}

// Item 7: a call that has run for a while is cancelled only after a y.
func TestCancellingALongCallAsks(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("slow")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"steps":200,"delayMs":50}`))
	h.press("enter")
	h.until("progress", func(m *model) bool { return m.current != nil && m.current.progress != nil })
	h.m.current.started = h.m.current.started.Add(-time.Minute) // as if it ran a minute
	h.press("x")
	h.contains("Cancel slow? It has run for")
	h.press("n")
	if h.m.current.cancelled {
		t.Fatal("cancelled although the user said no")
	}
	h.press("x", "y")
	h.until("the cancel", func(m *model) bool { return !m.current.running && m.current.cancelled })
}

// Smaller: q during a running call asks first.
func TestQuitDuringACallAsks(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("slow")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"steps":200,"delayMs":50}`))
	h.press("enter")
	h.until("progress", func(m *model) bool { return m.current != nil && m.current.progress != nil })
	_, cmd := h.m.Update(keyMsg("q"))
	if cmd != nil {
		t.Fatal("q quit at once during a running call")
	}
	h.contains("1 call still running (slow). Quit anyway")
	_, cmd = h.m.Update(keyMsg("y"))
	if cmd == nil {
		t.Fatal("y did not quit")
	}
}

// Issue 19 (seen under load in TestE2ETasksAndSampling): q pressed while a call ran
// asked "1 call still running" and went on asking it after the call had answered,
// so the screen claimed a running call beside its finished result. The question
// follows the calls while it is open.
func TestQuitQuestionFollowsTheRunningCalls(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("slow")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"steps":20,"delayMs":50}`))
	h.press("enter")
	h.until("progress", func(m *model) bool { return m.current != nil && m.current.progress != nil })
	h.press("q")
	h.contains("1 call still running (slow). Quit anyway")
	h.until("the call's answer", func(m *model) bool { return !m.current.running })
	if s := h.screen(); strings.Contains(s, "still running") || !strings.Contains(s, "No call is running any more. Quit? y/n") {
		t.Fatalf("the quit question does not follow the finished call; screen:\n%s", s)
	}
	_, cmd := h.m.Update(keyMsg("y"))
	if cmd == nil {
		t.Fatal("y did not quit")
	}
}

// Item 10: after a failed start, Traffic and Stderr can be reached, and the failure
// shows the first stderr lines as well as the last.
func TestFailedStartKeepsTheDiagnostics(t *testing.T) {
	h := newHarness(t, target.Target{Argv: testutil.FakeServer(t, "exit-at-once")}, 100, 30)
	h.until("the failure", func(m *model) bool { return m.srv.state() == stateFailed })
	h.contains("Could not connect", "missing configuration FOO_TOKEN", "1 Tool", "5 Stderr")
	h.press("5")
	h.until("stderr in its tab", func(m *model) bool { return strings.Contains(h.screen(), "FOO_TOKEN") })
	h.press("3")
	h.contains("events")
	if err := h.m.exitError(); err == nil || !strings.Contains(err.Error(), "could not connect") {
		t.Errorf("quitting after a failed start gives %v, want an error (exit 1)", err)
	}
}

// Item 10: a cause printed first survives a long trace after it.
func TestFailureShowsTheFirstAndLastStderrLines(t *testing.T) {
	h := newHarness(t, target.Target{Argv: testutil.FakeServer(t, "exit-verbose")}, 100, 30)
	h.until("the failure", func(m *model) bool { return m.srv.state() == stateFailed })
	h.until("the stderr lines", func(m *model) bool { return m.stderr.len() >= 62 })
	h.contains("the cause: cannot open database notes.db", "fakemcp: giving up", "more lines (5 shows them all)")
}

// Item 11: mcpscope open says it shows a recording, in the status bar and on every
// answer that came from it (recorded calls, and new calls the mock answers).
func TestOpenMarksTheRecording(t *testing.T) {
	file := filepath.Join(testutil.Root(), "testdata", "host-demo.jsonl")
	rec, err := record.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, Options{
		Target: target.Target{Argv: []string{testutil.Mcpscope(t), "serve", file}},
		Name:   "recording", Theme: "dark", Browse: rec,
	}, 140, 40)
	h.until("the mock's tools", func(m *model) bool { return len(m.list.tools) > 0 })
	// Issue 20 item A: it said "▶ RECORDING, answers are recorded", which reads as a
	// recording in progress. It says what it is: a recording browsed, a mock answering.
	h.contains("▶ browsing a recording; a mock answers from it")
	if strings.Contains(h.screen(), "RECORDING") {
		t.Errorf("the status bar reads as if it were recording:\n%s", h.screen())
	}
	h.press("2")
	h.contains("▶ recorded: this call and its answer come from the recording")
	h.call("echo", `{"text":"hello"}`)
	h.contains("▶ answered from the recording")
	// The recording has no echo of "hello": the mock answered with another call's
	// answer, and the Result view says which (issue 20 item A).
	h.contains("▶ no recorded call has these arguments; this is the answer to tools/call echo", `{"text":"hello, golden"}`)
	h.press("6")
	h.contains("▶ ok")
}

// Item 9: an HTTP session whose server died says disconnected (and offers ctrl+r),
// over Streamable HTTP (fastmcp) and legacy SSE (server-everything).
func TestHTTPStatusFollowsTheTransport(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(testing.TB) *testutil.NodeServer
		path  string
	}{
		{"streamable fastmcp", testutil.FastMCPHTTP, "/mcp"},
		{"legacy sse everything", func(t testing.TB) *testutil.NodeServer { return testutil.EverythingHTTP(t, "sse") }, "/sse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.start(t)
			h := newHarness(t, target.Target{URL: "http://" + srv.Addr + tc.path}, 120, 40)
			h.until("the tools", func(m *model) bool { return len(m.list.tools) > 0 && m.srv.state() == stateReady })
			h.contains("connected")
			srv.Kill()
			h.until("disconnected", func(m *model) bool { return m.srv.state() == stateLost })
			h.contains("disconnected (ctrl+r reconnects)", "Disconnected", "ctrl+r restarts")
		})
	}
}

// Smaller: s on a resource_link saves the link (and, once read with o, the resource),
// never an empty file.
func TestSaveResourceLink(t *testing.T) {
	h := ready(t, 120, 40)
	h.m.opts.SaveDir = t.TempDir()
	h.call("resource_links", `{}`)
	h.press("s")
	h.until("the save", func(m *model) bool { return strings.HasPrefix(m.notice, "saved ") })
	files, _ := filepath.Glob(filepath.Join(h.m.opts.SaveDir, "*", "1-resource_link*"))
	if len(files) != 1 {
		t.Fatalf("saved %v", files)
	}
	b, _ := os.ReadFile(files[0])
	if !strings.Contains(string(b), `"uri"`) {
		t.Errorf("the saved link is %q", b)
	}
	h.press("o")
	h.until("the linked resources", func(m *model) bool { return len(m.current.linked) > 0 })
	h.press("s")
	h.until("the save", func(m *model) bool { return strings.HasPrefix(m.notice, "saved ") })
	files, _ = filepath.Glob(filepath.Join(h.m.opts.SaveDir, "*", "1-resource_link.txt"))
	if len(files) != 1 {
		t.Fatalf("after o, saved %v", files)
	}
	b, _ = os.ReadFile(files[0])
	if want := h.m.current.linked[0].contents[0].Text; len(b) == 0 || string(b) != want {
		t.Errorf("saved %q, want the resource's text %q", b, want)
	}
}

// Smaller: a linked blob's size is its decoded size (4 bytes here, not 6).
func TestLinkedBlobSize(t *testing.T) {
	o := &outcome{tool: client.Tool{Name: "x"}, result: &client.CallResult{},
		linked: []linkedResource{{uri: "a://b", contents: []client.ResourceContents{{URI: "a://b", Blob: "AAECAw=="}}}}}
	got := strings.Join(resultLines(newStyles(themes.Dark), o, 80), "\n")
	if !strings.Contains(got, "binary, 4 B") {
		t.Errorf("the blob's size:\n%s", got)
	}
}

// Smaller: an edit from $EDITOR that is not valid is kept (as raw JSON) with the
// reason shown, not thrown away.
func TestInvalidEditorEditIsKept(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("echo")
	h.press("enter")
	p := filepath.Join(t.TempDir(), "args.json")
	os.WriteFile(p, []byte(`{"text": "half done`), 0o600)
	h.update(editorDoneMsg{path: p})
	h.until("the edit read back", func(m *model) bool { return m.notice != "" })
	if !h.m.form.Raw() {
		t.Fatal("the invalid edit was not kept in the raw JSON editor")
	}
	h.contains(`"half done`, "kept as raw JSON")
}

// Smaller: alt+enter sends what was typed even when it does not parse ("abc" into
// a number field), as its hint promises.
func TestSendAnywayWithABadNumber(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("add")
	h.press("enter")
	h.typeText("abc")
	h.press("enter")
	if len(h.m.calls) != 0 {
		t.Fatal("enter sent invalid arguments")
	}
	h.press("alt+enter")
	h.until("the call", func(m *model) bool { return len(m.calls) == 1 && !m.calls[0].running })
	if got := string(h.m.calls[0].args); !strings.Contains(got, `"a":"abc"`) {
		t.Errorf("sent %s", got)
	}
}

// Smaller: moving to another tool and back keeps what was typed in the form.
func TestFormKeptPerTool(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("echo")
	h.press("enter")
	h.typeText("kept")
	h.press("esc") // back to the list
	h.selectTool("add")
	h.selectTool("echo")
	if v, _ := h.m.form.Value(); string(v) != `{"text":"kept"}` {
		t.Errorf("the form came back as %s", v)
	}
}

// Smaller: a long notice (a saved file's path) is shown whole, below the status
// line, and a later call clears it.
func TestLongNoticeIsShownWhole(t *testing.T) {
	h := ready(t, 120, 40)
	long := "saved 3 blocks and result.json to /tmp/" + strings.Repeat("very-long-directory-name/", 6) + "mcpscope-result-123"
	h.m.notice = long
	s := strings.ReplaceAll(h.screen(), "\n", "")
	if !strings.Contains(s, "mcpscope-result-123") {
		t.Errorf("the notice is cut:\n%s", h.screen())
	}
	h.call("echo", `{"text":"x"}`)
	if strings.Contains(h.screen(), "very-long-directory") {
		t.Error("a stale notice stays after a later call")
	}
}

// Smaller: an HTTP target without serverInfo is named by its URL.
func TestURLTargetIsNamed(t *testing.T) {
	m := newModel(Options{Target: target.Target{URL: "http://127.0.0.1:1/mcp"}, Theme: "dark"})
	if got := m.displayName(); got != "http://127.0.0.1:1/mcp" {
		t.Errorf("named %q", got)
	}
}

// Item 12: the tool detail is sized by what it holds: a short detail leaves the
// output schema in view while the form has the focus.
func TestToolDetailSizedByContent(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("add")
	h.press("enter") // the form has the focus
	h.contains("Input schema", "Output schema", "sum")
}

// Item 12: the detail scrolls from the keyboard (shift+↑/↓, with the form focused
// too), and v shows the whole raw tool.
func TestToolDetailScrollsAndRawIsWhole(t *testing.T) {
	h := ready(t, 80, 24)
	h.selectTool("rich_form")
	h.press("enter")
	h.contains("shift+↑/↓ scroll")
	h.press("shift+down", "shift+down")
	if h.m.detail.offset != 2 {
		t.Errorf("shift+↓ left the detail at line %d", h.m.detail.offset)
	}
	h.press("esc", "v") // the list; v shows the raw tool
	raw := h.m.list.tools[h.m.list.rows[h.m.list.cursor].tool].Raw
	if len(jsonLines(h.m.st, raw, 76)) < 30 {
		t.Fatal("rich_form's raw JSON is too short for this test")
	}
	h.press("tab", "G")
	h.contains("(end)")
}

// Smaller: at 60×20 the help scrolls, so that every key can be read.
func TestHelpScrollsOnASmallScreen(t *testing.T) {
	h := ready(t, 60, 20)
	h.press("?")
	h.contains("j/k, pgup/pgdn scroll")
	seen := h.screen()
	for range 40 {
		h.press("j")
		seen += h.screen()
	}
	_, sections := h.m.helpSections()
	for _, es := range sections {
		for _, e := range es {
			d := []rune(e.d)
			if !strings.Contains(seen, string(d[:min(len(d), 12)])) { // descriptions may be cut short
				t.Errorf("the help never shows %q", e.d)
			}
		}
	}
	if helpOf(h.m) == nil {
		t.Error("scrolling closed the help")
	}
}

// Item 13: long lines wrap at word boundaries in text results and in Stderr, and
// JSON keeps its long values whole (wrapped, not cut with …).
func TestLongLinesWrap(t *testing.T) {
	words := strings.Repeat("alpha beta gamma delta ", 12) + "omega"
	got := textLines(newStyles(themes.Dark), words, 40)
	for _, l := range got {
		if ansi.StringWidth(l) > 40 {
			t.Errorf("a line is wider than 40: %q", l)
		}
		for _, f := range strings.Fields(l) {
			switch f {
			case "alpha", "beta", "gamma", "delta", "omega":
			default:
				t.Errorf("a word was split: %q in %q", f, l)
			}
		}
	}
	if !strings.Contains(strings.Join(got, " "), "omega") {
		t.Error("the end of the text is lost")
	}
	js := jsonLines(newStyles(themes.Dark), []byte(`{"k":"`+words+`"}`), 40)
	if all := ansi.Strip(strings.Join(js, "")); !strings.Contains(all, "omega") || strings.Contains(all, "…") {
		t.Errorf("JSON was cut:\n%s", strings.Join(js, "\n"))
	}

	h := ready(t, 100, 30)
	h.m.stderr.add("fatal: " + words)
	h.press("5")
	h.contains("omega")
}

// Item 3: open shows the recorded calls even of a recording it cannot serve (one
// started mid-session by an older mcpscope: no handshake in it).
func TestOpenShowsCallsOfAnUnservableRecording(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mid.jsonl")
	os.WriteFile(file, []byte(`{"mcpscope":"recording","version":1,"started":"2026-01-01T00:00:00Z","target":{"transport":"stdio","argv":["x"]}}
{"t":1,"dir":"send","msg":{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"lookup_weather","arguments":{"city":"Oslo"}}}}
{"t":1.1,"dir":"recv","msg":{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"weather in Oslo: snow"}]}}}
{"t":2,"kind":"end"}
`), 0o600)
	rec, err := record.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, Options{
		Target: target.Target{Argv: []string{testutil.Mcpscope(t), "serve", file}},
		Name:   "recording", Theme: "dark", Browse: rec,
	}, 120, 40)
	h.until("the failure", func(m *model) bool { return m.srv.state() == stateFailed })
	h.press("6")
	h.contains(`lookup_weather {"city":"Oslo"}`)
	h.press("right")
	h.contains("weather in Oslo: snow")
}

// Smaller: ctrl+r on a live server that is busy (a call hangs) offers to restart it,
// and the restart cancels the hung call rather than leaving it running forever.
func TestRestartALiveServerAsksAndCancelsCalls(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("slow")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"steps":2000,"delayMs":50}`))
	h.press("enter")
	h.until("progress", func(m *model) bool { return m.current != nil && m.current.progress != nil })
	h.press("ctrl+r")
	h.contains("Restart mcpscope-host 0.1.0? Its running call is interrupted. y/n")
	h.press("y")
	h.until("the restart", func(m *model) bool { return m.srv.gen() == 2 && m.srv.state() == stateReady })
	h.until("the hung call's end", func(m *model) bool { return !m.calls[0].running })
	if !h.m.calls[0].cancelled {
		t.Error("the running call was not cancelled by the restart")
	}
}

// A call that a restart (ctrl+r) ends says so, in Result and in History: before, it
// said "Cancelled: notifications/cancelled was sent to the server", which the user
// had not asked for and which was never sent (the server was stopped first).
func TestRestartSaysTheCallWasInterrupted(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("slow")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"steps":2000,"delayMs":50}`))
	h.press("enter")
	h.until("progress", func(m *model) bool { return m.current != nil && m.current.progress != nil })
	h.press("ctrl+r")
	h.contains("Restart mcpscope-host 0.1.0? Its running call is interrupted. y/n")
	h.press("y")
	h.until("the restart", func(m *model) bool { return m.srv.gen() == 2 && m.srv.state() == stateReady })
	h.until("the call's end", func(m *model) bool { return !m.calls[0].running })
	h.press("2")
	h.contains("Interrupted: the server was restarted before it answered")
	if s := h.screen(); strings.Contains(s, "notifications/cancelled was sent") {
		t.Errorf("the result says the user cancelled the call:\n%s", s)
	}
	h.press("6")
	h.contains("interrupted")
}

// With several servers, the failure view of one that stopped shows its own stderr:
// the Stderr tab's lines are every server's, and the view showed what the others
// wrote after its start as if it were its own (a chatty neighbour would push its
// cause out of the window).
func TestFailureViewShowsOnlyItsServersStderr(t *testing.T) {
	fake := target.Target{Argv: testutil.FakeServer(t, "ndjson")}
	h := newHarnessWith(t, Options{Servers: []workbench.Spec{{Name: "a", Target: fake}, {Name: "b", Target: fake}}, Theme: "dark"}, 120, 40)
	// Each server's own tools in the list, not just some tools: b can be ready with its
	// list not yet in, and a filter typed for b/crash then matches nothing.
	h.until("both servers' tools", func(m *model) bool {
		_, a := m.toolByName("a", "crash")
		_, b := m.toolByName("b", "crash")
		return a && b
	})
	// b dies first and says so on stderr, then a.
	for _, srv := range []string{"b", "a"} {
		h.selectTool(srv + "/crash")
		h.press("enter", "enter")
		h.until(srv+"'s death", func(m *model) bool { return m.server(srv).state() == stateDied })
	}
	h.until("a's stderr in its failure view", func(m *model) bool { return strings.Contains(h.screen(), "crashing now") })
	s := h.screen()
	if !strings.Contains(s, "The server stopped") || !strings.Contains(s, "stderr (2 lines)") || strings.Contains(s, "b │") {
		t.Errorf("a's failure view shows another server's stderr:\n%s", s)
	}
}

// A History re-run is checked against the tool's input schema as it is now, as enter
// in the form is: a call made before the schema changed (an edit, a list_changed)
// went out with arguments the new schema rejects, and came back a tool error. It now
// sends nothing and says why, naming the tool.
func TestHistoryRerunChecksTheSchemaOfNow(t *testing.T) {
	tools := filepath.Join(t.TempDir(), "tools.json")
	writeMailTools(t, tools, mailTools)
	h := newHarness(t, hostTarget(t, "--tools", tools), 120, 40)
	h.until("the tools", func(m *model) bool { return len(m.list.tools) == 2 })
	h.selectTool("send_email")
	h.press("enter")
	h.typeText("ada@example.com")
	h.press("enter")
	h.until("the call", func(m *model) bool { return len(m.calls) == 1 && !m.calls[0].running })

	// The host reloads its tool file: to becomes an integer (tools/list_changed).
	writeMailTools(t, tools+".new", strings.Replace(mailTools, `"to":{"type":"string"}`, `"to":{"type":"integer"}`, 1))
	if err := os.Rename(tools+".new", tools); err != nil {
		t.Fatal(err)
	}
	h.until("the new schema", func(m *model) bool {
		t, ok := m.toolByName(m.srv.name, "send_email")
		return ok && strings.Contains(string(t.InputSchema), "integer")
	})
	h.press("6", "enter")
	h.until("the re-run refused", func(m *model) bool { return strings.Contains(m.notice, "nothing was sent") })
	h.contains("send_email", "/to")
	if n := len(h.m.calls); n != 1 {
		t.Errorf("the re-run sent a call the schema rejects (%d calls)", n)
	}
	// Arguments that still fit are re-run.
	writeMailTools(t, tools+".new", mailTools)
	if err := os.Rename(tools+".new", tools); err != nil {
		t.Fatal(err)
	}
	h.until("the old schema back", func(m *model) bool {
		t, ok := m.toolByName(m.srv.name, "send_email")
		return ok && !strings.Contains(string(t.InputSchema), "integer")
	})
	h.press("enter")
	h.until("the re-run", func(m *model) bool { return len(m.calls) == 2 })
}

// With several servers, the cursor on a server's header makes the screen about that
// server: a failed one's header showed "No tool selected." beside the status bar of
// another server, and ctrl+r offered to restart that other one ("Restart h?").
func TestServerHeaderIsWhatTheScreenIsAbout(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.sh")
	if err := os.WriteFile(bad, []byte("#!/bin/sh\necho cause-first >&2\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, Options{Servers: []workbench.Spec{
		{Name: "h", Target: hostTarget(t)},
		{Name: "bad", Target: target.Target{Argv: []string{bad}}},
	}, Theme: "dark"}, 120, 40)
	h.until("h's tools and bad's failure", func(m *model) bool {
		return m.server("h").state() == stateReady && m.server("bad").state() == stateFailed && len(m.list.tools) > 0
	})
	h.press("end") // bad's header, the last row
	h.until("bad's failure on the screen", func(m *model) bool { return strings.Contains(h.screen(), "cause-first") })
	h.contains("Could not connect")
	h.press("ctrl+r")
	if q := questionOf(h.m); q != nil {
		t.Fatalf("ctrl+r on bad's header asks %q", q.shown())
	}
	h.until("bad restarted", func(m *model) bool { return m.server("bad").gen() >= 2 })
	if g := h.m.server("h").gen(); g != 1 {
		t.Errorf("h was restarted (gen %d)", g)
	}
}

// With several servers, the Tool view's heading names the tool as the list does,
// server/tool: a's greet and b's greet had the same heading, and only the status bar
// said which server a call would go to.
func TestToolHeadingNamesItsServer(t *testing.T) {
	host := hostTarget(t)
	h := newHarnessWith(t, Options{Servers: []workbench.Spec{{Name: "a", Target: host}, {Name: "b", Target: host}}, Theme: "dark"}, 120, 40)
	h.until("both servers' tools", func(m *model) bool {
		return len(m.server("a").tools()) > 0 && len(m.server("b").tools()) > 0 && len(m.list.tools) == len(m.server("a").tools())+len(m.server("b").tools())
	})
	h.selectTool("b/echo")
	h.contains("Echo  b/echo")
	h.selectTool("a/echo")
	h.contains("Echo  a/echo")
}
