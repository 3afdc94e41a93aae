package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
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

// TestDiffFailOnBudget: diff --fail-on budget:+N% / budget:+N judges B's cost
// against A's in tokens (lint's figures), on two real tool files saved from the
// bundled host: exactly at the budget passes, one token or one percent under it
// fails; text, JSON and JUnit say so; a budget combines with a change class.
func TestDiffFailOnBudget(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	dir := t.TempDir()
	grown := strings.Replace(cleanTools, `"Sends an email."`, `"Sends an email to one address. The body is plain text; HTML is sent as text. Use it only when the user asked for mail to be sent."`, 1)
	save := func(name, tools string) string {
		r := mcpscope(t, nil, "--inspect", "--format", "json", "--", bin, "host", "--tools", toolsFile(t, tools))
		if r.code != 0 {
			t.Fatalf("inspect: %d %s", r.code, r.stderr)
		}
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := save("a.json", cleanTools), save("b.json", grown)
	tokens := func(file string) (int, int) {
		r := mcpscope(t, nil, "lint", "--format", "json", "--fail-on", "none", "--profile", "mcp", file)
		var doc struct {
			Servers []struct{ Total struct{ Tokens, Bytes int } }
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Servers) != 1 {
			t.Fatalf("lint %s: %v\n%s", file, err, r.stderr)
		}
		return doc.Servers[0].Total.Tokens, doc.Servers[0].Total.Bytes
	}
	ta, ba := tokens(a)
	tb, bb := tokens(b)
	if tb <= ta {
		t.Fatalf("the grown file costs %d tokens, the first %d", tb, ta)
	}
	pct := 100 * float64(tb-ta) / float64(ta)
	line := fmt.Sprintf("cost: %s → %s tokens (%+.1f%%; %s → %s bytes; o200k_base; counted: tools, templates, prompts)", comma(ta), comma(tb), pct, comma(ba), comma(bb))
	floor := int(pct)
	if float64(floor) == pct {
		floor-- // exactly at the budget passes
	}
	under, over := fmt.Sprintf("budget:+%d%%", floor), fmt.Sprintf("budget:+%d%%", int(pct)+1)

	expect(t, mcpscope(t, nil, "diff", "--fail-on", under, a, b), 1, []string{line + " OVER the budget of +" + under[len("budget:+"):]}, nil)
	expect(t, mcpscope(t, nil, "diff", "--fail-on", over, a, b), 0, []string{line + " within the budget of +"}, nil)
	expect(t, mcpscope(t, nil, "diff", "--fail-on", fmt.Sprintf("budget:+%d", tb-ta), a, b), 0, []string{"within the budget"}, nil)
	expect(t, mcpscope(t, nil, "diff", "--fail-on", fmt.Sprintf("budget:+%d", tb-ta-1), a, b), 1, []string{"OVER the budget"}, nil)
	// Shrinking never exceeds a budget; a budget alone does not fail on changes.
	expect(t, mcpscope(t, nil, "diff", "--fail-on", "budget:+0%", b, a), 0, []string{"within the budget of +0%"}, nil)
	// With a class: the description change is compatible, so "any" fails and "breaking" does not.
	expect(t, mcpscope(t, nil, "diff", "--fail-on", "any,"+over, a, b), 1, nil, nil)
	expect(t, mcpscope(t, nil, "diff", "--fail-on", "breaking,"+over, a, b), 0, nil, nil)

	r := mcpscope(t, nil, "diff", "--format", "json", "--fail-on", under, a, b)
	var doc struct {
		Budget struct {
			Limit                string
			OldTokens, NewTokens int
			Over                 bool
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || r.code != 1 || !doc.Budget.Over || doc.Budget.OldTokens != ta || doc.Budget.NewTokens != tb {
		t.Errorf("json: exit %d, %+v (%v), want over, %d → %d\n%s", r.code, doc.Budget, err, ta, tb, r.stdout)
	}
	r = mcpscope(t, nil, "diff", "--format", "junit", "--fail-on", under, a, b)
	if r.code != 1 || !strings.Contains(r.stdout, `failures="1"`) || !strings.Contains(r.stdout, `type="budget"`) {
		t.Errorf("junit: exit %d\n%s", r.code, r.stdout)
	}

	for _, bad := range []string{"budget:", "budget:+x%", "budget:-5%", "budget:+1.5", "breaking,any", "budget:+1%,budget:+2%"} {
		expect(t, mcpscope(t, nil, "diff", "--fail-on", bad, a, b), 2, nil, []string{"--fail-on"})
	}
}

func slicesContainPrefix(ss []string, prefix string) bool {
	for _, s := range ss {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
