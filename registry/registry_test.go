package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/registry"
	"github.com/mcpscope/mcpscope/registry/registrytest"
)

func client(r *registrytest.Registry) *registry.Client {
	return &registry.Client{Base: r.URL}
}

func names(es []registry.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Server.Name+"@"+e.Server.Version+" "+e.Status)
	}
	return out
}

// TestSearchActiveOnly: a search lists the latest version of each active server;
// --all adds the deprecated and the deleted ones, each with its status.
func TestSearchActiveOnly(t *testing.T) {
	r := registrytest.Serve(t)
	got, more, err := client(r).Search(context.Background(), "", false)
	if err != nil || more {
		t.Fatal(err, more)
	}
	want := []string{"io.github.domdomegg/airtable-mcp-server@1.7.3 active", "io.github.domdomegg/time-mcp-pypi@1.0.6 active", "io.github.user/remote-weather@2.1.0 active"}
	if !slices.Equal(names(got), want) {
		t.Errorf("search: %q, want %q", names(got), want)
	}
	got, _, err = client(r).Search(context.Background(), "TIME", true)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"io.github.domdomegg/time-mcp-nuget@1.0.8 deprecated", "io.github.domdomegg/time-mcp-pypi@1.0.6 active"}
	if !slices.Equal(names(got), want) {
		t.Errorf("search TIME --all: %q, want %q", names(got), want)
	}
	got, _, _ = client(r).Search(context.Background(), "kbag", true)
	if !slices.Equal(names(got), []string{"kbag@1.0.0 deleted"}) {
		t.Errorf("a deleted entry with --all: %q", names(got))
	}
}

// TestSearchFollowsPages: a registry that pages (as the official one does, 30 at a
// time by default) is read page after page with its cursor.
func TestSearchFollowsPages(t *testing.T) {
	r := registrytest.Serve(t)
	for i := range 150 {
		r.Add(t, json.RawMessage(`{"name":"io.example/s`+strings.Repeat("x", i%3)+`-`+string(rune('a'+i%26))+string(rune('a'+i/26))+`","description":"filler","version":"1.0.0"}`), "")
	}
	got, _, err := client(r).Search(context.Background(), "filler", false)
	if err != nil || len(got) != 150 {
		t.Fatalf("%d entries, %v; want 150", len(got), err)
	}
	if n := len(r.Requests); n != 2 {
		t.Errorf("%d requests, want 2 (pages of 100): %q", n, r.Requests)
	}
}

// TestResponseCapped: a registry that answers without end is refused at the cap.
func TestResponseCapped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"servers":[`))
		chunk := []byte(strings.Repeat(`{"server":{"name":"a/b","description":"x","version":"1"}},`, 1000))
		for range registry.MaxResponse/len(chunk) + 2 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	_, _, err := (&registry.Client{Base: srv.URL}).Search(context.Background(), "", false)
	if err == nil || !strings.Contains(err.Error(), "more than 8 MiB") {
		t.Fatalf("err = %v, want the cap", err)
	}
}

func TestGet(t *testing.T) {
	r := registrytest.Serve(t)
	e, err := client(r).Get(context.Background(), "io.github.domdomegg/airtable-mcp-server", "")
	if err != nil || e.Server.Version != "1.7.3" || !e.IsLatest {
		t.Fatalf("latest: %+v %v", e, err)
	}
	e, err = client(r).Get(context.Background(), "io.github.domdomegg/airtable-mcp-server", "1.7.2")
	if err != nil || e.Server.Version != "1.7.2" {
		t.Fatalf("1.7.2: %+v %v", e, err)
	}
	_, err = client(r).Get(context.Background(), "io.example/none", "")
	if err == nil || !strings.Contains(err.Error(), `has no server "io.example/none"`) {
		t.Fatalf("unknown: %v", err)
	}
}

func seed(t *testing.T, name, version string) registry.Server {
	t.Helper()
	data, err := os.ReadFile("testdata/seed.json")
	if err != nil {
		t.Fatal(err)
	}
	var all []registry.Server
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		if s.Name == name && s.Version == version {
			return s
		}
	}
	t.Fatalf("no %s@%s in the seed", name, version)
	return registry.Server{}
}

// TestCommandPerPackageType: each package type of the seed becomes its command line,
// with the entry's required environment variable given; a docker command passes the
// variable by name only, so the secret is not on its command line.
func TestCommandPerPackageType(t *testing.T) {
	airtable := seed(t, "io.github.domdomegg/airtable-mcp-server", "1.7.3")
	env := registry.Values{"env:AIRTABLE_API_KEY": "pat123.secret"}
	for _, c := range []struct {
		s    registry.Server
		kind string
		argv string
	}{
		{airtable, "", "npx -y airtable-mcp-server@1.7.3"},
		{airtable, "npm", "npx -y airtable-mcp-server@1.7.3"},
		{airtable, "oci", "docker run -i --rm -e AIRTABLE_API_KEY docker.io/domdomegg/airtable-mcp-server:1.7.3"},
		{seed(t, "io.github.domdomegg/time-mcp-pypi", "1.0.6"), "", "uvx time-mcp-pypi==1.0.6"},
		{seed(t, "io.github.domdomegg/time-mcp-nuget", "1.0.8"), "", "dnx TimeMcpServer@1.0.8 --yes"},
	} {
		p, rem, err := registry.Choose(c.s, c.kind)
		if err != nil || rem != nil {
			t.Fatalf("%s #%s: %v", c.s.Name, c.kind, err)
		}
		l, err := registry.Resolve(c.s, p, nil, env)
		if err != nil {
			t.Fatalf("%s #%s: %v", c.s.Name, c.kind, err)
		}
		if got := strings.Join(l.Argv, " "); got != c.argv {
			t.Errorf("%s #%s: %q, want %q", c.s.Name, c.kind, got, c.argv)
		}
		if p.Environment != nil && !slices.Equal(l.Env, []string{"AIRTABLE_API_KEY=pat123.secret"}) {
			t.Errorf("%s #%s: env %q", c.s.Name, c.kind, l.Env)
		}
		if p.Environment != nil && !slices.Contains(l.Secrets, "pat123.secret") {
			t.Errorf("the secret variable's value is not among the secrets: %q", l.Secrets)
		}
	}
	_, _, err := registry.Choose(airtable, "mcpb")
	if err != nil {
		t.Fatal(err)
	}
	p, _, _ := registry.Choose(airtable, "mcpb")
	if _, err := registry.Resolve(airtable, p, nil, nil); err == nil || !strings.Contains(err.Error(), "does not install bundles") {
		t.Errorf("mcpb: %v", err)
	}
	if _, _, err := registry.Choose(airtable, "pypi"); err == nil || !strings.Contains(err.Error(), "has no pypi package; it has: npm, oci, mcpb") {
		t.Errorf("a kind it lacks: %v", err)
	}
}

// TestMissingNamesEveryVariable: without the required variable, Resolve names it (a
// secret) and says what to do.
func TestMissingNamesEveryVariable(t *testing.T) {
	s := seed(t, "io.github.domdomegg/airtable-mcp-server", "1.7.3")
	p, _, _ := registry.Choose(s, "")
	_, err := registry.Resolve(s, p, nil, nil)
	var me *registry.MissingError
	if !errors.As(err, &me) || len(me.Needs) != 1 || me.Needs[0].Label != "AIRTABLE_API_KEY" || !me.Needs[0].IsSecret {
		t.Fatalf("err = %v", err)
	}
	if want := "io.github.domdomegg/airtable-mcp-server (npm) needs the environment variable AIRTABLE_API_KEY (secret): set it and run again"; err.Error() != want {
		t.Errorf("message:\n%s\nwant\n%s", err, want)
	}
}

// TestRemote: a remote's URL takes its variable's default, and its required secret
// header is missing until the user gives it; the registry's entry never fills it.
func TestRemote(t *testing.T) {
	s := seed(t, "io.github.user/remote-weather", "2.1.0")
	p, rem, err := registry.Choose(s, "")
	if err != nil || p != nil || rem == nil {
		t.Fatal(p, rem, err)
	}
	needs := registry.Needs(nil, rem)
	if len(needs) != 2 || needs[0].Key != "var:host" || needs[1].Key != "header:Authorization" || !needs[1].IsSecret {
		t.Fatalf("needs: %+v", needs)
	}
	_, err = registry.Resolve(s, nil, rem, nil)
	if err == nil || !strings.Contains(err.Error(), "header Authorization (secret): give it with -H 'Authorization: VALUE'") {
		t.Fatalf("err = %v", err)
	}
	l, err := registry.Resolve(s, nil, rem, registry.Values{"header:Authorization": "Bearer t0k"})
	if err != nil || l.URL != "https://api.example.com/mcp" || l.Header.Get("Authorization") != "Bearer t0k" || l.Transport != "streamable" {
		t.Fatalf("%+v %v", l, err)
	}
	if !slices.Contains(l.Secrets, "Bearer t0k") {
		t.Errorf("secrets: %q", l.Secrets)
	}
}

// TestValidateSeed: the registry's own seed entries pass the vendored schema, except
// kbag, which the schema refuses in its own words (a name without a namespace, a
// package without a transport).
func TestValidateSeed(t *testing.T) {
	data, err := os.ReadFile("testdata/seed.json")
	if err != nil {
		t.Fatal(err)
	}
	var all []json.RawMessage
	json.Unmarshal(data, &all)
	for _, raw := range all {
		var head struct{ Name string }
		json.Unmarshal(raw, &head)
		_, err := registry.Validate(head.Name, raw)
		if head.Name != "kbag" {
			if err != nil {
				t.Errorf("%s: %v", head.Name, err)
			}
			continue
		}
		var se *registry.SchemaError
		if !errors.As(err, &se) {
			t.Fatalf("kbag: %v", err)
		}
		msg := err.Error()
		for _, want := range []string{"/name: ", "does not match pattern", "/packages/0: missing property 'transport'"} {
			if !strings.Contains(msg, want) {
				t.Errorf("kbag's error lacks %q:\n%s", want, msg)
			}
		}
	}
	_, err = registry.Validate("old.json", []byte(`{"$schema":"https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json","name":"a/b","description":"d","version":"1"}`))
	if err == nil || !strings.Contains(err.Error(), "names the schema https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json") {
		t.Errorf("another schema: %v", err)
	}
}

func TestLooks(t *testing.T) {
	for doc, want := range map[string]bool{
		`{"$schema":"https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json","name":"x"}`: true,
		`{"name":"a/b","version":"1","packages":[]}`:                                                            true,
		`{"formatVersion":1,"servers":[]}`:                                                                      false,
		`{"tools":[]}`:                                                                                          false,
		`{"mcpServers":{}}`:                                                                                     false,
	} {
		if registry.Looks([]byte(doc)) != want {
			t.Errorf("Looks(%s) = %v", doc, !want)
		}
	}
}

// TestMissingVariableOfAHeader: a header whose fixed value holds a {variable} asks
// for that variable, and says whose it is.
func TestMissingVariableOfAHeader(t *testing.T) {
	s := registry.Server{Name: "io.example/w", Remotes: []registry.Transport{{Type: "streamable-http", URL: "https://example.com/mcp",
		Headers: []registry.KeyValue{{Name: "Authorization", Input: registry.Input{Value: "Bearer {token}",
			Variables: map[string]registry.Input{"token": {IsRequired: true, IsSecret: true}}}}}}}}
	_, r, _ := registry.Choose(s, "")
	needs := registry.Needs(nil, r)
	if len(needs) != 1 || needs[0].Key != "header:Authorization/token" {
		t.Fatalf("needs: %+v", needs)
	}
	_, err := registry.Resolve(s, nil, r, nil)
	if err == nil || !strings.Contains(err.Error(), "the variable token (secret) of header Authorization") {
		t.Fatalf("err = %v", err)
	}
	l, err := registry.Resolve(s, nil, r, registry.Values{"header:Authorization/token": "t-1"})
	if err != nil || l.Header.Get("Authorization") != "Bearer t-1" || !slices.Contains(l.Secrets, "t-1") {
		t.Fatalf("%+v %v", l, err)
	}
}

// TestRegistryErrorIsBounded: a registry's error message is quoted, at most 300
// characters of it.
func TestRegistryErrorIsBounded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"error":"` + strings.Repeat("x", 5000) + `"}`))
	}))
	defer srv.Close()
	_, _, err := (&registry.Client{Base: srv.URL}).Search(context.Background(), "", false)
	if err == nil || !strings.Contains(err.Error(), "answered 500 for /servers: xxx") || len(err.Error()) > 500 {
		t.Fatalf("err (%d bytes) = %.200v", len(fmt.Sprint(err)), err)
	}
}
