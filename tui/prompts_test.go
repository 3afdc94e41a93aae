package tui

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/host"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// sentWith counts the frames the client sent whose method is method and whose bytes
// hold every one of parts.
func sentWith(m *model, method string, parts ...string) int {
	n := 0
	if m.traffic.entries == nil {
		return 0 // no frame has reached the model yet
	}
	for i := 0; i < m.traffic.entries.Len(); i++ {
		e := m.traffic.entries.At(i)
		sum := e.summary
		if _, rest, ok := strings.Cut(sum, " │ "); ok {
			sum = rest // several servers: "server │ method …"
		}
		if e.e.Dir != "send" || !(sum == method || strings.HasPrefix(sum, method+" ")) {
			continue
		}
		all := true
		for _, p := range parts {
			all = all && strings.Contains(string(e.e.Data), p)
		}
		if all {
			n++
		}
	}
	return n
}

func screenHas(h *harness, want ...string) func(*model) bool {
	return func(*model) bool {
		s := h.screen()
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	}
}

// A user opens the Prompts tab, filters to a prompt, fills its required argument,
// takes a completion for the next one from the pick list, and gets the prompt.
func TestPromptWithCompletion(t *testing.T) {
	t.Parallel()
	h := ready(t, 120, 40)
	h.press("9")
	h.until("the host's prompts", screenHas(h, "greet", "summarize", "Summarize text"))
	h.contains("9 Prompts")
	h.press("/")
	h.typeText("summ")
	h.press("enter")
	h.contains("Asks the model to summarize", "text*")
	h.press("enter")
	h.until("the form", screenHas(h, "Arguments", "enter gets the prompt"))
	h.typeText("hello world")
	h.press("tab")
	// The style field offers its values before anything is typed, asked with the
	// text already filled in as context.arguments.
	h.until("the style values", screenHas(h, "brief", "detailed", "bullets", "↓/↑ pick"))
	h.until("the traffic so far", h.caughtUp)
	if n := sentWith(h.m, "completion/complete", `"name":"style"`, `"context":{"arguments":{"text":"hello world"}}`); n == 0 {
		t.Errorf("no completion/complete for style carried the text as context.arguments")
	}
	h.typeText("d")
	h.until("the narrowed values", func(m *model) bool {
		f := m.prompts.open.form.fields[1]
		return len(f.values) == 1 && f.values[0] == "detailed" && strings.Contains(h.screen(), "  detailed")
	})
	h.press("down", "enter")
	h.until("the picked value", screenHas(h, "Style (style)  detailed"))
	h.press("enter")
	h.until("the messages", screenHas(h, "── prompts/get", "── [1] user", "Summarize the following text (detailed):", "hello world"))
	h.until("the traffic so far", h.caughtUp)
	if n := sentWith(h.m, "prompts/get", `"name":"summarize"`, `"style":"detailed"`, `"text":"hello world"`); n != 1 {
		t.Errorf("prompts/get with both arguments sent %d times, want 1", n)
	}
	// esc returns to the list; enter on it opens the form as it was left.
	h.press("esc", "esc")
	h.until("the list", screenHas(h, "enter opens"))
	h.press("enter")
	h.until("the form kept", screenHas(h, "hello world", "detailed"))
}

// A required argument left empty is named, and nothing is sent.
func TestPromptRequiredArgument(t *testing.T) {
	t.Parallel()
	h := ready(t, 120, 40)
	h.press("9")
	h.until("the host's prompts", screenHas(h, "greet"))
	h.press("/")
	h.typeText("greet")
	h.press("enter", "enter")
	h.until("the form", screenHas(h, "Arguments"))
	h.press("enter")
	h.contains("fill in the required argument: name")
	h.until("the traffic so far", h.caughtUp)
	if n := sentWith(h.m, "prompts/get"); n != 0 {
		t.Errorf("prompts/get sent %d times with a required argument missing", n)
	}
	h.typeText("Ada")
	h.press("tab")
	h.until("the language values", screenHas(h, "de", "ja"))
	h.typeText("f")
	h.until("fr alone", func(m *model) bool {
		f := m.prompts.open.form.fields[1]
		return len(f.values) == 1 && f.values[0] == "fr"
	})
	h.press("enter") // no value picked: enter gets the prompt with "f" as typed
	h.until("two messages", screenHas(h, "── [1] user", "── [2] assistant", `Please greet Ada in the language "f".`, "Sure. Here is a friendly greeting:"))
}

// An answer to an older question (the user typed on meanwhile) is dropped.
func TestCompletionStaleAnswerDropped(t *testing.T) {
	f := newArgForm("main", client.CompletionRef{Type: "ref/prompt", Name: "p"}, []argField{{Name: "a"}}, true, "gets the prompt")
	f.open()
	old := f.seq
	f.insert("x") // a newer edit
	f.onDone(completeDoneMsg{form: f, seq: old, field: 0, c: &client.Completion{Values: []string{"stale"}}})
	if len(f.fields[0].values) != 0 {
		t.Fatalf("a stale answer was shown: %v", f.fields[0].values)
	}
	f.onDone(completeDoneMsg{form: f, seq: f.seq, field: 0, c: &client.Completion{Values: []string{"fresh"}}})
	if got := f.fields[0].values; len(got) != 1 || got[0] != "fresh" {
		t.Fatalf("the current answer was not shown: %v", got)
	}
}

// answerAskFirst gets the prompt ask_first, answers its question with "Ada" and waits
// for the messages that name her.
func answerAskFirst(h *harness) {
	h.t.Helper()
	h.press("9")
	h.until("the prompt", screenHas(h, "ask_first"))
	h.press("enter")
	h.until("the form", screenHas(h, "(no arguments)"))
	h.press("enter")
	h.until("the question", screenHas(h, "The server asks for input", "Who is asking for this prompt?"))
	h.typeText("Ada")
	h.press("enter")
	h.until("the messages", screenHas(h, "── [1] user", "The user's name is Ada."))
}

// The server asks for input while prompts/get runs: the dialog comes as for a tool
// call, and the prompt's messages follow the answer. list_changed refreshes the list.
func TestPromptElicitationAndListChanged(t *testing.T) {
	t.Parallel()
	h := newHarness(t, target.Target{Argv: testutil.FakeServer(t, "skills")}, 120, 40)
	h.until("connected", func(m *model) bool { return len(m.list.tools) > 0 })
	answerAskFirst(h)

	// A tool adds a prompt and sends notifications/prompts/list_changed.
	h.press("esc")
	h.press("tab") // to the tool list
	h.selectTool("add_prompt")
	h.press("enter", "enter")
	h.until("the tool's result", screenHas(h, "added the prompt added_later"))
	h.press("9")
	h.until("the new prompt", screenHas(h, "added_later", "ask_first"))
	h.contains("prompts changed; list refreshed")
}

// Skills: listed with their frontmatter; nothing read before a skill is opened;
// opening one reads SKILL.md alone and lists its files; opening a file reads it,
// checked against the listing.
func TestSkillsBundledHost(t *testing.T) {
	t.Parallel()
	h := ready(t, 160, 40)
	h.press(":")
	h.typeText("skills")
	h.press("enter")
	h.until("the skills", screenHas(h, "9 Prompts  Skills", "hello-world", "Greets the world in a shell script", "colour-names"))
	h.contains("description: Greets the world", "files (2)", "skill://hello-world/scripts/hello.sh")
	h.until("the traffic so far", h.caughtUp)
	if n := sentWith(h.m, "resources/read"); n != 0 {
		t.Fatalf("%d resources/read before a skill was opened", n)
	}
	h.press("enter")
	h.until("SKILL.md", screenHas(h, "# Hello, world", "✓ size and digest match the listing", "scripts/hello.sh"))
	h.until("the traffic so far", h.caughtUp)
	if n := sentWith(h.m, "resources/read"); n != 1 {
		t.Fatalf("opening the skill sent %d resources/read, want 1 (SKILL.md)", n)
	}
	h.press("down", "enter")
	h.until("the script", screenHas(h, "echo 'Hello, world!'", "skill://hello-world/scripts/hello.sh"))
	h.until("the traffic so far", h.caughtUp)
	if n := sentWith(h.m, "resources/read", "skill://hello-world/scripts/hello.sh"); n != 1 {
		t.Fatalf("the file was read %d times, want 1", n)
	}
}

// A file that fails its digest, or its size, is an error in the view, its content
// not shown.
func TestSkillFileFailsItsDigest(t *testing.T) {
	t.Parallel()
	h := newHarness(t, target.Target{Argv: testutil.FakeServer(t, "skills")}, 160, 40)
	h.until("connected", func(m *model) bool { return len(m.list.tools) > 0 })
	h.contains("9 Prompts  Skills") // on the tab bar: the server declares the extension
	for i := 0; i < int(tabCount) && h.m.tab != tabSkills; i++ {
		h.press("]")
	}
	h.press("tab") // ] changes the tab; tab gives it the keys
	h.until("the skills", screenHas(h, "fine", "tampered", "resized"))
	h.press("down", "enter")
	h.until("tampered's SKILL.md", screenHas(h, "notes.md", "✓ size and digest match"))
	h.press("down", "enter")
	h.until("the refusal", screenHas(h, "✗ verification failed", "its digest is", "listing says"))
	if strings.Contains(h.screen(), "These notes were changed") {
		t.Error("the content of a file that failed its digest is shown")
	}
	h.press("down", "enter") // resized
	h.until("resized's SKILL.md", screenHas(h, "data.txt"))
	h.press("down", "enter")
	h.until("the size refusal", screenHas(h, "✗ verification failed", "it is 12 bytes, the listing says 99"))
}

// With several servers the prompts are grouped under a header per server, each
// prompt goes to its own server, and a skill opens on its own server.
func TestPromptsAndSkillsOfSeveralServers(t *testing.T) {
	t.Parallel()
	specs := []workbench.Spec{
		{Name: "host", Target: hostTarget(t)},
		{Name: "fake", Target: target.Target{Argv: testutil.FakeServer(t, "skills")}},
	}
	h := newHarnessWith(t, Options{Servers: specs, Theme: "dark"}, 160, 40)
	h.until("both connected", func(m *model) bool {
		return len(m.servers) == 2 && m.servers[0].state() == stateReady && m.servers[1].state() == stateReady && len(m.list.tools) > 20
	})
	h.press("9")
	h.until("both servers' prompts", screenHas(h, "▾ host", "▾ fake", "greet", "ask_first"))
	h.press("/")
	h.typeText("fake/ask")
	h.press("enter")
	h.until("one prompt", func(m *model) bool {
		e, ok := m.prompts.selected()
		return ok && e.p.Name == "ask_first" && e.server == "fake"
	})
	h.press("enter")
	h.until("its form, named server/prompt", screenHas(h, "fake/ask_first", "(no arguments)"))
	h.press("enter")
	h.until("the question", screenHas(h, "Who is asking for this prompt?"))
	h.press("esc") // cancel the question
	h.until("the answer to a cancel", screenHas(h, "You canceled."))

	h.press(":")
	h.typeText("skills")
	h.press("enter")
	h.until("both servers' skills", screenHas(h, "▾ host", "▾ fake", "hello-world", "tampered"))
	// The first row is host's first skill; fake's come after host's three.
	h.press("g", "down", "down", "down", "down", "enter")
	h.until("fake's tampered skill opened", screenHas(h, "skill://tampered/SKILL.md", "✓ size and digest match"))
	h.until("the traffic so far", h.caughtUp)
	if n := sentWith(h.m, "resources/read", "skill://tampered/SKILL.md"); n != 1 {
		t.Errorf("tampered's SKILL.md read %d times", n)
	}
}

// A completion that never answers: typing goes on at once, each new pause asks
// again (the older question abandoned), and the field says the server did not answer.
func TestCompletionNeverAnswers(t *testing.T) {
	t.Parallel()
	h := newHarness(t, target.Target{Argv: testutil.FakeServer(t, "skills")}, 120, 40)
	h.until("connected", func(m *model) bool { return len(m.list.tools) > 0 })
	h.press("9")
	h.until("the prompt", screenHas(h, "slow_complete"))
	h.press("/")
	h.typeText("slow")
	h.press("enter", "enter")
	h.until("the form", screenHas(h, "topic*"))
	h.m.prompts.open.form.timeout = time.Second // setup: a short wait for the silent server
	h.typeText("ab")
	h.contains("topic* ab") // shown at once, with no answer from the server
	h.until("a first question", func(m *model) bool { return sentWith(m, "completion/complete", `"value":"ab"`) == 1 })
	h.typeText("c")
	h.contains("topic* abc")
	h.until("the note", screenHas(h, "completion: no answer within"))
	h.until("the traffic so far", h.caughtUp)
	if n := sentWith(h.m, "completion/complete", `"value":"abc"`); n != 1 {
		t.Errorf("completion/complete for abc sent %d times, want 1", n)
	}
	h.press("enter")
	h.until("the prompt as typed", screenHas(h, "Topic: abc"))
}

// fastmcp (npm) completes a prompt argument from its enum: the values are offered
// before anything is typed and narrow as the user types.
func TestPromptEnumArgumentFastMCP(t *testing.T) {
	t.Parallel()
	h := newHarness(t, target.Target{Argv: testutil.FastMCP(t)}, 120, 40)
	h.until("connected", func(m *model) bool { return len(m.list.tools) > 0 })
	h.press("9")
	h.until("the prompt", screenHas(h, "commit_message", "kind*"))
	h.press("enter")
	h.until("the enum's values offered", screenHas(h, "  feat", "  fix", "  docs", "  chore"))
	h.typeText("d")
	h.until("docs alone", func(m *model) bool { v := m.prompts.open.form.fields[0].values; return len(v) == 1 && v[0] == "docs" })
	h.press("down", "enter", "tab")
	h.typeText("the README")
	h.press("enter")
	h.until("the message", screenHas(h, "── [1] user", "Write a docs commit message about: the README"))
}

// ctrl+s saves the messages' blocks and the raw result; an embedded resource and
// an image from server-everything's resource-prompt are drawn as the Result tab
// draws them, with the Prompts tab's own hints.
func TestPromptSaveServerEverything(t *testing.T) {
	t.Parallel()
	h := newHarness(t, target.Target{Argv: testutil.Everything(t)}, 120, 40)
	h.m.opts.SaveDir = t.TempDir()
	h.until("connected", func(m *model) bool { return len(m.list.tools) > 0 })
	h.press("9")
	h.until("the prompts", screenHas(h, "resource-prompt"))
	h.press("/")
	h.typeText("resource-prompt")
	h.press("enter", "enter")
	h.until("the form", screenHas(h, "resourceType*"))
	h.typeText("Text")
	h.press("tab")
	h.typeText("1")
	h.press("enter")
	h.until("the messages", screenHas(h, "── [1] user", "── [2] user resource"))
	if strings.Contains(h.screen(), "o reads the linked resource") {
		t.Error("the Result tab's o hint is shown where o does nothing")
	}
	h.press("ctrl+s")
	h.until("the save", screenHas(h, "saved 2 blocks and result.json to"))
	files, _ := filepath.Glob(filepath.Join(h.m.opts.SaveDir, "mcpscope-prompt-*", "*"))
	if len(files) != 3 {
		t.Fatalf("saved files: %v", files)
	}
}

// The same question on 2026-07-28, where a server asks by answering prompts/get with
// input_required and the client retries with inputResponses: an SDK server over
// stateless HTTP in this process. The user sees the same dialog, and the retry
// carries the answer.
func TestPromptElicitation2026(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "asks-in-prompts", Version: "1"}, nil)
	s.AddPrompt(&mcp.Prompt{Name: "ask_first", Description: "asks who is asking"}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if len(req.Params.InputResponses) == 0 {
			return &mcp.GetPromptResult{
				InputRequests: mcp.InputRequestMap{"who": &mcp.ElicitParams{Mode: "form", Message: "Who is asking for this prompt?",
					RequestedSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"name": {Type: "string"}}, Required: []string{"name"}}}},
				RequestState: "asked",
			}, nil
		}
		er, ok := req.Params.InputResponses["who"].(*mcp.ElicitResult)
		if !ok || req.Params.RequestState != "asked" || er.Action != "accept" {
			return nil, fmt.Errorf("the retry carried %+v with state %q", req.Params.InputResponses, req.Params.RequestState)
		}
		name, _ := er.Content["name"].(string)
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "The user's name is " + name + "."}}}}, nil
	})
	srv := httptest.NewServer(host.NewHTTPHandler(s, host.HTTPOptions{}))
	// Closed after the harness (cleanups run last first): it waits for the client's
	// open subscriptions/listen stream to end.
	t.Cleanup(srv.Close)
	h := newHarness(t, target.Target{URL: srv.URL + "/mcp"}, 120, 40)
	h.until("connected", func(m *model) bool { return m.srv.state() == stateReady })
	if v := h.m.srv.info().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("the session speaks %s, want 2026-07-28", v)
	}
	answerAskFirst(h)
	h.until("the traffic so far", h.caughtUp)
	if n := sentWith(h.m, "prompts/get", `"inputResponses"`, `"requestState":"asked"`); n != 1 {
		t.Errorf("%d prompts/get retries carried the answer and the state, want 1", n)
	}
}

// A prompt's form lives as long as its server lists the prompt with those arguments:
// when the prompt goes (list_changed, a restart), its form goes too, so a prompt that
// comes back opens empty, and forms do not pile up for the session's life. Before,
// the old form came back with what was typed into it.
func TestGonePromptsFormIsEvicted(t *testing.T) {
	h := ready(t, 120, 40)
	h.press("9")
	h.until("the host's prompts", screenHas(h, "greet", "summarize"))
	h.press("/")
	h.typeText("summ")
	h.press("enter", "enter")
	h.until("the form", screenHas(h, "Arguments", "enter gets the prompt"))
	h.typeText("typed before")
	h.contains("typed before")
	h.press("esc", "esc")
	h.until("the list", screenHas(h, "enter opens"))
	l := h.m.prompts.lists[h.m.srv.name]
	all := append([]client.Prompt(nil), l.items...)
	var without []client.Prompt
	for _, p := range all {
		if p.Name != "summarize" {
			without = append(without, p)
		}
	}
	// The server's listing, as prompts/list would answer after list_changed.
	h.update(promptsMsg{server: h.m.srv.name, gen: l.gen, list: &client.List[client.Prompt]{Items: without}})
	for k := range h.m.prompts.forms {
		if strings.Contains(k, "\x00summarize\x00") {
			t.Fatalf("the gone prompt's form is still kept (%q)", k)
		}
	}
	h.update(promptsMsg{server: h.m.srv.name, gen: l.gen, list: &client.List[client.Prompt]{Items: all}})
	h.until("summarize listed again", screenHas(h, "summarize"))
	h.press("/")
	h.typeText("summ")
	h.press("enter", "enter")
	h.until("the form", screenHas(h, "Arguments", "enter gets the prompt"))
	if s := h.screen(); strings.Contains(s, "typed before") {
		t.Fatalf("the prompt that came back opened with the gone one's text:\n%s", s)
	}
}
