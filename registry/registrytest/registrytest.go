// Package registrytest serves the MCP Registry's v0.1 API on loopback for tests: the
// list (search, version=latest, include_deleted, limit and cursor, as
// docs/reference/api/openapi.yaml and official-registry-api.md describe them) and one
// version of a server, over real seed data (registry/testdata/seed.json, whose README
// names its origin) and whatever server.json documents a test adds.
//
// Why not the registry's own server: it is Go, but it stores servers in PostgreSQL
// (and authenticates publishers against GitHub), and a test here must not need a
// database service or the network. This server keeps to the published response
// shapes instead; the entries are the registry's own seed.
package registrytest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// Statuses are the registry's status of seed entries (name@version), which the seed
// itself does not carry: every other entry is active.
var Statuses = map[string]string{
	"io.github.domdomegg/time-mcp-nuget@1.0.8": "deprecated",
	"kbag@1.0.0": "deleted",
}

// Registry is a registry being served.
type Registry struct {
	*httptest.Server
	mu      sync.Mutex
	entries []entry
	// Requests are the request URIs it was sent, in order.
	Requests []string
}

type entry struct {
	raw                   json.RawMessage
	name, version, status string
	description           string
}

// Serve starts a registry with the seed entries on 127.0.0.1; the test stops it.
func Serve(t testing.TB) *Registry {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testutil.Root(), "registry", "testdata", "seed.json"))
	if err != nil {
		t.Fatal(err)
	}
	var seed []json.RawMessage
	if err := json.Unmarshal(data, &seed); err != nil {
		t.Fatal(err)
	}
	r := &Registry{}
	for _, s := range seed {
		r.Add(t, s, "")
	}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

// Add publishes a server.json (status "" is active).
func (r *Registry) Add(t testing.TB, doc json.RawMessage, status string) {
	t.Helper()
	var head struct{ Name, Version, Description string }
	if err := json.Unmarshal(doc, &head); err != nil {
		t.Fatal(err)
	}
	if status == "" {
		status = Statuses[head.Name+"@"+head.Version]
	}
	if status == "" {
		status = "active"
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entries = append(r.entries, entry{raw: doc, name: head.Name, version: head.Version, status: status, description: head.Description})
}

// latest reports whether e is the last version published of its server.
func (r *Registry) latest(i int) bool {
	for _, o := range r.entries[i+1:] {
		if o.name == r.entries[i].name {
			return false
		}
	}
	return true
}

func (r *Registry) response(i int) map[string]any {
	e := r.entries[i]
	return map[string]any{
		"server": e.raw,
		"_meta": map[string]any{"io.modelcontextprotocol.registry/official": map[string]any{
			"status": e.status, "publishedAt": "2025-12-11T00:00:00Z", "updatedAt": "2025-12-11T00:00:00Z", "isLatest": r.latest(i),
		}},
	}
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Requests = append(r.Requests, req.URL.RequestURI())
	w.Header().Set("Content-Type", "application/json")
	path := req.URL.EscapedPath()
	switch {
	case path == "/v0.1/servers":
		r.list(w, req.URL.Query())
	case strings.HasPrefix(path, "/v0.1/servers/"):
		parts := strings.Split(strings.TrimPrefix(path, "/v0.1/servers/"), "/")
		if len(parts) != 3 || parts[1] != "versions" {
			notFound(w)
			return
		}
		name, _ := url.PathUnescape(parts[0])
		version, _ := url.PathUnescape(parts[2])
		deleted := req.URL.Query().Get("include_deleted") == "true"
		for i := len(r.entries) - 1; i >= 0; i-- {
			e := r.entries[i]
			if e.name != name || e.status == "deleted" && !deleted {
				continue
			}
			if version == e.version || version == "latest" && r.latest(i) {
				json.NewEncoder(w).Encode(r.response(i))
				return
			}
		}
		notFound(w)
	default:
		notFound(w)
	}
}

func notFound(w http.ResponseWriter) {
	w.WriteHeader(http.StatusNotFound)
	w.Write([]byte(`{"error":"Server not found"}`))
}

func (r *Registry) list(w http.ResponseWriter, q url.Values) {
	search := strings.ToLower(q.Get("search"))
	limit, _ := strconv.Atoi(q.Get("limit"))
	if limit <= 0 {
		limit = 30
	}
	start, _ := strconv.Atoi(q.Get("cursor"))
	var match []int
	for i, e := range r.entries {
		switch {
		case e.status == "deleted" && q.Get("include_deleted") != "true":
		case q.Get("version") == "latest" && !r.latest(i):
		case search != "" && !strings.Contains(strings.ToLower(e.name+" "+e.description), search):
		default:
			match = append(match, i)
		}
	}
	page := []map[string]any{}
	next := ""
	for j := start; j < len(match); j++ {
		if len(page) == limit {
			next = strconv.Itoa(j)
			break
		}
		page = append(page, r.response(match[j]))
	}
	meta := map[string]any{"count": len(page)}
	if next != "" {
		meta["nextCursor"] = next
	}
	json.NewEncoder(w).Encode(map[string]any{"servers": page, "metadata": meta})
}
