package main_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// mcpscopeIn runs the binary in dir with HOME set to home (so only the config files a
// test writes are found), plus env.
func mcpscopeIn(t *testing.T, dir, home string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(testutil.Mcpscope(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}, env...)...)
	return runCommand(t, cmd)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestInspectURLEverything(t *testing.T) {
	t.Parallel()
	streamable := testutil.EverythingHTTP(t, "streamableHttp")
	sse := testutil.EverythingHTTP(t, "sse")
	r := mcpscope(t, nil, "--inspect", "http://"+streamable.Addr+"/mcp")
	expect(t, r, 0, []string{"2025-11-25 (legacy era) over streamable-http", "echo", "get-sum"}, nil)
	r = mcpscope(t, nil, "--inspect", "--format", "json", "http://"+sse.Addr+"/sse")
	expect(t, r, 0, []string{`"transport": "http+sse"`, `"era": "legacy"`}, nil)
	r = mcpscope(t, nil, "--inspect", "--transport", "sse", "http://"+sse.Addr+"/sse")
	expect(t, r, 0, []string{"over http+sse"}, nil)
	r = mcpscope(t, nil, "call", "get-sum", "a=2", "b=3", "http://"+streamable.Addr+"/mcp")
	expect(t, r, 0, []string{"5"}, nil)
	r = mcpscope(t, nil, "call", "trigger-long-running-operation", "duration=0.2", "steps=2", "http://"+sse.Addr+"/sse")
	expect(t, r, 0, []string{"Long running operation completed"}, nil)
	r = mcpscope(t, nil, "call", "get-structured-content", "location=Chicago", "--format", "json", "http://"+streamable.Addr+"/mcp")
	expect(t, r, 0, []string{`"temperature"`}, nil)
	r = mcpscope(t, nil, "--inspect", "http://"+streamable.Addr+"/nope")
	expect(t, r, 1, nil, []string{"speaks neither Streamable HTTP", "404"})
}

func TestInspectURLTypeScriptV2(t *testing.T) {
	t.Parallel()
	srv := testutil.StartNode(t, "ts-server.mjs")
	url := "http://" + srv.Addr + "/mcp"
	r := mcpscope(t, nil, "--inspect", url)
	expect(t, r, 0, []string{"ts-v2-interop", "2026-07-28 (modern era) over streamable-http", "4 tools"}, nil)
	r = mcpscope(t, nil, "--inspect", "--protocol", "2025-06-18", url)
	expect(t, r, 0, []string{"2025-06-18 (legacy era) over streamable-http"}, nil)
	r = mcpscope(t, nil, "call", "add", "--args", `{"a":1,"b":2}`, url)
	expect(t, r, 0, []string{`"sum": 3`}, nil)
	r = mcpscope(t, nil, "call", "slow", "steps=3", url)
	expect(t, r, 0, []string{"done after 3 steps"}, nil)
	r = mcpscope(t, nil, "call", "fail", url)
	expect(t, r, 4, []string{"this tool always fails"}, nil)
	r = mcpscope(t, nil, "call", "echo", "text=x", "--transport", "bogus", url)
	expect(t, r, 2, nil, []string{"--transport"})
}

// 401 and 403 exit 1 with the challenge and what to do; a token is never printed.
func TestAuthErrorsCLI(t *testing.T) {
	t.Parallel()
	const token = "tok-3f9a8c7e1d"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.Header.Get("Authorization") == "Bearer "+token {
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="tools:call", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`)
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource", scope="tools:call"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	defer srv.Close()
	r := mcpscope(t, nil, "--inspect", srv.URL+"/mcp")
	expect(t, r, 1, nil, []string{"resource_metadata: http://127.0.0.1/.well-known/oauth-protected-resource", "scope: tools:call", "needs an OAuth login", "run: mcpscope auth login " + srv.URL + "/mcp", "--bearer TOKEN"})
	r = mcpscope(t, []string{"MCPSCOPE_TEST_TOKEN=" + token}, "--inspect", "--trace", "--bearer-env", "MCPSCOPE_TEST_TOKEN", srv.URL+"/mcp")
	expect(t, r, 1, nil, []string{"HTTP 403 Forbidden", "error: insufficient_scope", "lacks a scope the server wants (tools:call)"})
	if strings.Contains(r.stdout+r.stderr, token) {
		t.Errorf("the token was printed:\n%s", r.stderr)
	}
	r = mcpscope(t, nil, "--inspect", "--trace", "-H", "X-Api-Key: "+token, srv.URL+"/mcp")
	expect(t, r, 1, nil, []string{"HTTP 401"})
	if strings.Contains(r.stdout+r.stderr, token) {
		t.Errorf("the -H secret was printed:\n%s", r.stderr)
	}
	r = mcpscope(t, nil, "--inspect", "--bearer-env", "MCPSCOPE_UNSET_VAR", srv.URL+"/mcp")
	expect(t, r, 2, nil, []string{"--bearer-env MCPSCOPE_UNSET_VAR: the variable is not set"})
	r = mcpscope(t, nil, "--inspect", "-H", "no colon", srv.URL+"/mcp")
	expect(t, r, 2, nil, []string{"give 'Name: value'"})
}

// Servers from config files: listed with where they came from, inspected by name.
func TestConfiguredServers(t *testing.T) {
	t.Parallel()
	home, work := t.TempDir(), t.TempDir()
	fake := testutil.FakeServer(t, "ndjson")
	everything := testutil.EverythingHTTP(t, "streamableHttp")
	argv, _ := json.Marshal(fake[1:])
	writeFile(t, filepath.Join(work, ".mcp.json"), fmt.Sprintf(`{"mcpServers": {
  "fake": {"command": %q, "args": %s},
  "everything": {"type": "http", "url": "http://%s/mcp", "headers": {"Authorization": "Bearer ${MCPSCOPE_TEST_SECRET}"}}
}}`, fake[0], argv, everything.Addr))
	writeFile(t, filepath.Join(work, ".vscode", "mcp.json"), `// VS Code
{"servers": {"fake": {"command": "python3", "args": ["other.py"]}, "gh": {"type": "http", "url": "https://example.invalid/mcp", "headers": {"Authorization": "Bearer ${input:tok}"}}}}`)
	writeFile(t, filepath.Join(home, ".cursor", "mcp.json"), `{"mcpServers": {"docs": {"url": "http://127.0.0.1:9/mcp"}}}`)
	writeFile(t, filepath.Join(home, ".config", "Claude", "claude_desktop_config.json"), "{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"y\"} \"z\": {}\n  }\n}\n")

	r := mcpscopeIn(t, work, home, nil, "servers")
	expect(t, r, 0, []string{"fake", "everything", "gh", "docs", ".mcp.json:2", "Claude Code (project)", "VS Code (workspace)", "Cursor", "headers Authorization"}, []string{"claude_desktop_config.json:3:"})
	r = mcpscopeIn(t, work, home, nil, "servers", "--format", "json")
	var doc struct {
		Servers []struct {
			Name, Type, File, Client string
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Servers) != 5 {
		t.Fatalf("servers --format json: %v\n%s", err, r.stdout)
	}

	// A name defined differently in two files is ambiguous; --config picks one.
	r = mcpscopeIn(t, work, home, nil, "--inspect", "fake")
	expect(t, r, 2, nil, []string{`"fake" is configured 2 ways`, ".mcp.json", ".vscode/mcp.json", "--config FILE"})
	r = mcpscopeIn(t, work, home, nil, "--inspect", "--config", ".mcp.json", "fake")
	expect(t, r, 0, []string{"fakemcp", "over stdio"}, nil)
	// A URL entry, with a header from the environment that never reaches the output.
	r = mcpscopeIn(t, work, home, []string{"MCPSCOPE_TEST_SECRET=sec-998877"}, "--inspect", "--trace", "everything")
	expect(t, r, 0, []string{"over streamable-http"}, []string{"Bearer [redacted]"})
	if strings.Contains(r.stdout+r.stderr, "sec-998877") {
		t.Error("the configured secret was printed")
	}
	// Placeholders that cannot be resolved are reported.
	r = mcpscopeIn(t, work, home, nil, "--inspect", "everything")
	expect(t, r, 2, nil, []string{"${MCPSCOPE_TEST_SECRET} (the environment variable is not set)"})
	r = mcpscopeIn(t, work, home, nil, "--inspect", "gh")
	expect(t, r, 2, nil, []string{"--input tok=VALUE"})
	// An unknown name lists the candidates.
	r = mcpscopeIn(t, work, home, nil, "--inspect", "doc")
	expect(t, r, 1, nil, []string{`cannot start "doc": no such command, and no configured server has that name`, "docs (Cursor)"})
	r = mcpscopeIn(t, work, home, nil, "--inspect", "--config", ".mcp.json", "nope")
	expect(t, r, 2, nil, []string{`has no server named "nope"; it has: fake`})
	// A broken --config names its line.
	r = mcpscopeIn(t, work, home, nil, "servers", "--config", filepath.Join(home, ".config", "Claude", "claude_desktop_config.json"))
	expect(t, r, 2, nil, []string{"claude_desktop_config.json:3:"})
}
