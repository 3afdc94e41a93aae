package history_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/history"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/target"
)

// A collection saved from the bundled host names it `mcpscope host ARGS`, as a
// recording does, not the absolute path of the binary that ran it (a build-cache
// path under `go run`, a path on one machine), and says which mcpscope wrote it.
func TestCollectionHeaderNamesTheBundledHostAndVersion(t *testing.T) {
	self, err := os.Executable() // the running binary is "mcpscope" here
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	target := target.Target{Argv: []string{self, "host", "--framing", "ndjson"}}
	l, err := history.Open(history.Server{Name: "host", Target: target}, history.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Add(history.Entry{Tool: "echo", Arguments: json.RawMessage(`{"text":"a"}`), Result: json.RawMessage(`{"content":[]}`)}); err != nil {
		t.Fatal(err)
	}
	coll := filepath.Join(dir, "smoke.jsonl")
	if _, _, err := l.SaveCollection(coll, l.Entries(), nil); err != nil {
		t.Fatal(err)
	}
	rec, err := record.Load(coll)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rec.Header.Target.Argv, " "); got != "mcpscope host --framing ndjson" {
		t.Errorf("the collection's target argv is %q, want %q", got, "mcpscope host --framing ndjson")
	}
	if rec.Header.McpscopeVersion != client.Version {
		t.Errorf("the collection's header has mcpscopeVersion %q, want %q", rec.Header.McpscopeVersion, client.Version)
	}

	// A collection written before the header had a version still loads.
	old := filepath.Join(dir, "old.jsonl")
	body := `{"mcpscope":"recording","version":1,"started":"2025-01-01T00:00:00Z","target":{"transport":"stdio","argv":["mcpscope","host"]}}` + "\n" +
		`{"t":0.001,"dir":"send","msg":{"jsonrpc":"2.0","id":"echo-1","method":"tools/call","params":{"name":"echo","arguments":{}}}}` + "\n" +
		`{"t":0.002,"dir":"recv","msg":{"jsonrpc":"2.0","id":"echo-1","result":{"content":[]}}}` + "\n"
	if err := os.WriteFile(old, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if r, err := record.Load(old); err != nil || r.Header.McpscopeVersion != "" || len(r.Events) != 2 {
		t.Fatalf("an old collection: %v %+v", err, r)
	}
}
