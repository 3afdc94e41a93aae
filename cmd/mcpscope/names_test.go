//go:build linux

package main_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// A .mcp.json in the working directory is read without asking, so its server names are
// untrusted. --inspect --all printed them raw in its "== NAME: failed ==" headers
// (table and Markdown): an OSC 52 wrote the clipboard, an OSC 2 retitled the window,
// U+202E reversed the line. And "mcp__x__y" and ".." were accepted. Every bad name is
// now refused by config with one message naming the file, the entry (escaped) and
// the rule, and every header is inert.
func TestConfigServerNamesAreCheckedAndInert(t *testing.T) {
	t.Parallel()
	dir, home := t.TempDir(), t.TempDir()
	host := fmt.Sprintf(`{"command": %q, "args": ["host"]}`, testutil.Mcpscope(t))
	writeFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers":{
  "one": `+host+`,
  "clip\u001b]52;c;cHduZWQ=\u0007": `+host+`,
  "\u001b]2;pwned-title\u0007": `+host+`,
  "a\u202eb": `+host+`,
  "mcp__x__y": `+host+`,
  "..": `+host+`
}}`)
	rule := `a server name is 1 to 64 letters, digits, '-', '_' and '.'`
	for _, format := range []string{"table", "markdown"} {
		r := mcpscopeIn(t, dir, home, nil, "--inspect", "--all", "--format", format)
		assertInert(t, "--inspect --all --format "+format, r.stdout+r.stderr)
		expect(t, r, 0, []string{"one", `.mcp.json:3: server name "clip\x1b]52;c;cHduZWQ=\a" has a control or unprintable character (U+001B); ` + rule,
			`.mcp.json:4: server name "\x1b]2;pwned-title\a"`, `.mcp.json:5: server name "a\u202eb"`,
			`.mcp.json:6: server name "mcp__x__y" has "__"; ` + rule,
			`.mcp.json:7: server name ".." is only dots`}, nil)
		if strings.Contains(r.stdout, "connected") != true || strings.Count(r.stdout, "connected") != 1 {
			t.Errorf("%s: only one is a server that connects:\n%s", format, r.stdout)
		}
	}
	r := mcpscopeIn(t, dir, home, nil, "servers")
	assertInert(t, "servers", r.stdout+r.stderr)
	expect(t, r, 0, []string{`.mcp.json:6: server name "mcp__x__y" has "__"`, rule}, nil)
	r = mcpscopeIn(t, dir, home, nil, "--inspect", "mcp__x__y")
	expect(t, r, 2, nil, []string{`.mcp.json:6: server name "mcp__x__y" has "__"`, rule})
}
