package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/target"
)

// bigObjectSchema is an object schema of n string fields, "Field 0" to "Field n-1".
func bigObjectSchema(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"field%d":{"type":"string","title":"Field %d","minLength":1}`, i, i)
	}
	b.WriteString(`}}`)
	return json.RawMessage(b.String())
}

// hold gives msg to Update as Bubble Tea would, but returns the command instead of
// running it: the test decides when its answer arrives, so it can press keys first.
func (h *harness) hold(msg tea.Msg) tea.Cmd {
	h.updates++
	_, cmd := h.m.Update(msg)
	return cmd
}

// release runs a held command to its end here and gives its messages to Update
// (what they start runs as usual).
func (h *harness) release(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		for _, c := range batch {
			h.release(c)
		}
		return
	}
	if msg == nil || isTick(msg) {
		return
	}
	h.update(msg)
}

// A 20,000-field elicitation never blocks a keystroke: its form is built, and the
// accepted answer checked against its schema, in commands; a key pressed before
// their answers arrive is handled (its effect is on the screen) first. Before, both
// ran in Update (about a second to build, seconds to validate under load) and the
// answer went out from Update itself. The user then declines while the check is
// still running: the decline goes out. (The check itself is left unrun here: at this size it costs most of a minute
// under -race; TestBigElicitationCheckedInACommandIsSent runs one to its end.)
func TestHugeElicitationNeverBlocksAKey(t *testing.T) {
	h := ready(t, 120, 40)
	reply := make(chan client.ElicitResponse, 1)
	build := h.hold(elicitMsg{id: -2, server: "bundled host", reply: reply,
		req: client.ElicitRequest{Message: "Twenty thousand fields, please", Schema: bigObjectSchema(20000)}})
	h.contains("Twenty thousand fields, please")
	h.release(build) // the form arrives
	h.contains("Field 0")
	h.typeText("Ada")
	h.contains("Ada")

	check := h.hold(keyMsg("enter")) // accept: the check is held
	if check == nil {
		t.Fatal("accepting a 20,000-field answer started no command: it was checked in Update")
	}
	select {
	case r := <-reply:
		t.Fatalf("the answer (%s) went out from Update: it was validated on the UI goroutine", r.Action)
	default:
	}
	before := h.screen()
	h.press("pgdown")
	if after := h.screen(); after == before {
		t.Fatalf("pgdn did nothing while the answer was checked:\n%s", after)
	}
	h.press("ctrl+x")
	h.until("the decline sent", func(*model) bool { return len(reply) == 1 })
	if r := <-reply; r.Action != "decline" {
		t.Fatalf("answered %s %s after a decline", r.Action, r.Content)
	}
	h.until("the dialog closed", func(m *model) bool { return elicitOf(m) == nil })
}

// An answer too big to check at once (a schema over the quick-check size) is checked
// in a command, and the check's answer sends it: accept, with what was typed.
func TestBigElicitationCheckedInACommandIsSent(t *testing.T) {
	h := ready(t, 120, 40)
	reply := make(chan client.ElicitResponse, 1)
	build := h.hold(elicitMsg{id: -2, server: "bundled host", reply: reply,
		req: client.ElicitRequest{Message: "Two thousand fields, please", Schema: bigObjectSchema(2000)}})
	h.release(build)
	h.contains("Field 0")
	h.typeText("Ada")
	h.contains("Ada")
	check := h.hold(keyMsg("enter"))
	if check == nil {
		t.Fatal("accepting a 2,000-field answer started no command: it was checked in Update")
	}
	if len(reply) != 0 {
		t.Fatal("the answer went out from Update: it was validated on the UI goroutine")
	}
	h.release(check)
	h.until("the answer sent", func(*model) bool { return len(reply) == 1 })
	if r := <-reply; r.Action != "accept" || !strings.Contains(string(r.Content), `"field0":"Ada"`) {
		t.Fatalf("answered %s %s", r.Action, r.Content)
	}
	h.until("the dialog closed", func(m *model) bool { return elicitOf(m) == nil })
}

// A decline while the accepted answer is being checked wins: the check's late
// answer sends nothing more (the server gets one answer).
func TestDeclineDuringTheCheckWins(t *testing.T) {
	h := ready(t, 120, 40)
	reply := make(chan client.ElicitResponse, 2)
	build := h.hold(elicitMsg{id: -2, server: "bundled host", reply: reply,
		req: client.ElicitRequest{Message: "Two thousand fields, please", Schema: bigObjectSchema(2000)}})
	h.release(build)
	h.typeText("Ada")
	h.contains("Ada")
	check := h.hold(keyMsg("enter"))
	h.press("ctrl+x")
	h.until("the decline sent", func(*model) bool { return len(reply) == 1 })
	h.release(check)
	h.press("1") // one more round through Update after the late answer
	if r := <-reply; r.Action != "decline" || len(reply) != 0 {
		t.Fatalf("answered %s, then %d more", r.Action, len(reply))
	}
}

// Opening the form of a tool whose input schema is huge (480 KiB) never blocks a
// keystroke either: the form is built in a command, the Tool view says so, and a
// key pressed before it arrives is handled first. Before, form.New ran in Update.
func TestHugeToolSchemaFormIsBuiltOffUpdate(t *testing.T) {
	// The host serves the huge tool (the tool list is the workbench's: the screen
	// shows what the server listed).
	file := filepath.Join(t.TempDir(), "tools.json")
	tools := `{"tools":[{"name":"aaa","description":"a small tool","inputSchema":{"type":"object"},"run":["/bin/echo","hi"]},` +
		`{"name":"zzz_huge","description":"takes eight thousand arguments","inputSchema":` + string(bigObjectSchema(8000)) + `,"run":["/bin/echo","hi"]}]}`
	if err := os.WriteFile(file, []byte(tools), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, target.Target{Argv: []string{testutil.Mcpscope(t), "host", "--tools", file}}, 120, 40)
	h.until("the huge tool listed", func(m *model) bool { return len(m.list.tools) == 2 && h.caughtUp(m) })
	h.contains("zzz_huge")
	if h.m.formTool == "zzz_huge" {
		t.Fatal("the huge tool is selected before the test selects it")
	}
	build := h.hold(keyMsg("G")) // the last tool: its form is held
	h.contains("zzz_huge", "building the form")
	h.press("3")
	h.contains("tools/list #") // Traffic, drawn before the form arrived
	h.release(build)
	h.press("1")
	h.contains("zzz_huge", "Field 0")
}

// buildForm finishes the build of a big schema's form that syncForm started, for
// tests that set a model up without Update.
func buildForm(m *model) {
	if b := m.building; b != nil {
		m.onFormBuilt(b.cmd()().(formBuiltMsg))
	}
}
