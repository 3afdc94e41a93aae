package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// TestInspectShowsCost: --inspect says what the server's definitions cost in a
// model's context, in every format: bytes always, tokens with --tokens (the
// tokenizer is loaded only then); the figures are lint's, and a tool's bytes are its
// name, description and input schema as a host sends them.
func TestInspectShowsCost(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	tools := toolsFile(t, cleanTools)
	host := []string{"--", bin, "host", "--tools", tools}
	inspect := func(args ...string) result {
		return mcpscope(t, nil, append(append([]string{"--inspect"}, args...), host...)...)
	}

	// What lint counts for the same server: the figures --inspect must agree with.
	r := mcpscope(t, []string{"XDG_STATE_HOME=" + t.TempDir()}, append([]string{"lint", "--format", "json", "--fail-on", "none", "--profile", "mcp"}, host...)...)
	var lintDoc struct {
		Servers []struct {
			Total struct{ Bytes, Description, Schema, Tokens int }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &lintDoc); err != nil || len(lintDoc.Servers) != 1 {
		t.Fatalf("lint json: %v\n%s\n%s", err, r.stdout, r.stderr)
	}
	total := lintDoc.Servers[0].Total

	line := fmt.Sprintf("cost          %s bytes of tools, prompts, resource templates", comma(total.Bytes))
	expect(t, inspect(), 0, []string{line, "; --tokens counts tokens"}, nil)
	expect(t, inspect("--tokens"), 0, []string{line, fmt.Sprintf("; %s tokens (o200k_base, an estimate for other model families)", comma(total.Tokens))}, nil)
	expect(t, inspect("--format", "markdown", "--tokens"), 0, []string{"- **Cost:** " + comma(total.Bytes) + " bytes", comma(total.Tokens) + " tokens"}, nil)

	type costJSON struct {
		Counted                              string
		Bytes, DescriptionBytes, SchemaBytes int
		Tokens                               *int
		Tokenizer                            string
	}
	var doc struct {
		Cost  costJSON
		Tools []struct {
			Name        string
			Description string
			InputSchema json.RawMessage
			Cost        costJSON
		}
	}
	r = inspect("--format", "json")
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if doc.Cost.Bytes != total.Bytes || doc.Cost.DescriptionBytes != total.Description || doc.Cost.SchemaBytes != total.Schema || doc.Cost.Tokens != nil {
		t.Errorf("json cost %+v, lint's total %+v (and no tokens unless asked)", doc.Cost, total)
	}
	for _, tool := range doc.Tools {
		// As a host sends it: {"name","description","input_schema"}, compact.
		var schema bytes.Buffer
		if err := json.Compact(&schema, tool.InputSchema); err != nil {
			t.Fatal(err)
		}
		name, _ := json.Marshal(tool.Name)
		desc, _ := json.Marshal(tool.Description)
		want := len(`{"name":`) + len(name) + len(`,"description":`) + len(desc) + len(`,"input_schema":`) + schema.Len() + 1
		if tool.Cost.Bytes != want || tool.Cost.DescriptionBytes != len(desc) || tool.Cost.SchemaBytes != schema.Len() {
			t.Errorf("tool %s: cost %+v, want %d bytes (description %d, schema %d)", tool.Name, tool.Cost, want, len(desc), schema.Len())
		}
	}
	r = inspect("--format", "json", "--tokens")
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if doc.Cost.Tokens == nil || *doc.Cost.Tokens != total.Tokens || doc.Cost.Tokenizer != "o200k_base" {
		t.Errorf("json cost with --tokens %+v, lint's %d tokens", doc.Cost, total.Tokens)
	}
	sum := 0
	for _, tool := range doc.Tools {
		if tool.Cost.Tokens == nil || *tool.Cost.Tokens == 0 {
			t.Fatalf("tool %s: no tokens with --tokens: %+v", tool.Name, tool.Cost)
		}
		sum += *tool.Cost.Tokens
	}
	if sum > total.Tokens {
		t.Errorf("the tools' tokens (%d) exceed the server's (%d)", sum, total.Tokens)
	}

	// Several servers: each section says its tools' cost.
	r = mcpscope(t, nil, "--inspect", "--server", "a="+bin+" host --tools "+tools, "--server", "b="+bin+" host --tools "+tools)
	if n := strings.Count(r.stdout, "bytes of tools (descriptions"); n != 2 || r.code != 0 {
		t.Errorf("exit %d, %d sections with a cost line, want 2:\n%s\n%s", r.code, n, r.stdout, r.stderr)
	}
}

// comma writes n as the reports do: 8,466.
func comma(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
