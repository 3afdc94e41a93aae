package main_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// The bundled host (no target): every command of primitives.go.
func TestPrimitiveCommandsOnTheHost(t *testing.T) {
	t.Parallel()
	expect(t, mcpscope(t, nil, "resources"), 0, []string{"mcpscope://demo/readme.md", "text/markdown", "mcpscope://demo/counter", "skill://hello-world/SKILL.md"}, nil)
	expect(t, mcpscope(t, nil, "read", "mcpscope://demo/readme.md"), 0, []string{"# mcpscope bundled host"}, nil)
	expect(t, mcpscope(t, nil, "read", "host/mcpscope://demo/gradient.png"), 0, []string{"[blob 0: image/png, 1.2 KiB]"}, nil)
	expect(t, mcpscope(t, nil, "templates"), 0, []string{"mcpscope://demo/colors/{name}", "name"}, nil)
	expect(t, mcpscope(t, nil, "prompts"), 0, []string{"greet", "name*, language"}, nil)
	expect(t, mcpscope(t, nil, "prompt", "greet", "name=Ada", "language=fr"), 0, []string{"── user ──", `Please greet Ada in the language "fr".`, "── assistant ──"}, nil)
	expect(t, mcpscope(t, nil, "prompt", "greet"), 2, nil, []string{`prompt "greet" needs name`})
	expect(t, mcpscope(t, nil, "prompt", "nosuch"), 2, nil, []string{`the server has no prompt "nosuch"; it has: greet, summarize`})
	expect(t, mcpscope(t, nil, "complete", "--template", "mcpscope://demo/colors/{name}", "name=te"), 0, []string{"teal"}, nil)
	expect(t, mcpscope(t, nil, "complete", "--prompt", "greet", "language=e", "name=Ada"), 0, []string{"en\nes\n"}, nil)
	expect(t, mcpscope(t, nil, "complete", "--template", "mcpscope://demo/colors/{name}", "nope"), 2, nil, []string{`has no variable "nope"; it has: name`})
	expect(t, mcpscope(t, nil, "skills"), 0, []string{"3 skills", "skill://colour-names/SKILL.md", "Names a colour from its hex code"}, nil)
	expect(t, mcpscope(t, nil, "skill", "hello-world"), 0, []string{"name: hello-world", "skill://hello-world/scripts/hello.sh", "digest and size match"}, nil)
	expect(t, mcpscope(t, nil, "ping", "--protocol", "2025-11-25"), 0, []string{"pong"}, nil)
	expect(t, mcpscope(t, nil, "ping"), 0, []string{"pong: server/discover answered in "}, nil)
	expect(t, mcpscope(t, nil, "call", "sample", "messages=1000", "--sampling-reply", "a canned reply"), 0, []string{"The model replied: a canned reply"}, []string{"1000 messages, maxTokens 200"})
	expect(t, mcpscope(t, nil, "call", "sample", "--protocol", "2025-11-25", "--sampling-reply", "old era"), 0, []string{"The model replied: old era"}, nil)
	expect(t, mcpscope(t, nil, "call", "research", "topic=go", "delayMs=20", "--task"), 0, []string{"Report on go: 4 stages done."}, []string{" working: ", "completed: done"})
	expect(t, mcpscope(t, nil, "call", "research", "topic=old", "delayMs=20", "--protocol", "2025-11-25"), 0, []string{"Report on old"}, []string{"completed: done"})
	expect(t, mcpscope(t, nil, "call", "research", "topic=slow", "delayMs=5000", "--timeout", "500ms", "--protocol", "2025-11-25"), 1, nil, []string{`task for tool "research" did not finish`})
	expect(t, mcpscope(t, nil, "call", "echo", "text=x", "--task"), 2, nil, []string{`tool "echo" does not support tasks`})
	dir := t.TempDir()
	expect(t, mcpscope(t, nil, "call", "roots", "--root", dir), 0, []string{"file://" + filepath.ToSlash(dir)}, nil)
	expect(t, mcpscope(t, nil, "call", "roots", "--root", filepath.Join(dir, "missing")), 2, nil, []string{"not a directory"})
	answers := filepath.Join(dir, "answers.json")
	if err := os.WriteFile(answers, []byte(`{"name":"Ada"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	expect(t, mcpscope(t, nil, "call", "ask", "--elicit", "accept", "--elicit-answers", "@"+answers), 0, []string{"Hello, Ada!"}, nil)
	expect(t, mcpscope(t, nil, "call", "ask", "--elicit", "decline"), 0, []string{"You declined to answer."}, nil)

	// --inspect: the new lists in every format, and JSON always has problems.
	r := mcpscope(t, nil, "--inspect", "--format", "json")
	expect(t, r, 0, nil, nil)
	var report map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"problems": `["deprecated: logging: the server declares the logging capability; deprecated by 2026-07-28 (SEP-2577)"]`, "extensions": `["io.modelcontextprotocol/skills","io.modelcontextprotocol/tasks"]`, "formatVersion": "1"} {
		var v any
		_ = json.Unmarshal(report[key], &v)
		got, _ := json.Marshal(v)
		if string(got) != want {
			t.Errorf("--inspect JSON %s = %s, want %s", key, got, want)
		}
	}
	for _, key := range []string{"resources", "resourceTemplates", "prompts", "skills"} {
		var items []any
		if json.Unmarshal(report[key], &items) != nil || len(items) == 0 {
			t.Errorf("--inspect JSON %s = %s, want a non-empty array", key, report[key])
		}
	}
	expect(t, mcpscope(t, nil, "--inspect"), 0, []string{"resource templates", "2 prompts", "3 skills", "extensions    io.modelcontextprotocol/skills"}, nil)
	expect(t, mcpscope(t, nil, "--inspect", "--format", "markdown"), 0, []string{"## Resources (", "## Prompts (2)", "## Skills (3)"}, nil)
}

// A server that misbehaves: each failure is one clear message and its exit code.
func TestPrimitiveCommandsBadInput(t *testing.T) {
	t.Parallel()
	expect(t, fake(t, "primitives", "resources"), 0, []string{"fake://odd"}, []string{`resource "fake://ok": name is a number, not a string`, "resources[2] is not an object"})
	expect(t, fake(t, "primitives", "read", "fake://odd"), 1, []string{`[contents 0 of an unknown shape: {"uri":"fake://odd","video":"AAAA"}]`}, []string{"neither text nor blob (members: video)"})
	expect(t, fake(t, "primitives", "templates"), 0, []string{"(does not parse)"}, []string{`the URI template "fake://items/{id" does not parse`})
	expect(t, fake(t, "primitives", "complete", "--template", "fake://items/{id", "id"), 2, nil, []string{"does not parse"})
	expect(t, fake(t, "primitives", "complete", "--template", "fake://items/{id}", "id=a", "--timeout", "500ms"), 1, nil, []string{"completion/complete did not finish within 500ms (--timeout)"})
	r := fake(t, "primitives", "call", "forever", "--timeout", "500ms", "--timeout-cap", "2s")
	expect(t, r, 1, nil, []string{"task t-forever working: still thinking", `task for tool "forever" did not finish within 500ms`})
	expect(t, fake(t, "primitives", "tasks", "--format", "json"), 0, []string{`"taskId": "t-forever"`, `"problems": []`}, nil)
	r = fake(t, "primitives", "call", "needs_input")
	expect(t, r, 1, nil, []string{"the server needs input to go on (elicitation/create), which was not given"})
	if strings.Contains(r.stdout, "no content") {
		t.Errorf("an input_required result was printed as no content:\n%s", r.stdout)
	}
}

// server-everything over stdio: resources, a template, a prompt with completion,
// simulate-research-query as a task (its status on stderr, its elicitation answered),
// and the sampling and roots tools once declared.
func TestPrimitiveCommandsEverything(t *testing.T) {
	t.Parallel()
	expect(t, everything(t, "resources"), 0, []string{"7 resources", "demo://resource/static/document/architecture.md"}, nil)
	expect(t, everything(t, "read", "demo://resource/static/document/architecture.md"), 0, []string{"Architecture"}, nil)
	expect(t, everything(t, "templates"), 0, []string{"demo://resource/dynamic/text/{resourceId}"}, nil)
	// The blob's size follows the server's clock ("created at 1:05:55 PM" is a byte
	// shorter than "12:05:55 PM"): the test asserts the description, not the count.
	expect(t, everything(t, "read", "demo://resource/dynamic/blob/1"), 0, []string{"[blob 0: text/plain, "}, nil)
	expect(t, everything(t, "complete", "--prompt", "completable-prompt", "name=", "department=Engineering"), 0, []string{"Alice"}, nil)
	expect(t, everything(t, "prompt", "args-prompt", "city=Paris"), 0, []string{"Paris"}, nil)
	expect(t, everything(t, "call", "simulate-research-query", "topic=go"), 0, []string{"# Research Report: go"}, []string{"working: Gathering sources", "completed"})
	expect(t, everything(t, "call", "simulate-research-query", "topic=go", "ambiguous=true", "--elicit", "accept", "--elicit-answers", `{"interpretation":"technical"}`), 0,
		[]string{"# Research Report: go"}, []string{"input_required", "completed"})
	expect(t, everything(t, "call", "trigger-sampling-request", "prompt=hi", "--sampling-reply", "sampled!"), 0, []string{`"text": "sampled!"`}, nil)
	dir := t.TempDir()
	expect(t, everything(t, "call", "get-roots-list", "--root", dir), 0, []string{"file://" + filepath.ToSlash(dir)}, nil)
	// URL-mode elicitation: the URL is shown in full and opened with $BROWSER.
	opened := filepath.Join(dir, "opened")
	browser := filepath.Join(dir, "browser.sh")
	testutil.WriteExecutable(t, browser, "#!/bin/sh\necho \"$1\" > "+opened+"\n")
	argv := append([]string{"call", "trigger-url-elicitation", "url=https://example.com/consent?x=1", "message=Consent please", "--elicit", "accept", "--"}, testutil.Everything(t)...)
	r := mcpscope(t, []string{"BROWSER=" + browser}, argv...)
	expect(t, r, 0, nil, []string{"https://example.com/consent?x=1"})
	testutil.WaitFile(t, opened, "https://example.com/consent?x=1")
}

// Over Streamable HTTP, server-everything in the 2025 era and the TypeScript SDK v2
// server in the 2026-07-28 era.
func TestPrimitiveCommandsHTTP(t *testing.T) {
	t.Parallel()
	ev := "http://" + testutil.EverythingHTTP(t, "streamableHttp").Addr + "/mcp"
	expect(t, mcpscope(t, nil, "resources", ev), 0, []string{"demo://resource/static/document/architecture.md"}, nil)
	expect(t, mcpscope(t, nil, "call", "simulate-research-query", "topic=http", ev), 0, []string{"# Research Report: http"}, []string{"completed"})
	expect(t, mcpscope(t, nil, "complete", "--prompt", "completable-prompt", "department=Eng", ev), 0, []string{"Engineering"}, nil)

	ts := "http://" + testutil.StartNode(t, "ts-server.mjs").Addr + "/mcp"
	r := mcpscope(t, nil, "--inspect", "--format", "json", ts)
	expect(t, r, 0, []string{`"protocolVersion": "2026-07-28"`, `"uriTemplate": "ts://fruit/{name}"`, `"name": "taste"`}, nil)
	expect(t, mcpscope(t, nil, "complete", "--template", "ts://fruit/{name}", "name=ap", ts), 0, []string{"apple\napricot\n"}, nil)
	expect(t, mcpscope(t, nil, "complete", "--prompt", "taste", "fruit=b", ts), 0, []string{"banana"}, nil)
	expect(t, mcpscope(t, nil, "prompt", "taste", "fruit=cherry", ts), 0, []string{"How does cherry taste?"}, nil)
	expect(t, mcpscope(t, nil, "read", "ts://fruit/apple", ts), 0, []string{"fruit: apple"}, nil)
}

// read --save-dir writes each contents item: a blob's bytes (the host's PNG, the same
// bytes --format json carries as base64), a text as it is, named after the URI with
// its own extension; the path is said; a --save-dir that is a file is refused.
func TestReadSaveDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out")
	expect(t, mcpscope(t, nil, "read", "mcpscope://demo/gradient.png", "--save-dir", dir), 0,
		[]string{"[blob 0: image/png, 1.2 KiB, saved to " + filepath.Join(dir, "gradient-1.png") + "]"}, nil)
	r := mcpscope(t, nil, "read", "mcpscope://demo/gradient.png", "--format", "json")
	var doc struct {
		Contents []struct {
			Blob string `json:"blob"`
		} `json:"contents"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Contents) != 1 {
		t.Fatalf("read --format json: %v\n%s", err, r.stdout)
	}
	want, err := base64.StdEncoding.DecodeString(doc.Contents[0].Blob)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "gradient-1.png")); err != nil || !bytes.Equal(got, want) {
		t.Errorf("the saved PNG (%v) is not the blob's %d bytes", err, len(want))
	}

	expect(t, mcpscope(t, nil, "read", "mcpscope://demo/readme.md", "--save-dir", dir), 0,
		[]string{"# mcpscope bundled host"}, []string{"mcpscope: saved mcpscope://demo/readme.md (text/markdown) to " + filepath.Join(dir, "readme-1.md")})
	if b, err := os.ReadFile(filepath.Join(dir, "readme-1.md")); err != nil || !strings.HasPrefix(string(b), "# mcpscope bundled host") {
		t.Errorf("the saved text: %v %q", err, b)
	}
	expect(t, mcpscope(t, nil, "read", "skill://hello-world/scripts/hello.sh", "--save-dir", dir), 0, nil,
		[]string{"to " + filepath.Join(dir, "hello-1.sh")})

	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, nil, 0o600)
	expect(t, mcpscope(t, nil, "read", "mcpscope://demo/readme.md", "--save-dir", file), 2, nil, []string{"--save-dir " + file + " is not a directory"})
}

// call --log-level prints the server's log messages at that level and above on
// stderr, one line each, in both eras (logging/setLevel in 2025, each request's _meta
// in 2026-07-28); without it a call prints none; a level that is none is refused.
func TestCallLogLevel(t *testing.T) {
	t.Parallel()
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		r := mcpscope(t, nil, "call", "log", "--log-level", "warning", "--protocol", protocol)
		expect(t, r, 0, []string{"sent 8 log messages"}, []string{
			`mcpscope: log warning [demo]: {"level":"warning","message":"a message at level warning from the log tool"}`,
			"mcpscope: log emergency [demo]: ",
		})
		if strings.Contains(r.stderr, "log notice") || strings.Contains(r.stderr, "log info") {
			t.Errorf("%s: messages below warning were printed:\n%s", protocol, r.stderr)
		}
	}
	if r := mcpscope(t, nil, "call", "log"); strings.Contains(r.stderr, "mcpscope: log ") {
		t.Errorf("without --log-level the logs were printed:\n%s", r.stderr)
	}
	expect(t, mcpscope(t, nil, "call", "log", "--log-level", "loud"), 2, nil, []string{`--log-level "loud": use one of debug, info, notice, warning, error, critical, alert, emergency`})
}
