package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// threeServers writes a config with the bundled host, a fake server, a broken one and
// one with its own 3 s request timeout, and returns its path.
func threeServers(t *testing.T) string {
	t.Helper()
	self := testutil.Mcpscope(t)
	fk := testutil.FakeServer(t, "ndjson")[0]
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	writeFile(t, cfg, fmt.Sprintf(`{"mcpServers": {
  "one": {"command": %q, "args": ["host"]},
  "two": {"command": %q, "args": ["ndjson"]},
  "broken": {"command": %q, "args": ["exit-at-once"]},
  "slowpoke": {"command": %q, "args": ["host"], "timeout": "3s"}
}}`, self, fk, fk, self))
	return cfg
}

// --inspect across servers: one section each, in the order named, each with its
// status; a failed one is reported; exit 1 only when all failed (or any, --strict).
func TestInspectSeveralServers(t *testing.T) {
	t.Parallel()
	cfg := threeServers(t)
	r := mcpscope(t, nil, "--inspect", "--config", cfg, "one", "two", "broken")
	expect(t, r, 0, []string{"== one: connected ==", "mcpscope-host", "== two: connected ==", "fakemcp", "== broken: failed ==", "fatal: missing configuration FOO_TOKEN", "exited with code 1"},
		[]string{`server "broken" failed`})
	if i, j, k := strings.Index(r.stdout, "== one"), strings.Index(r.stdout, "== two"), strings.Index(r.stdout, "== broken"); !(i < j && j < k) {
		t.Errorf("sections out of order:\n%s", r.stdout)
	}
	expect(t, mcpscope(t, nil, "--inspect", "--strict", "--config", cfg, "one", "two", "broken"), 1, nil, []string{"1 of 3 servers failed (--strict)"})

	r = mcpscope(t, nil, "--inspect", "--format", "json", "--config", cfg, "broken", "two")
	expect(t, r, 0, nil, nil)
	var doc struct {
		FormatVersion int `json:"formatVersion"`
		Servers       []struct {
			Name   string   `json:"name"`
			Status string   `json:"status"`
			Error  string   `json:"error"`
			Stderr []string `json:"stderr"`
			Report *struct {
				Server struct{ Name string }   `json:"server"`
				Tools  []struct{ Name string } `json:"tools"`
			} `json:"report"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if doc.FormatVersion != 1 || len(doc.Servers) != 2 || doc.Servers[0].Name != "broken" || doc.Servers[0].Status != "failed" || doc.Servers[0].Report != nil ||
		!strings.Contains(strings.Join(doc.Servers[0].Stderr, "\n"), "FOO_TOKEN") ||
		doc.Servers[1].Name != "two" || doc.Servers[1].Status != "connected" || doc.Servers[1].Report == nil || doc.Servers[1].Report.Server.Name != "fakemcp" {
		t.Errorf("json: %+v", doc)
	}

	// --all: every server of the file, as Markdown.
	r = mcpscope(t, nil, "--inspect", "--all", "--config", cfg, "--format", "markdown")
	expect(t, r, 0, []string{"# 4 servers", "## `one`: connected", "#### Tools", "### mcpscope-host", "## `broken`: failed", "- **Last stderr lines:**"}, nil)

	// Every server failed: exit 1.
	r = mcpscope(t, nil, "--inspect", "--config", cfg, "broken", "--server", "gone=/nonexistent/server --flag")
	expect(t, r, 1, []string{"== gone: failed ==", `cannot start "/nonexistent/server"`}, []string{"every server failed (2 of 2)"})

	// One server keeps today's shape.
	r = mcpscope(t, nil, "--inspect", "--format", "json", "--config", cfg, "two")
	expect(t, r, 0, []string{`"server": {`, `"name": "fakemcp"`}, nil)
	if strings.Contains(r.stdout, `"servers"`) {
		t.Errorf("one server, several-server shape:\n%s", r.stdout)
	}
}

// --server NAME=TARGET: a URL, a config name, host, or a command line split as a
// shell would.
func TestServerFlag(t *testing.T) {
	t.Parallel()
	cfg := threeServers(t)
	fk := testutil.FakeServer(t, "ndjson")[0]
	r := mcpscope(t, nil, "--inspect", "--config", cfg, "--server", "h=host", "--server", "f='"+fk+"' ndjson", "--server", "t=two")
	expect(t, r, 0, []string{"== h: connected ==", "== f: connected ==", "== t: connected ==", "mcpscope-host", "fakemcp"}, nil)
	if i, j, k := strings.Index(r.stdout, "== h"), strings.Index(r.stdout, "== f"), strings.Index(r.stdout, "== t"); !(i < j && j < k) {
		t.Errorf("sections out of order:\n%s", r.stdout)
	}
}

// mcpscope call SERVER/TOOL and mcp__SERVER__TOOL pick the server by name.
func TestCallServerTool(t *testing.T) {
	t.Parallel()
	cfg := threeServers(t)
	expect(t, mcpscope(t, nil, "call", "two/echo", "message=hello-two", "--config", cfg), 0, []string{"hello-two"}, nil)
	expect(t, mcpscope(t, nil, "call", "mcp__one__echo", "text=hello-one", "--config", cfg), 0, []string{"hello-one"}, nil)
	expect(t, mcpscope(t, nil, "call", "host/echo", "text=bundled"), 0, []string{"bundled"}, nil)
	expect(t, mcpscope(t, nil, "call", "b/echo", "text=flag", "--server", "a=host", "--server", "b=host"), 0, []string{"flag"}, nil)
	expect(t, mcpscope(t, nil, "call", "broken/echo", "--config", cfg), 1, nil, []string{"FOO_TOKEN"})
	expect(t, mcpscope(t, nil, "call", "nope/echo", "--config", cfg), 2, nil, []string{`has no server named "nope"`, "one (--config)", "two (--config)"})
	expect(t, mcpscope(t, nil, "call", "c/echo", "--server", "a=host", "--server", "b=host"), 2, nil, []string{`no server named "c"`, "a, b"})
	expect(t, mcpscope(t, nil, "call", "echo", "--server", "a=host", "--server", "b=host"), 2, nil, []string{"say whose tool: mcpscope call SERVER/echo"})
	// The config entry's own timeout ("timeout": "3s") bounds its requests.
	r := mcpscope(t, nil, "call", "slowpoke/slow", "steps=1", "delayMs=9000", "--config", cfg)
	expect(t, r, 1, nil, []string{"did not finish within 3s"})
}

// Bad input: one clear message each, exit 2.
func TestNamingBadInput(t *testing.T) {
	t.Parallel()
	cfg := threeServers(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--server", "a=host", "--server", "a=host"}, `two servers are named "a"`},
		{[]string{"--server", "a/b=host"}, `has a "/"`},
		{[]string{"--server", "a b=host"}, "white space"},
		{[]string{"--server", "nameonly"}, "give NAME=TARGET"},
		{[]string{"--server", "x='unclosed"}, "single quote is not closed"},
		{[]string{"--config", cfg, "one", "nope"}, `has no server named "nope"; it has: one (--config)`},
		{[]string{"--config", cfg, "--server", "x=nope"}, `no configured server is named "nope"`},
		{[]string{"--config", cfg, "one", "--server", "one=host"}, `two servers are named "one"`},
	} {
		r := mcpscope(t, nil, append([]string{"--inspect"}, tc.args...)...)
		expect(t, r, 2, nil, []string{tc.want})
		if strings.Contains(r.stderr, "panic") {
			t.Errorf("%v: %s", tc.args, r.stderr)
		}
	}
}

// SIGTERM while several servers connect (one of them never answers): exit 143, and
// no server process is left.
func TestSignalWithSeveralServers(t *testing.T) {
	t.Parallel()
	pidfile, env := testutil.PIDFile(t)
	mute := strings.Join(testutil.FakeServer(t, "mute"), " ")
	ok := strings.Join(testutil.FakeServer(t, "ndjson"), " ")
	cmd := exec.Command(testutil.Mcpscope(t), "--inspect", "--grace", "100ms", "--server", "hang="+mute, "--server", "ok="+ok)
	cmd.Env = append(os.Environ(), env)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if b, _ := os.ReadFile(pidfile); strings.Count(string(b), "\n") >= 2 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-done
			t.Fatalf("the servers never started; stderr:\n%s", errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("mcpscope did not end after SIGTERM; stderr:\n%s", errb.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 143 || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("exit %d; stderr:\n%s", code, errb.String())
	}
	testutil.AssertGone(t, pidfile, 2)
}

// --all: a configured server that cannot be used as it is (a placeholder without a
// value, a name with a space) is reported as failed; the others still run; a disabled
// one is left out.
func TestAllWithUnusableEntries(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	writeFile(t, cfg, fmt.Sprintf(`{"mcpServers": {
  "one": {"command": %q, "args": ["host"]},
  "needs": {"url": "https://example.invalid/mcp", "headers": {"Authorization": "Bearer ${input:tok}"}},
  "off": {"command": %q, "args": ["host"], "disabled": true},
  "bad name": {"command": %q, "args": ["host"]}
}}`, testutil.Mcpscope(t), testutil.Mcpscope(t), testutil.Mcpscope(t)))
	r := mcpscope(t, nil, "--inspect", "--all", "--config", cfg)
	expect(t, r, 0, []string{"== one: connected ==", "== needs: failed ==", "--input tok=VALUE", "== bad name: failed ==", "white space"}, []string{`server "needs" failed`})
	if strings.Contains(r.stdout, "== off") {
		t.Errorf("a disabled server was started:\n%s", r.stdout)
	}
	// Named alone, the problem is the command's: exit 2.
	expect(t, mcpscope(t, nil, "--inspect", "--config", cfg, "needs"), 2, nil, []string{"--input tok=VALUE"})
	expect(t, mcpscope(t, nil, "--inspect", "--config", cfg, "--server", "n=needs"), 2, nil, []string{"--input tok=VALUE"})
	// Named among others (by name, or --server NAME=CONFIGNAME), it is a failed server
	// as with --all, and the others run; an unknown name is still the command's error.
	expect(t, mcpscope(t, nil, "--inspect", "--config", cfg, "one", "needs"), 0, []string{"== one: connected ==", "== needs: failed ==", "--input tok=VALUE"}, nil)
	expect(t, mcpscope(t, nil, "--inspect", "--config", cfg, "--server", "o=one", "--server", "n=needs"), 0, []string{"== o: connected ==", "== n: failed ==", "--input tok=VALUE"}, nil)
	expect(t, mcpscope(t, nil, "--inspect", "--config", cfg, "one", "nope"), 2, nil, []string{`no server named "nope"`})
}
