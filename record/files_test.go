package record

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client/wire"
)

// A symbolic link planted at the recording's path is refused, and the file it points
// to is left as it was.
func TestCreateRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{victim, filepath.Join(dir, "dangling")} {
		link := filepath.Join(dir, "rec.jsonl")
		os.Remove(link)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		w, err := Create(link, Header{}, nil)
		if err == nil {
			w.Close()
			t.Fatalf("Create through a link to %s succeeded", target)
		}
		if !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("error %q does not say why", err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the link's target changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "dangling")); !os.IsNotExist(err) {
		t.Errorf("a dangling link's target was created")
	}
}

// An existing file (0644, with a second hard link) is replaced by a new 0600 file; the
// other link keeps the old contents. A FIFO is refused.
func TestCreateReplacesExistingFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rec.jsonl")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "hardlink")
	if err := os.Link(path, other); err != nil {
		t.Fatal(err)
	}
	w, err := Create(path, Header{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	if b, _ := os.ReadFile(other); string(b) != "old\n" {
		t.Errorf("the hard link's contents changed: %q", b)
	}
	if _, err := Load(path); err != nil {
		t.Errorf("the new recording does not load: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	fresh := filepath.Join(dir, "fresh.jsonl")
	if w, err = Create(fresh, Header{}, nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if st, _ := os.Stat(fresh); st.Mode().Perm() != 0o600 {
		t.Errorf("new file mode %v", st.Mode().Perm())
	}
	if err := os.Remove(fresh); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(fresh); err == nil {
		if _, err := Create(fresh, Header{}, nil); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Create on a FIFO: %v", err)
		}
	}
}

// The header's URL and argv are redacted like the events: query secrets, the values of
// secret flags, and those values wherever the server echoes them (encoded too).
func TestHeaderRedaction(t *testing.T) {
	const key, tok = "sk-query-0123456789", "argv-token-abcdef012"
	var buf strings.Builder
	w, err := NewWriter(&buf, Header{Target: Target{Transport: "http", URL: "http://127.0.0.1:1/mcp?api_key=" + key + "&x=1",
		Argv: []string{"server", "--token", tok, "--port", "8080"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, echo := range []string{tok, strings.ToUpper(tok), hex.EncodeToString([]byte(tok)), base64.StdEncoding.EncodeToString([]byte(tok)), url.QueryEscape("a b/" + tok)} {
		w.Listen(wire.Event{Kind: wire.KindStderr, Data: []byte("the token is " + echo)})
	}
	w.Close()
	out := buf.String()
	for _, s := range []string{key, tok, strings.ToUpper(tok), hex.EncodeToString([]byte(tok)), base64.RawStdEncoding.EncodeToString([]byte(tok))[:16]} {
		if strings.Contains(out, s) {
			t.Errorf("%q reached the recording:\n%s", s, out)
		}
	}
	if !strings.Contains(out, `"argv":["server","--token","[redacted]","--port","8080"]`) || !strings.Contains(out, "api_key=[redacted]\\u0026x=1") {
		t.Errorf("header not redacted as expected:\n%s", out)
	}
}
