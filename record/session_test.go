package record

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client/wire"
)

func sessionFor(t *testing.T, dir string, log *bytes.Buffer) *Session {
	t.Helper()
	return NewSession([]SessionServer{
		{Name: "a", Target: Target{Transport: "stdio", Argv: []string{"srv", "a"}}, Secrets: []string{"sekrit-a"}},
	}, SessionOptions{
		Path: dir, Snapshots: true, Log: log,
		Redactor: func() (*Redactor, error) { return NewRedactor(nil, nil) },
	})
}

func frame(s string) wire.Event {
	return wire.Event{Kind: wire.KindMessage, Dir: wire.Recv, Data: []byte(s)}
}

// A session's recording toggled on mid-session starts with each server's snapshot,
// names a server added while it runs, keeps secrets out, and the next start goes
// where the last went; after Stop no toggle starts a file.
func TestSessionToggle(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	s := sessionFor(t, dir, &log)
	s.Listen("a", wire.Event{Kind: wire.KindMessage, Dir: wire.Send, Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)})
	s.Listen("a", frame(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"a","version":"1"}}}`))
	if s.Path() != "" {
		t.Fatalf("recording before a toggle: %s", s.Path())
	}
	first, err := s.Toggle()
	if err != nil || filepath.Dir(first) != dir {
		t.Fatalf("toggle: %q %v", first, err)
	}
	s.Add(SessionServer{Name: "b", Target: Target{Transport: "http", URL: "http://127.0.0.1:9/mcp"}, Secrets: []string{"sekrit-b"}})
	s.Add(SessionServer{Name: "a"}) // already named: left as it is
	s.Listen("b", frame(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"sekrit-b"}}`))
	if _, err := s.Toggle(); err != nil {
		t.Fatal(err)
	}
	second, err := s.Toggle()
	if err != nil || filepath.Dir(second) != dir || second == first {
		t.Fatalf("second toggle: %q (first %q) %v", second, first, err)
	}
	s.Stop()
	if path, err := s.Toggle(); err == nil || path != "" {
		t.Errorf("a toggle after Stop started %q (err %v)", path, err)
	}
	rec, err := Load(first)
	if err != nil || !rec.Complete {
		t.Fatalf("first: %v", err)
	}
	if strings.Join(rec.ServerNames(), ",") != "a,b" {
		t.Errorf("servers: %v", rec.ServerNames())
	}
	b, _ := os.ReadFile(first)
	if !bytes.Contains(b, []byte(`"initialize"`)) || bytes.Contains(b, []byte("sekrit-b")) {
		t.Errorf("first file:\n%s", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d files, want 2", len(ents))
	}
	if !strings.Contains(log.String(), "recording to "+first) {
		t.Errorf("log: %q", log.String())
	}
}

// NextPlace: a directory stays; a file named gives its directory.
func TestNextPlace(t *testing.T) {
	dir := t.TempDir()
	if got := NextPlace(dir); got != dir {
		t.Errorf("dir: %q", got)
	}
	if got := NextPlace(filepath.Join(dir, "x.jsonl")); got != dir {
		t.Errorf("file: %q", got)
	}
	if got := NextPlace(""); got != "" {
		t.Errorf("empty: %q", got)
	}
}
