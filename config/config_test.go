package config

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func fixture(t *testing.T, name string) Location {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return Location{Path: path, Client: "test", Workspace: filepath.Dir(path)}
}

func load(t *testing.T, name string) []Entry {
	t.Helper()
	entries, err := Load(context.Background(), fixture(t, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return entries
}

func byName(t *testing.T, entries []Entry, name string) *Entry {
	t.Helper()
	for i := range entries {
		if entries[i].Name == name {
			return &entries[i]
		}
	}
	t.Fatalf("no entry %q", name)
	return nil
}

func names(entries []Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Name)
	}
	return out
}

// One fixture per format; entries keep the file's order and its lines.
func TestConfigFormats(t *testing.T) {
	cases := []struct {
		file  string
		names []string
		types []string
	}{
		{"claude_desktop_config.json", []string{"everything", "files"}, []string{"stdio", "stdio"}},
		{"cursor-mcp.json", []string{"remote", "local"}, []string{"http", "stdio"}},
		{"claude-code.mcp.json", []string{"api", "legacy", "tool"}, []string{"http", "sse", "stdio"}},
		{"vscode-mcp.json", []string{"github", "fetch"}, []string{"http", "stdio"}},
		{"vscode-settings.json", []string{"memory"}, []string{"stdio"}},
	}
	for _, tc := range cases {
		entries := load(t, tc.file)
		if got := names(entries); !slices.Equal(got, tc.names) {
			t.Errorf("%s: names %v, want %v", tc.file, got, tc.names)
			continue
		}
		for i, e := range entries {
			if e.Type != tc.types[i] || e.Problem != "" {
				t.Errorf("%s: %s is %s (problem %q), want %s", tc.file, e.Name, e.Type, e.Problem, tc.types[i])
			}
		}
	}
	gh := byName(t, load(t, "vscode-mcp.json"), "github")
	if gh.Line != 7 || gh.URL != "https://api.githubcopilot.com/mcp/" {
		t.Errorf("github entry: line %d, url %q", gh.Line, gh.URL)
	}
	if e := byName(t, load(t, "claude_desktop_config.json"), "everything"); e.Summary() != "npx -y @modelcontextprotocol/server-everything" || !slices.Equal(e.EnvKeys, []string{"API_KEY"}) {
		t.Errorf("everything: %q %v", e.Summary(), e.EnvKeys)
	}
}

func TestConfigPlaceholders(t *testing.T) {
	t.Setenv("MCPSCOPE_TEST_KEY", "key-from-env-123")
	t.Setenv("MCPSCOPE_TEST_TOKEN", "token-from-env-456")
	home, _ := os.UserHomeDir()

	// ${env:NAME}, ${userHome}
	tg, err := byName(t, load(t, "claude_desktop_config.json"), "everything").Target(nil)
	if err != nil || !slices.Contains(tg.Env, "API_KEY=key-from-env-123") {
		t.Fatalf("everything: %+v, %v", tg, err)
	}
	tg, err = byName(t, load(t, "claude_desktop_config.json"), "files").Target(nil)
	if err != nil || tg.Argv[2] != home+"/docs" {
		t.Fatalf("files: %+v, %v", tg, err)
	}
	// A header from the environment is a secret.
	tg, err = byName(t, load(t, "cursor-mcp.json"), "remote").Target(nil)
	if err != nil || tg.Header.Get("Authorization") != "Bearer token-from-env-456" || !slices.Contains(tg.Secrets, "token-from-env-456") {
		t.Fatalf("remote: %+v, %v", tg, err)
	}
	// Claude Code's ${NAME:-default} and ${NAME}.
	tg, err = byName(t, load(t, "claude-code.mcp.json"), "api").Target(nil)
	if err != nil || tg.URL != "https://api.example.com/mcp" || tg.Header.Get("X-Api-Key") != "key-from-env-123" {
		t.Fatalf("api: %+v, %v", tg, err)
	}
	tg, err = byName(t, load(t, "claude-code.mcp.json"), "legacy").Target(nil)
	if err != nil || tg.Transport != "sse" {
		t.Fatalf("legacy: %+v, %v", tg, err)
	}
	// VS Code: ${input:…} is reported until given, ${workspaceFolder}, envFile.
	entries := load(t, "vscode-mcp.json")
	_, err = byName(t, entries, "github").Target(nil)
	if err == nil || !strings.Contains(err.Error(), "${input:gh-token}") || !strings.Contains(err.Error(), "--input gh-token=VALUE") || !strings.Contains(err.Error(), "GitHub Personal Access Token") {
		t.Fatalf("github without input: %v", err)
	}
	tg, err = byName(t, entries, "github").Target(map[string]string{"gh-token": "ghp_secret_value"})
	if err != nil || tg.Header.Get("Authorization") != "Bearer ghp_secret_value" || !slices.Contains(tg.Secrets, "ghp_secret_value") {
		t.Fatalf("github: %+v, %v", tg, err)
	}
	tg, err = byName(t, entries, "fetch").Target(nil)
	ws := fixture(t, "vscode-mcp.json").Workspace
	if err != nil || !slices.Contains(tg.Env, "WHERE="+ws) || !slices.Contains(tg.Env, "FETCH_USER_AGENT=mcpscope-test") || !slices.Contains(tg.Env, "FETCH_PROXY=none") {
		t.Fatalf("fetch: %+v, %v", tg, err)
	}
	// An unset variable is reported with the entry's place.
	os.Unsetenv("MCPSCOPE_TEST_TOKEN")
	_, err = byName(t, load(t, "cursor-mcp.json"), "remote").Target(nil)
	if err == nil || !strings.Contains(err.Error(), "${env:MCPSCOPE_TEST_TOKEN} (the environment variable is not set)") || !strings.Contains(err.Error(), "cursor-mcp.json:3") {
		t.Fatalf("unset: %v", err)
	}
}

// A broken file: the error names the file and the line.
func TestConfigBroken(t *testing.T) {
	_, err := Load(context.Background(), fixture(t, "broken.json"))
	var ce *Error
	if !errors.As(err, &ce) || ce.Line != 4 || !strings.Contains(err.Error(), "broken.json:4:") {
		t.Fatalf("err = %v", err)
	}
	entries := load(t, "bad-type.json")
	if e := byName(t, entries, "bad"); !strings.Contains(e.Problem, "bad-type.json:6") || !strings.Contains(e.Problem, "args must be an array of strings") {
		t.Errorf("bad: %q", e.Problem)
	}
	if e := byName(t, entries, "nothing"); !strings.Contains(e.Problem, "has no command") {
		t.Errorf("nothing: %q", e.Problem)
	}
	if e := byName(t, entries, "ok"); e.Problem != "" {
		t.Errorf("ok: %q", e.Problem)
	}
	if _, err := byName(t, entries, "bad").Target(nil); err == nil {
		t.Error("a broken entry became a target")
	}
}

func TestStripJSONC(t *testing.T) {
	in := `{"a": "http://x//y", /* c, } */ "b": [1, 2,], // tail
"c": "/* not a comment */",}`
	var got map[string]any
	out := stripJSONC([]byte(in))
	if len(out) != len(in) {
		t.Fatalf("length changed")
	}
	if err := jsonUnmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got["a"] != "http://x//y" || got["c"] != "/* not a comment */" || len(got["b"].([]any)) != 2 {
		t.Errorf("%v", got)
	}
}

func TestLookup(t *testing.T) {
	a := load(t, "cursor-mcp.json")
	b := load(t, "claude_desktop_config.json")
	f := &Found{Entries: append(append([]Entry{}, a...), b...)}
	if e, ok, err := f.Lookup("REMOTE"); !ok || err != nil || e.Name != "remote" {
		t.Errorf("case-insensitive lookup: %v %v %v", e, ok, err)
	}
	if _, ok, _ := f.Lookup("nope"); ok {
		t.Error("found nope")
	}
	if c := f.Candidates("loc"); !strings.HasPrefix(c, "local (test)") {
		t.Errorf("candidates: %s", c)
	}
	// The same name twice, defined differently: ambiguous.
	dup := a[1]
	dup.Command = "python"
	dup.File = "/elsewhere/mcp.json"
	f.Entries = append(f.Entries, dup)
	_, ok, err := f.Lookup("local")
	if !ok || err == nil || !strings.Contains(err.Error(), `"local" is configured 2 ways`) || !strings.Contains(err.Error(), "--config FILE") {
		t.Errorf("ambiguous: %v", err)
	}
	// Defined the same way twice: not ambiguous.
	dup.Command = "node"
	f.Entries[len(f.Entries)-1] = dup
	if _, _, err := f.Lookup("local"); err != nil {
		t.Errorf("identical entries: %v", err)
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
