package toolfile

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

const testdata = "../testdata"

func TestLoadRejects(t *testing.T) {
	tests := []struct {
		file string
		want []string // substrings of the error
	}{
		{"empty-tools.json", []string{"empty-tools.json", `"tools" array is empty`}},
		{"empty-name.json", []string{"empty-name.json", "tools[0]", `"name" is missing or empty`}},
		{"missing-name.json", []string{"tools[0]", `"name" is missing or empty`}},
		{"repeated-name.json", []string{"repeated-name.json", "tools[1]", `name "a" is already used by tools[0]`}},
		{"schema-not-object.json", []string{"tools[0] (\"a\")", `"inputSchema" must be a JSON object, got an array`}},
		{"schema-not-object-type.json", []string{"tools[0] (\"a\")", `"type": "object"`}},
		{"run-string.json", []string{"tools[0] (\"a\")", `"run" must be an array of strings`, "got a string"}},
		{"run-not-strings.json", []string{"tools[0] (\"a\")", `"run" must be an array of strings`, "the number 42"}},
		{"truncated.json", []string{"truncated.json", "not a JSON object"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := Load(filepath.Join(testdata, "bad", tt.file))
			if err == nil {
				t.Fatal("Load succeeded; want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestParseRejectsMore(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"not an object", `[1,2]`, "not a JSON object"},
		{"no tools key", `{"tool":[]}`, `no "tools" array`},
		{"tools not array", `{"tools":{}}`, `"tools" must be an array, got an object`},
		{"entry not object", `{"tools":["x"]}`, "an entry must be a JSON object, got a string"},
		{"name not string", `{"tools":[{"name":7}]}`, `"name" must be a string, got a number`},
		{"empty run", `{"tools":[{"name":"a","run":[]}]}`, `"run" must name a program`},
		{"bad timeout", `{"tools":[{"name":"a","run":["x"],"timeoutMs":-1}]}`, `"timeoutMs" must be a positive integer`},
		{"bad cap", `{"tools":[{"name":"a","run":["x"],"maxOutputBytes":"big"}]}`, `"maxOutputBytes" must be a positive integer`},
		{"bad annotations", `{"tools":[{"name":"a","annotations":{"readOnlyHint":"yes"}}]}`, `"annotations"`},
		{"invalid schema", `{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"nope"}}}}]}`, "not a valid JSON Schema"},
		{"output schema not object", `{"tools":[{"name":"a","outputSchema":true}]}`, `"outputSchema" must be a JSON object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("tools.json", []byte(tt.json))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "tools.json") {
				t.Fatalf("Parse error = %v; want one naming tools.json and containing %q", err, tt.want)
			}
		})
	}
}

func TestLoadAmberToolsJSON(t *testing.T) {
	f, err := Load(filepath.Join(testdata, "amber-tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Tools) != 2 || f.Tools[0].Name != "read_file" || f.Tools[1].Name != "list_dir" {
		t.Fatalf("tools = %+v", f.Tools)
	}
	tool := f.Tools[0]
	if tool.Run != nil {
		t.Errorf("Run = %q; want nil", tool.Run)
	}
	mt := tool.MCPTool()
	if mt.Description != "Read a file from the workspace." {
		t.Errorf("description = %q", mt.Description)
	}
	res, _, err := tool.Call(t.Context(), json.RawMessage(`{"path":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(resultText(res), `has no "run"`) {
		t.Errorf("result = %+v; want an isError result saying the tool has no run", resultText(res))
	}
}

func loadTools(t *testing.T) map[string]*Tool {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fixtures run /bin/sh")
	}
	f, err := Load(filepath.Join(testdata, "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[string]*Tool)
	for _, tool := range f.Tools {
		m[tool.Name] = tool
	}
	return m
}

func TestCall(t *testing.T) {
	tools := loadTools(t)
	tests := []struct {
		tool    string
		args    string
		isError bool
		want    []string
	}{
		{"greet", `{"name":"Ada"}`, false, []string{`Hello, Ada! (tool greet, stdin {"name":"Ada"})`}},
		{"greet", `{"name":7}`, true, []string{"do not match the inputSchema", "command was not run"}},
		{"greet", `{}`, true, []string{"do not match the inputSchema"}},
		{"literal_args", ``, false, []string{"$HOME; * `id`\n"}},
		{"failing", `{}`, true, []string{"exit status 3", "something broke"}},
		{"sleepy", `{}`, true, []string{"timed out after 200ms"}},
		{"flood", `{}`, true, []string{"more than 1024 bytes"}},
		{"missing_program", `{}`, true, []string{"cannot run", "/nonexistent/mcpscope-test-program"}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			var res *mcp.CallToolResult
			var err error
			testutil.Within(t, "the call of "+tt.tool, func() {
				res, _, err = tools[tt.tool].Call(t.Context(), json.RawMessage(tt.args))
			})
			if err != nil {
				t.Fatal(err)
			}
			got := resultText(res)
			if res.IsError != tt.isError {
				t.Errorf("isError = %v; want %v (text %q)", res.IsError, tt.isError, got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("text %q does not contain %q", got, w)
				}
			}
		})
	}
}

func TestCallJSONResult(t *testing.T) {
	tools := loadTools(t)
	res, _, err := tools["json_result"].Call(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("result = %+v", res)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "from a script" {
		t.Errorf("content[0] = %#v", res.Content[0])
	}
	if rl, ok := res.Content[1].(*mcp.ResourceLink); !ok || rl.URI != "file:///tmp/x" {
		t.Errorf("content[1] = %#v", res.Content[1])
	}
	b, _ := json.Marshal(res.StructuredContent)
	if string(b) != `{"ok":true}` {
		t.Errorf("structuredContent = %s", b)
	}
}

func TestCallTimeoutKillsPromptly(t *testing.T) {
	tools := loadTools(t)
	// sleepy sleeps 600 s past its 200 ms timeout: a call that waited for it would
	// trip the hang guard long before.
	var res *mcp.CallToolResult
	var out Outcome
	var err error
	testutil.Within(t, "a call past its 200ms timeout", func() {
		res, out, err = tools["sleepy"].Call(t.Context(), nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Fatalf("result = %q; want a timeout error", resultText(res))
	}
	if strings.Contains(resultText(res), "never") {
		t.Errorf("the tool ran to its end: %q", resultText(res))
	}
	if out.ExitCode == 0 {
		t.Errorf("exit code 0 after a kill")
	}
}

func TestCallCancelled(t *testing.T) {
	tools := loadTools(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, _, err := tools["sleepy"].Call(ctx, nil)
	if err == nil {
		t.Fatal("a cancelled call returned no error")
	}
}

func TestResultFromStdout(t *testing.T) {
	tests := []struct {
		stdout  string
		isError bool
		text    string
	}{
		{"plain text\n", false, "plain text\n"},
		{`{"not":"a result"}`, false, `{"not":"a result"}`},
		{`{"content":"not an array"}`, false, `{"content":"not an array"}`},
		{`{"content":[{"type":"text","text":"ok"}],"isError":true}`, true, "ok"},
		{`{"content":[{"type":"video","data":"x"}]}`, true, "not a valid tool result"},
	}
	for _, tt := range tests {
		res := resultFromStdout([]byte(tt.stdout))
		if res.IsError != tt.isError || !strings.Contains(resultText(res), tt.text) {
			t.Errorf("resultFromStdout(%q) = isError %v, %q", tt.stdout, res.IsError, resultText(res))
		}
	}
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
