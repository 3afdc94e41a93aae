package tui

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/registry/registrytest"
	"github.com/mcpscope/mcpscope/workbench"
)

// hostOverHTTP starts the bundled host over Streamable HTTP on loopback; the test
// stops it.
func hostOverHTTP(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(testutil.Mcpscope(t), "host", "--http", "127.0.0.1:0")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		if m := regexp.MustCompile(`(http://127\.0\.0\.1:\d+/mcp)`).FindStringSubmatch(lines.Text()); m != nil {
			go func() {
				for lines.Scan() {
				}
			}()
			return m[1]
		}
	}
	t.Fatal("the host never said where it listens")
	return ""
}

// TestAddFromTheRegistry: :add NAME registry:ENTRY reads the entry, asks for what its
// remote needs in a form built from it (the URL it will reach shown first, the
// secret header masked), refuses to go on while a required value is missing, then
// adds the server, which connects and lists its tools; the secret is never on screen.
func TestAddFromTheRegistry(t *testing.T) {
	url := hostOverHTTP(t)
	reg := registrytest.Serve(t)
	reg.Add(t, json.RawMessage(`{
  "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
  "name": "io.github.mcpscope/mcpscope-host", "description": "the bundled host", "version": "0.1.0",
  "remotes": [{"type": "streamable-http", "url": "`+url+`",
    "headers": [{"name": "X-Api-Key", "isRequired": true, "isSecret": true, "description": "the key for the host"}]}]
}`), "")
	h := newHarnessWith(t, Options{Servers: []workbench.Spec{{Name: "a", Target: hostTarget(t)}}, Registry: reg.URL, Theme: "dark"}, 140, 40)
	h.until("a's tools", func(m *model) bool { return len(m.list.tools) > 0 })

	h.press(":")
	h.typeText("add web registry:io.github.mcpscope/mcpscope-host")
	h.press("enter")
	h.until("the registry's form", func(m *model) bool { return findDialog[*registryDialog](&m.dialogs) != nil })
	h.contains("Add web from the registry: io.github.mcpscope/mcpscope-host 0.1.0", "remote: "+url,
		"X-Api-Key* (header, secret)", "the key for the host")

	h.press("ctrl+s")
	h.contains("still needed: X-Api-Key")
	if h.m.server("web") != nil {
		t.Fatal("the server was added without its required header")
	}

	const secret = "k-reg-5e1a9"
	h.typeText(secret)
	h.contains("••••••••••• (11 chars)")
	if strings.Contains(h.screen(), secret) {
		t.Fatalf("the secret header is on screen:\n%s", h.screen())
	}
	h.press("enter") // the last field: adds
	h.until("web's tools", func(m *model) bool {
		s := m.server("web")
		return s != nil && len(s.tools()) > 0
	})
	if got := h.m.server("web").snap.Spec.Target.Header.Get("X-Api-Key"); got != secret {
		t.Errorf("the header sent is %q", got)
	}
	h.press("tab")
	h.contains("▾ web", "web/echo")
	if strings.Contains(h.screen(), secret) {
		t.Fatalf("the secret is on screen:\n%s", h.screen())
	}
}

// TestAddFromTheRegistryAsksForTheEnvironment: an npm entry's required secret
// variable is asked for, masked; esc cancels and runs nothing. An unknown entry and a
// deleted one are refused with why.
func TestAddFromTheRegistryAsksForTheEnvironment(t *testing.T) {
	t.Setenv("AIRTABLE_API_KEY", "")
	reg := registrytest.Serve(t)
	h := newHarnessWith(t, Options{Servers: []workbench.Spec{{Name: "a", Target: hostTarget(t)}}, Registry: reg.URL, Theme: "dark"}, 140, 40)
	h.until("a's tools", func(m *model) bool { return len(m.list.tools) > 0 })
	run := func(line string) {
		h.press(":")
		h.typeText(line)
		h.press("enter")
	}
	run("add air registry:io.github.domdomegg/airtable-mcp-server")
	h.until("the registry's form", func(m *model) bool { return findDialog[*registryDialog](&m.dialogs) != nil })
	h.contains("npm: npx -y airtable-mcp-server@1.7.3", "AIRTABLE_API_KEY* (environment variable, secret)", "Airtable personal access token")
	h.typeText("pat1")
	h.contains("•••• (4 chars)")
	h.press("esc")
	h.until("cancelled", func(m *model) bool { return strings.Contains(m.notice, "add air cancelled") })
	if h.m.server("air") != nil {
		t.Fatal("a cancelled add added the server")
	}

	run("add x registry:io.example/none")
	h.until("unknown", func(m *model) bool { return strings.Contains(m.notice, `has no server "io.example/none"`) })
	run("add k registry:kbag/x")
	h.until("unknown 2", func(m *model) bool { return strings.Contains(m.notice, `has no server "kbag/x"`) })
	run("add d registry:io.github.domdomegg/time-mcp-nuget#npm")
	h.until("no such package", func(m *model) bool { return strings.Contains(m.notice, "has no npm package; it has: nuget") })
}
