package main_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// encodings are the copies of a secret the fakemcp "leaky" scenario echoes.
func encodings(s string) map[string]string {
	return map[string]string{
		"exact":      s,
		"upper":      strings.ToUpper(s),
		"base64":     base64.StdEncoding.EncodeToString([]byte(s)),
		"base64url":  base64.RawURLEncoding.EncodeToString([]byte(s)),
		"basic-auth": base64.StdEncoding.EncodeToString([]byte("user:" + s)),
		"hex":        hex.EncodeToString([]byte(s)),
		"HEX":        strings.ToUpper(hex.EncodeToString([]byte(s))),
		"query":      url.QueryEscape(s),
		"path":       url.PathEscape(s),
	}
}

// assertNoCopies fails when the recording holds a secret in any encoding the server
// used. For base64, whose edges mix in neighbouring bytes, the middle 12 characters
// are what is looked for.
func assertNoCopies(t *testing.T, b []byte, secret string) {
	t.Helper()
	for name, e := range encodings(secret) {
		look := e
		if strings.HasPrefix(name, "base64") || name == "basic-auth" {
			look = e[len(e)/2-6 : len(e)/2+6]
		}
		if bytes.Contains(b, []byte(look)) {
			t.Errorf("the %s copy of %q (%s) reached the recording", name, secret, look)
		}
	}
}

// Secrets given with -e, or in the server's own command line, never reach the
// recording, whatever encoding the server echoes them in, in results or on stderr.
func TestRecordRedactsEncodedSecrets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const envSecret = "tok-Env/Secret+4f9a8b7c"
	file := filepath.Join(dir, "env.jsonl")
	r := fake(t, "leaky", "call", "echo", "message="+envSecret, "-e", "API_TOKEN="+envSecret, "--record", file)
	expect(t, r, 0, []string{"echo " + hex.EncodeToString([]byte(envSecret))}, nil) // the user still sees the result
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	assertNoCopies(t, b, envSecret)
	if n := bytes.Count(b, []byte("[redacted]")); n < 18 {
		t.Errorf("only %d redactions:\n%s", n, b)
	}

	const flagKey, flagToken, envWord = "key-Argv-0123456789", "tok-argv-abcdefghij", "ghp_argvenv987654321"
	file = filepath.Join(dir, "argv.jsonl")
	pidfile, env := testutil.PIDFile(t)
	argv := append(testutil.FakeServer(t, "leaky"), "--api-key", flagKey, "--token="+flagToken, "GITHUB_TOKEN="+envWord, "--port", "8080")
	r = mcpscope(t, []string{env}, append([]string{"--inspect", "--record", file, "--"}, argv...)...)
	testutil.AssertGone(t, pidfile, 1)
	expect(t, r, 0, nil, nil)
	b, err = os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{flagKey, flagToken, envWord} {
		assertNoCopies(t, b, s)
	}
	h := load(t, file).Header
	got := strings.Join(h.Target.Argv[len(h.Target.Argv)-6:], " ")
	if got != "--api-key [redacted] --token=[redacted] GITHUB_TOKEN=[redacted] --port 8080" {
		t.Errorf("recorded argv %q", got)
	}
}

// --record refuses a planted link (its target is unchanged) and makes an existing
// 0644 file a new 0600 one.
func TestRecordFileSafety(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	writeFile(t, victim, "precious\n")
	link := filepath.Join(dir, "rec.jsonl")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	r := fake(t, "ndjson", "--inspect", "--record", link)
	expect(t, r, 2, nil, []string{"--record", "is a symbolic link"})
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the link's target was overwritten: %q", b)
	}
	old := filepath.Join(dir, "old.jsonl")
	if err := os.WriteFile(old, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(old, 0o644)
	expect(t, fake(t, "ndjson", "--inspect", "--record", old), 0, nil, nil)
	if st, err := os.Stat(old); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode after recording: %v %v", st.Mode(), err)
	}
	load(t, old)
}

// --save-dir never writes through a link planted at a file name it would use: the
// link's target is unchanged and the block gets a new name.
func TestSaveDirNeverFollowsLinks(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	writeFile(t, victim, "precious\n")
	for _, name := range []string{"pic-2.png", "pic-3.wav"} {
		if err := os.Symlink(victim, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dir, "pic-5.bin"), "an older save\n")
	r := fake(t, "images", "call", "pic", "--save-dir", dir)
	expect(t, r, 0, []string{"saved to " + filepath.Join(dir, "pic-2-2.png"), "saved to " + filepath.Join(dir, "pic-3-2.wav"), "saved to " + filepath.Join(dir, "pic-5-2.bin")}, nil)
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the link's target was overwritten: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "pic-5.bin")); string(b) != "an older save\n" {
		t.Errorf("an existing file was overwritten: %q", b)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "pic-2-2.png")); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("the image was not saved: %v", err)
	}
}
