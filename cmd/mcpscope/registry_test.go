package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/registry/registrytest"
)

// withoutEnv is the environment of this test without the variables named, so that a
// test sees what a user who has not set them sees.
func withoutEnv(names ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, n := range names {
			keep = keep && name != n
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

// TestRegistrySearch: search lists the latest version of each active server of the
// registry's seed (name, version, status, package types, remotes); --all adds the
// deprecated and the deleted ones; json says the same for scripts.
func TestRegistrySearch(t *testing.T) {
	t.Parallel()
	reg := registrytest.Serve(t)
	r := mcpscope(t, nil, "registry", "search", "--registry", reg.URL)
	expect(t, r, 0, []string{
		"NAME", "VERSION", "STATUS", "PACKAGES", "REMOTES",
		"io.github.domdomegg/airtable-mcp-server", "1.7.3", "npm,oci,mcpb",
		"io.github.domdomegg/time-mcp-pypi", "pypi",
		"io.github.user/remote-weather", "streamable-http https://{host}/mcp",
		"3 servers in " + reg.URL,
	}, nil)
	for _, hidden := range []string{"time-mcp-nuget", "kbag", "1.7.2"} {
		if strings.Contains(r.stdout, hidden) {
			t.Errorf("search lists %s, which is not active (or not the latest):\n%s", hidden, r.stdout)
		}
	}

	r = mcpscope(t, nil, "registry", "search", "time", "--all", "--registry", reg.URL)
	expect(t, r, 0, []string{"io.github.domdomegg/time-mcp-nuget", "deprecated", "nuget", "io.github.domdomegg/time-mcp-pypi", "active"}, nil)

	// The setting names a sub-registry; json for scripts.
	r = mcpscope(t, []string{"MCPSCOPE_REGISTRY=" + reg.URL}, "registry", "search", "kbag", "--all", "--format", "json")
	expect(t, r, 0, nil, nil)
	var doc struct {
		Registry string
		Servers  []struct {
			Name, Version, Status string
			Packages              []string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.Registry != reg.URL || len(doc.Servers) != 1 {
		t.Fatalf("json: %v\n%s", err, r.stdout)
	}
	if s := doc.Servers[0]; s.Name != "kbag" || s.Status != "deleted" || len(s.Packages) != 1 || s.Packages[0] != "smithery" {
		t.Errorf("json entry: %+v", s)
	}

	r = mcpscope(t, nil, "registry", "search", "nothing-matches-this", "--registry", reg.URL)
	expect(t, r, 0, []string{`No active servers match "nothing-matches-this"`}, nil)
}

// TestRegistryBadInput: one clear message each, and the exit code.
func TestRegistryBadInput(t *testing.T) {
	t.Parallel()
	reg := registrytest.Serve(t)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"registry"}, 2, "say what to do"},
		{[]string{"registry", "serch"}, 2, "did you mean search?"},
		{[]string{"registry", "search", "--registry", "ftp://x"}, 2, `--registry "ftp://x": give the registry's base URL`},
		{[]string{"registry", "search", "--format", "yaml", "--registry", reg.URL}, 2, `--format "yaml": use table or json`},
		{[]string{"registry", "show", "--registry", reg.URL}, 2, "registry show needs a NAME"},
		{[]string{"registry", "show", "airtable", "--registry", reg.URL}, 2, "NAMESPACE/NAME[@VERSION][#TYPE]"},
		{[]string{"registry", "show", "io.example/none", "--registry", reg.URL}, 1, `has no server "io.example/none"`},
		{[]string{"registry", "search", "--registry", "http://127.0.0.1:1"}, 1, "cannot be reached"},
		// An HTTP server that is no registry.
		{[]string{"registry", "search", "--registry", reg.URL + "/elsewhere"}, 1, "is it an MCP registry?"},
	} {
		r := mcpscope(t, nil, c.args...)
		expect(t, r, c.code, nil, []string{c.msg})
	}
}

// TestRegistryShowMapsEachPackageType: what each package type of the seed runs: npm,
// pypi, oci (the secret passed by name), nuget, a remote's URL with its variable's
// default and its required secret header, and an mcpb bundle refused with why.
func TestRegistryShowMapsEachPackageType(t *testing.T) {
	t.Parallel()
	reg := registrytest.Serve(t)
	show := func(name string, want ...string) {
		t.Helper()
		expect(t, mcpscope(t, nil, "registry", "show", name, "--registry", reg.URL), 0, want, nil)
	}
	show("io.github.domdomegg/airtable-mcp-server",
		"io.github.domdomegg/airtable-mcp-server 1.7.3 (active)",
		"#npm\n  command: npx -y airtable-mcp-server@1.7.3\n  needs environment variable AIRTABLE_API_KEY (required, secret): Airtable personal access token",
		"#oci\n  command: docker run -i --rm -e AIRTABLE_API_KEY docker.io/domdomegg/airtable-mcp-server:1.7.3",
		"#mcpb\n  cannot run: io.github.domdomegg/airtable-mcp-server: an mcpb package is a bundle to download")
	show("io.github.domdomegg/airtable-mcp-server@1.7.2", "npx -y airtable-mcp-server@1.7.2")
	show("io.github.domdomegg/time-mcp-pypi", "#pypi\n  command: uvx time-mcp-pypi==1.0.6")
	show("io.github.user/remote-weather", "#remote\n  url: https://api.example.com/mcp",
		"needs URL variable host (default api.example.com): API host", "needs header Authorization (required, secret)")

	// A deprecated entry is shown (with its status); the nuget package maps to dnx.
	r := mcpscope(t, nil, "registry", "show", "io.github.domdomegg/time-mcp-nuget", "--registry", reg.URL, "--format", "json")
	expect(t, r, 0, nil, nil)
	var doc struct {
		Status string
		Run    []struct {
			Kind string
			Argv []string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.Status != "deprecated" || len(doc.Run) != 1 {
		t.Fatalf("json: %v\n%s", err, r.stdout)
	}
	if got := strings.Join(doc.Run[0].Argv, " "); got != "dnx TimeMcpServer@1.0.8 --yes" {
		t.Errorf("nuget: %q", got)
	}
}

// everythingEntry is a server.json for the npm reference server, as its publisher
// would write it, with a required secret variable: run from interop/, npx finds the
// installed package (npm_config_offline: never the network).
const everythingEntry = `{
  "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
  "name": "io.github.modelcontextprotocol/everything",
  "description": "The MCP reference server that exercises every feature.",
  "version": "2026.8.31",
  "packages": [{
    "registryType": "npm", "identifier": "@modelcontextprotocol/server-everything", "version": "2026.8.31",
    "transport": {"type": "stdio"},
    "packageArguments": [{"type": "positional", "valueHint": "transport", "isRequired": true, "description": "stdio, sse or streamableHttp"}],
    "environmentVariables": [{"name": "EVERYTHING_TOKEN", "isRequired": true, "isSecret": true, "description": "a token"}]
  }]
}`

// TestRegistryServerRunsTheNpmPackage: --server NAME=registry:NAME runs the entry's
// npm package with npx (the real reference server), and refuses, naming the
// variable, while its required environment variable is unset.
func TestRegistryServerRunsTheNpmPackage(t *testing.T) {
	t.Parallel()
	reg := registrytest.Serve(t)
	reg.Add(t, json.RawMessage(everythingEntry), "")
	rec := filepath.Join(t.TempDir(), "ev.jsonl")
	run := func(env []string, flags ...string) result {
		args := append([]string{"--inspect", "--record", rec}, flags...)
		cmd := exec.Command(testutil.Mcpscope(t), append(args, "--server", "ev=registry:io.github.modelcontextprotocol/everything")...)
		cmd.Dir = filepath.Join(testutil.Root(), "interop")
		cmd.Env = append(env, "MCPSCOPE_REGISTRY="+reg.URL, "npm_config_offline=true")
		return runCommand(t, cmd)
	}
	// Everything missing is named at once, each with how to give it.
	r := run(withoutEnv("EVERYTHING_TOKEN"))
	expect(t, r, 2, nil, []string{"io.github.modelcontextprotocol/everything (npm) needs the environment variable EVERYTHING_TOKEN (secret): set it and run again; argument transport: give it with --input 'transport=VALUE'"})
	// registry:NAME alone is the one server of a command too.
	alone := exec.Command(testutil.Mcpscope(t), "--inspect", "registry:io.github.modelcontextprotocol/everything")
	alone.Env = append(withoutEnv("EVERYTHING_TOKEN"), "MCPSCOPE_REGISTRY="+reg.URL)
	r = runCommand(t, alone)
	expect(t, r, 2, nil, []string{"needs the environment variable EVERYTHING_TOKEN (secret)"})

	r = run(append(withoutEnv("EVERYTHING_TOKEN"), "EVERYTHING_TOKEN=tok-ev-8c1d"), "--input", "transport=stdio")
	expect(t, r, 0, []string{"mcp-servers/everything", "get-sum"}, nil)
	if strings.Contains(r.stdout+r.stderr, "tok-ev-8c1d") {
		t.Error("the secret variable's value was printed")
	}
	// The recording names the command the entry ran, and redacts the secret.
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "@modelcontextprotocol/server-everything@2026.8.31") || !strings.Contains(string(data), `"EVERYTHING_TOKEN"`) {
		t.Errorf("the recording does not name the command run and the variable given to it:\n%.600s", data)
	}
	if strings.Contains(string(data), "tok-ev-8c1d") {
		t.Errorf("the secret variable's value reached the recording")
	}
}

// hostServerJSON is a server.json for the bundled host, reachable at url, declaring
// version and a required secret header.
func hostServerJSON(t *testing.T, url, version string) string {
	t.Helper()
	doc := `{
  "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
  "name": "io.github.mcpscope/mcpscope-host",
  "title": "mcpscope bundled host",
  "description": "mcpscope's bundled MCP server: demo tools, resources and prompts.",
  "version": "` + version + `",
  "remotes": [{"type": "streamable-http", "url": "` + url + `",
    "headers": [{"name": "X-Api-Key", "isRequired": true, "isSecret": true, "description": "any key"}]}]
}`
	p := filepath.Join(t.TempDir(), "server.json")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestInspectServerJSON: --inspect ./server.json checks the file against its schema,
// then connects to what it declares (a remote: the bundled host over HTTP), once the
// required header is given with -H; an invalid server.json is refused in the
// schema's words before anything starts.
func TestInspectServerJSON(t *testing.T) {
	t.Parallel()
	url := hostHTTP(t)
	file := hostServerJSON(t, url, "0.1.0")
	r := mcpscope(t, nil, "--inspect", file)
	expect(t, r, 2, nil, []string{"io.github.mcpscope/mcpscope-host (remote) needs header X-Api-Key (secret): give it with -H 'X-Api-Key: VALUE'"})

	r = mcpscope(t, nil, "--inspect", "-H", "X-Api-Key: k-3f9e", file)
	expect(t, r, 0, []string{"mcpscope-host", "streamable", "echo"}, nil)

	// The registry's own example of a bad name, plus a package without a transport.
	bad := filepath.Join(t.TempDir(), "server.json")
	os.WriteFile(bad, []byte(`{"$schema":"https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
 "name":"no-namespace-separator","description":"The name must contain exactly one slash separating namespace from name.","version":"1.0.0",
 "packages":[{"registryType":"npm","identifier":"x","version":"1.0.0"}]}`), 0o644)
	r = mcpscope(t, nil, "--inspect", bad)
	expect(t, r, 2, nil, []string{
		bad + " is not a valid server.json (schema https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json):",
		"/name: 'no-namespace-separator' does not match pattern '^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$'",
		"/packages/0: missing property 'transport'",
	})
	old := filepath.Join(t.TempDir(), "server.json")
	os.WriteFile(old, []byte(`{"$schema":"https://static.modelcontextprotocol.io/schemas/2025-07-09/server.schema.json","name":"a/b","description":"d","version":"1"}`), 0o644)
	expect(t, mcpscope(t, nil, "--inspect", old), 2, nil, []string{"names the schema https://static.modelcontextprotocol.io/schemas/2025-07-09/server.schema.json; mcpscope validates offline against"})
}

// TestDiffServerJSON: diff server.json -- CMD compares what server.json declares with
// what the bundled host says: server.json declares no tools (said), the name matches
// after its namespace, the version and the transport are checked (a wrong version
// exits 1).
func TestDiffServerJSON(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	url := hostHTTP(t)
	file := hostServerJSON(t, url, "0.1.0")
	r := mcpscope(t, nil, "diff", file, "--", bin, "host")
	expect(t, r, 1, []string{
		"declares io.github.mcpscope/mcpscope-host 0.1.0",
		"name", "same (the part after the namespace)",
		"version    0.1.0", "same",
		"transport  streamable-http", "stdio", "differs (no package or remote of server.json uses it)",
		"tools: server.json declares no tools", "the server offers", "echo",
	}, nil)

	// Against the remote it declares: all the same, exit 0.
	r = mcpscope(t, nil, "diff", file, url)
	expect(t, r, 0, []string{"transport  streamable-http                   streamable-http        same"}, nil)
	if strings.Contains(r.stdout, "differs") {
		t.Errorf("the declared remote differs from itself:\n%s", r.stdout)
	}

	wrong := hostServerJSON(t, url, "9.9.9")
	r = mcpscope(t, nil, "diff", wrong, url, "--format", "json")
	expect(t, r, 1, nil, nil)
	var doc struct {
		Fields []struct{ Field, Declared, Offered, Verdict string }
		Tools  struct {
			Declared []string
			Offered  []string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("json: %v\n%s", err, r.stdout)
	}
	found := false
	for _, f := range doc.Fields {
		if f.Field == "version" {
			found = f.Declared == "9.9.9" && f.Offered == "0.1.0" && f.Verdict == "differs"
		}
	}
	if !found || doc.Tools.Declared != nil || len(doc.Tools.Offered) == 0 {
		t.Errorf("json: %+v", doc)
	}
	expect(t, mcpscope(t, nil, "diff", wrong, url, "--fail-on", "none"), 0, nil, nil)
}
