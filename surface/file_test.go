package surface

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/record"
)

// A side of a diff that names a path: an --inspect file, a recording (FILE#SERVER
// for one of several); what is wrong with the path is a usage error that says what
// to give instead.
// A bare word that names a directory in the working directory is a server (host, a
// configured NAME), not a file: `lint host` in a checkout with a host/ directory
// lints the bundled host; the same directory named as a path is still a file.
func TestBareWordDirectoryIsAServer(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("host", 0o700); err != nil {
		t.Fatal(err)
	}
	if f, ok := ParseFile("host"); ok {
		t.Errorf("host (a directory here) parsed as the file %+v", f)
	}
	if f, ok := ParseFile("./host"); !ok || !f.Dir {
		t.Errorf("./host: %+v %v, want the directory", f, ok)
	}
}

func TestFileLoad(t *testing.T) {
	dir := t.TempDir()
	usage := func(t *testing.T, spec, want string) {
		t.Helper()
		f, ok := ParseFile(spec)
		if !ok {
			t.Fatalf("%s is not a path", spec)
		}
		_, err := f.Load(spec)
		var ue *client.UsageError
		if !errors.As(err, &ue) || !strings.Contains(ue.Msg, want) {
			t.Errorf("%s: %v, want a usage error with %q", spec, err, want)
		}
	}
	if _, ok := ParseFile(filepath.Join(dir, "none.json")); ok {
		t.Error("a path that does not exist is a file")
	}
	usage(t, dir, "is a directory")
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, []byte("\n"), 0o600)
	usage(t, empty, "is empty")
	usage(t, "testdata/everything.json#a", "is not a recording")

	f, ok := ParseFile("testdata/everything.json")
	if s, err := f.Load("A"); !ok || err != nil || len(s.Tools) == 0 || s.Label != "A" {
		t.Fatalf("inspect file: %v", err)
	}

	var buf bytes.Buffer
	h := record.Header{Servers: []record.Server{{Name: "a", Target: record.Target{Transport: "stdio", Argv: []string{"srv"}}}, {Name: "b", Target: record.Target{Transport: "stdio", Argv: []string{"srv"}}}}}
	w, err := record.NewWriter(&buf, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := w.ListenServer("b")
	l(wire.Event{Kind: wire.KindMessage, Dir: wire.Send, Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)})
	l(wire.Event{Kind: wire.KindMessage, Dir: wire.Recv, Data: []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}`)})
	w.Close()
	several := filepath.Join(dir, "two.jsonl")
	os.WriteFile(several, buf.Bytes(), 0o600)
	usage(t, several, "records several servers (a, b): name one as "+several+"#NAME")
	usage(t, several+"#c", "no server named")
	f, ok = ParseFile(several + "#b")
	s, err := f.Load("B")
	if !ok || err != nil || len(s.Tools) != 1 {
		t.Fatalf("b of several: %v %+v", err, s)
	}
}
