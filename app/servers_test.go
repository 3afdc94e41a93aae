package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/config"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// naming is a Naming over a config file of three servers (c needs a value it is not
// given) and one switched off.
func naming(t *testing.T, servers []string, all bool) *Naming {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp.json")
	cfg := `{"mcpServers":{
		"a":{"command":"a-server-that-is-not-on-path"},
		"b":{"url":"http://127.0.0.1:1/mcp"},
		"c":{"command":"c-server","env":{"TOKEN":"${input:tok}"}},
		"off":{"command":"off-server","disabled":true}}}`
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return &Naming{Sources: &config.Sources{File: path}, Servers: servers, All: all}
}

func names(ss []Server) string {
	var out []string
	for _, s := range ss {
		n := s.Spec.Name
		if s.Err != nil {
			n += "!"
		}
		out = append(out, n)
	}
	return strings.Join(out, " ")
}

// TestNamedInOrder: the positional names, then --server in order, then the rest of
// --all (a configured server that cannot be used is kept, failed; one switched off
// is left out); a name given twice is a usage error saying how each was named.
func TestNamedInOrder(t *testing.T) {
	ctx := context.Background()
	got, err := naming(t, []string{"x=host", "a2=a"}, true).Named(ctx, []string{"b", "a"}, []string{"b", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if names(got) != "b a x a2 c!" {
		t.Errorf("servers %q, want %q", names(got), "b a x a2 c!")
	}
	if got[3].Spec.Source != workbench.SourceSession || got[1].Spec.Source != workbench.SourceConfig {
		t.Errorf("a configured server under a name of its own is the session's: %v, %v", got[3].Spec.Source, got[1].Spec.Source)
	}
	_, err = naming(t, []string{"a=host"}, false).Named(ctx, []string{"a"}, []string{"a"})
	var ue *target.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `two servers are named "a" (the command line and --server a=host)`) {
		t.Errorf("a name twice: %v", err)
	}
	// Nothing named: the only server of --config FILE (here there are several).
	if _, err := naming(t, nil, false).Named(ctx, nil, nil); err == nil {
		t.Errorf("nothing named in a config of several servers was taken")
	}
	// One server named alone: its problem is the command's.
	if _, err := naming(t, []string{"only=c"}, false).Named(ctx, nil, nil); err == nil || !strings.Contains(err.Error(), "tok") {
		t.Errorf("one unusable server: %v", err)
	}
}

// TestTargetForms: --server NAME=TARGET reads host, a URL, a config name and a
// command line; a word that is neither a configured name nor a command lists the
// configured names.
func TestTargetForms(t *testing.T) {
	ctx := context.Background()
	n := naming(t, nil, false)
	for given, want := range map[string]string{
		"host":                   "host",
		"http://127.0.0.1:9/mcp": "http://127.0.0.1:9/mcp",
		"b":                      "http://127.0.0.1:1/mcp",
		`sh -c 'echo "a b"'`:     `sh|-c|echo "a b"`,
	} {
		s, err := n.Target(ctx, "s", given)
		if err != nil {
			t.Fatalf("%s: %v", given, err)
		}
		got := s.Spec.Target.URL + strings.Join(s.Spec.Target.Argv, "|")
		if given == "host" {
			got = s.Spec.Target.Argv[len(s.Spec.Target.Argv)-1]
		}
		if got != want || s.Spec.Name != "s" {
			t.Errorf("%s: %s %q, want %q", given, s.Spec.Name, got, want)
		}
	}
	if _, err := n.Target(ctx, "s", "nosuchthing"); err == nil || !strings.Contains(err.Error(), `no configured server is named "nosuchthing" and no command is; configured servers: `) {
		t.Errorf("an unknown word: %v", err)
	}
}

// TestCallPicksTheNamedServer: SERVER/TOOL is looked up among the servers named, or
// the configured ones when none is; a plain TOOL with several servers asks whose.
func TestCallPicksTheNamedServer(t *testing.T) {
	ctx := context.Background()
	s, tool, err := naming(t, nil, false).Call(ctx, nil, nil, "b/fetch")
	if err != nil || s.Spec.Name != "b" || tool != "fetch" {
		t.Errorf("b/fetch: %s %s %v", s.Spec.Name, tool, err)
	}
	s, tool, err = naming(t, nil, false).Call(ctx, nil, nil, "mcp__a__x__y")
	if err != nil || s.Spec.Name != "a" || tool != "x__y" {
		t.Errorf("mcp__a__x__y: %s %s %v", s.Spec.Name, tool, err)
	}
	if _, _, err := naming(t, []string{"x=host"}, false).Call(ctx, []string{"b"}, []string{"b"}, "fetch"); err == nil || !strings.Contains(err.Error(), "say whose tool: mcpscope call SERVER/fetch") {
		t.Errorf("a plain tool of two servers: %v", err)
	}
	if _, _, err := naming(t, []string{"x=host"}, false).Call(ctx, []string{"b"}, []string{"b"}, "a/fetch"); err == nil || !strings.Contains(err.Error(), `no server named "a" in this call`) {
		t.Errorf("a server not named: %v", err)
	}
}
