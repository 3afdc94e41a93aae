package wrap

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/config"
)

const self = "/opt/mcpscope/bin/mcpscope"

// copyFile puts a testdata file in a temporary directory with mode 0600 (a host's
// config holds secrets) and returns its location.
func copyFile(t *testing.T, name, client string) config.Location {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return config.Location{Path: p, Client: client}
}

func entries(t *testing.T, loc config.Location, data []byte) map[string]config.Entry {
	t.Helper()
	list, err := config.Parse(context.Background(), data, loc)
	if err != nil {
		t.Fatalf("config does not read %s: %v\n%s", loc.Path, err, data)
	}
	out := map[string]config.Entry{}
	for _, e := range list {
		out[e.Name] = e
	}
	return out
}

func wrapOnce(t *testing.T, loc config.Location, opts Options) *Plan {
	t.Helper()
	file, data, mode, err := Load(loc)
	if err != nil {
		t.Fatal(err)
	}
	p, err := PlanWrap(context.Background(), loc, file, data, mode, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Already {
		if _, err := p.Write(time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func unwrapOnce(t *testing.T, loc config.Location, name string) *Plan {
	t.Helper()
	file, data, mode, err := Load(loc)
	if err != nil {
		t.Fatal(err)
	}
	p, err := PlanUnwrap(context.Background(), loc, file, data, mode, name)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Already {
		if _, err := p.Write(time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// TestWrapStdioEachHost: a stdio entry of each host's file runs through the tap with
// its original command line after "--"; env, cwd and every other member stay; every
// byte outside the entry (comments, tabs, trailing commas, the other servers) stays;
// the backup is the file as it was, with its mode; a second wrap changes nothing;
// unwrap gives back the original file byte for byte.
func TestWrapStdioEachHost(t *testing.T) {
	for _, tc := range []struct {
		file, client, name string
		command            string
		args               []string
	}{
		{"claude_desktop_config.json", "Claude Desktop", "everything", "npx", []string{"-y", "@modelcontextprotocol/server-everything"}},
		{"claude_desktop_config.json", "Claude Desktop", "filesystem", "npx", []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/ada/Desktop", "/Users/ada/Downloads"}},
		{"claude-code.mcp.json", "Claude Code (project)", "db", "${MCPSCOPE_TEST_ROOT:-/opt}/bin/db-mcp", []string{"--readonly"}},
		{"claude-code.mcp.json", "Claude Code (project)", "git", "uvx", []string{"mcp-server-git", "--repository", "."}},
		{"cursor-mcp.json", "Cursor", "local", "node", []string{"server.js"}},
		{"vscode-mcp.json", "VS Code (workspace)", "fetch", "uvx", []string{"mcp-server-fetch", "--ignore-robots-txt"}},
		{"vscode-settings.json", "VS Code (user settings)", "time", "uvx", []string{"mcp-server-time", "--local-timezone=Europe/Paris"}},
	} {
		t.Run(tc.file+"/"+tc.name, func(t *testing.T) {
			loc := copyFile(t, tc.file, tc.client)
			orig, _ := os.ReadFile(loc.Path)
			before := entries(t, loc, orig)
			p := wrapOnce(t, loc, Options{Self: self, Name: tc.name, Record: "/home/ada/taps"})
			if p.Already || p.Kind != "stdio" {
				t.Fatalf("plan: already %v, kind %q", p.Already, p.Kind)
			}
			now, _ := os.ReadFile(loc.Path)
			after := entries(t, loc, now)
			got := after[tc.name]
			wantArgs := append([]string{"tap", "--name", tc.name, "--record", "/home/ada/taps", "--", tc.command}, tc.args...)
			if got.Command != self || !reflect.DeepEqual(got.Args, wantArgs) {
				t.Fatalf("wrapped entry runs %q %q, want %q %q", got.Command, got.Args, self, wantArgs)
			}
			b := before[tc.name]
			if !reflect.DeepEqual(got.Env, b.Env) || got.EnvFile != b.EnvFile || got.Cwd != b.Cwd || got.Type != b.Type {
				t.Fatalf("the entry's other members changed: %+v, was %+v", got, b)
			}
			for name, e := range before {
				a := after[name]
				a.Line = e.Line // the wrapped args are on one line: a later entry may move up
				if name != tc.name && !reflect.DeepEqual(a, e) {
					t.Fatalf("entry %q changed: %+v, was %+v", name, after[name], e)
				}
			}
			// Every byte outside the entry is the original's.
			if !bytes.Equal(now[:p.Start], orig[:p.Start]) || !bytes.Equal(now[p.Start+len(p.New):], orig[p.Start+len(p.Old):]) {
				t.Fatalf("bytes outside the entry changed:\n%s", now)
			}
			if strings.Contains(string(orig), "//") && !strings.Contains(string(now), "// not a comment") && tc.file == "vscode-mcp.json" {
				t.Fatalf("comments lost:\n%s", now)
			}
			bk := backups(loc.Path)
			if len(bk) != 1 {
				t.Fatalf("backups %v, want one", bk)
			}
			bdata, _ := os.ReadFile(bk[0])
			st, _ := os.Stat(bk[0])
			fst, _ := os.Stat(loc.Path)
			if !bytes.Equal(bdata, orig) || st.Mode().Perm() != 0o600 || fst.Mode().Perm() != 0o600 {
				t.Fatalf("backup mode %v, file mode %v, backup equal %v", st.Mode(), fst.Mode(), bytes.Equal(bdata, orig))
			}
			if !strings.Contains(p.Diff(), "+") || !strings.Contains(p.Diff(), `"tap", "--name", "`+tc.name+`"`) {
				t.Fatalf("diff does not show the new args:\n%s", p.Diff())
			}

			again := wrapOnce(t, loc, Options{Self: self, Name: tc.name})
			if !again.Already || !strings.Contains(again.Note, "already wrapped") {
				t.Fatalf("second wrap: already %v, note %q", again.Already, again.Note)
			}
			if now2, _ := os.ReadFile(loc.Path); !bytes.Equal(now2, now) || len(backups(loc.Path)) != 1 {
				t.Fatal("a second wrap changed the file or wrote a backup")
			}

			u := unwrapOnce(t, loc, tc.name)
			if !strings.Contains(u.Note, "byte for byte") {
				t.Fatalf("unwrap note %q", u.Note)
			}
			if back, _ := os.ReadFile(loc.Path); !bytes.Equal(back, orig) {
				t.Fatalf("unwrap did not restore the file:\n%s\nwant\n%s", back, orig)
			}
			if u2 := unwrapOnce(t, loc, tc.name); !u2.Already || !strings.Contains(u2.Note, "not wrapped") {
				t.Fatalf("second unwrap: %+v", u2.Note)
			}
		})
	}
}

// TestUnwrapKeepsLaterEdits: the host (or the user) changed another entry after the
// wrap; unwrap restores only the wrapped entry, byte for byte, and keeps that change.
func TestUnwrapKeepsLaterEdits(t *testing.T) {
	loc := copyFile(t, "claude_desktop_config.json", "Claude Desktop")
	orig, _ := os.ReadFile(loc.Path)
	wrapOnce(t, loc, Options{Self: self, Name: "everything"})
	now, _ := os.ReadFile(loc.Path)
	edited := bytes.Replace(now, []byte(`"/Users/ada/Downloads"`), []byte(`"/Users/ada/Music"`), 1)
	if err := os.WriteFile(loc.Path, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	unwrapOnce(t, loc, "everything")
	back, _ := os.ReadFile(loc.Path)
	want := bytes.Replace(orig, []byte(`"/Users/ada/Downloads"`), []byte(`"/Users/ada/Music"`), 1)
	if !bytes.Equal(back, want) {
		t.Fatalf("got\n%s\nwant\n%s", back, want)
	}
}

// TestUnwrapWithoutBackup: with the backups gone, unwrap rebuilds the entry from the
// command line the wrapped args keep.
func TestUnwrapWithoutBackup(t *testing.T) {
	loc := copyFile(t, "vscode-mcp.json", "VS Code (workspace)")
	orig, _ := os.ReadFile(loc.Path)
	wrapOnce(t, loc, Options{Self: self, Name: "fetch"})
	for _, b := range backups(loc.Path) {
		os.Remove(b)
	}
	u := unwrapOnce(t, loc, "fetch")
	if !strings.Contains(u.Note, "command line the wrapped entry kept") {
		t.Fatalf("note %q", u.Note)
	}
	back, _ := os.ReadFile(loc.Path)
	was, got := entries(t, loc, orig)["fetch"], entries(t, loc, back)["fetch"]
	if got.Command != was.Command || !reflect.DeepEqual(got.Args, was.Args) || !reflect.DeepEqual(got.Env, was.Env) {
		t.Fatalf("restored %q %q, want %q %q", got.Command, got.Args, was.Command, was.Args)
	}
	if !bytes.Contains(back, []byte("/* a stdio server, with an env file */")) {
		t.Fatal("a comment outside the entry was lost")
	}
}

// TestWrapHTTP: an HTTP entry's url points at the tap proxy, with its path and query;
// its headers stay; a second wrap changes nothing; unwrap restores it.
func TestWrapHTTP(t *testing.T) {
	for _, tc := range []struct{ file, client, name, want string }{
		{"cursor-mcp.json", "Cursor", "remote", "http://127.0.0.1:7777/mcp?team=a%20b"},
		{"vscode-mcp.json", "VS Code (workspace)", "github", "http://127.0.0.1:7777/mcp/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc := copyFile(t, tc.file, tc.client)
			orig, _ := os.ReadFile(loc.Path)
			p := wrapOnce(t, loc, Options{Self: self, Name: tc.name, Listen: "127.0.0.1:7777"})
			now, _ := os.ReadFile(loc.Path)
			e := entries(t, loc, now)[tc.name]
			if p.Kind != "http" || e.URL != tc.want || !reflect.DeepEqual(e.Headers, entries(t, loc, orig)[tc.name].Headers) {
				t.Fatalf("kind %q url %q headers %v", p.Kind, e.URL, e.Headers)
			}
			if p.Upstream != entries(t, loc, orig)[tc.name].URL || p.Listen != "127.0.0.1:7777" {
				t.Fatalf("upstream %q listen %q", p.Upstream, p.Listen)
			}
			if again := wrapOnce(t, loc, Options{Self: self, Name: tc.name}); !again.Already {
				t.Fatal("a second wrap of the HTTP entry would change it again")
			}
			unwrapOnce(t, loc, tc.name)
			if back, _ := os.ReadFile(loc.Path); !bytes.Equal(back, orig) {
				t.Fatalf("unwrap:\n%s", back)
			}
		})
	}
}

// TestWrapRefuses: what wrap will not do, each with a message that says what to do.
func TestWrapRefuses(t *testing.T) {
	loc := copyFile(t, "claude-code.mcp.json", "Claude Code (project)")
	file, data, mode, _ := Load(loc)
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{Self: self, Name: "api"}, "holds a placeholder"},
		{Options{Self: self, Name: "nope"}, `has no server "nope"`},
		{Options{Self: self, Name: "a/b"}, `server name "a/b"`},
		{Options{Self: self, Name: "git", Listen: "0.0.0.0:1"}, ""}, // stdio: --listen is not used
	} {
		_, err := PlanWrap(context.Background(), loc, file, data, mode, tc.opts)
		var ue *UsageError
		if tc.want == "" {
			if err != nil {
				t.Fatalf("%+v: %v", tc.opts, err)
			}
			continue
		}
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%+v: %v, want a usage error with %q", tc.opts, err, tc.want)
		}
	}
	loc = copyFile(t, "cursor-mcp.json", "Cursor")
	file, data, mode, _ = Load(loc)
	if _, err := PlanWrap(context.Background(), loc, file, data, mode, Options{Self: self, Name: "remote", Listen: "0.0.0.0:9"}); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("a non-loopback --listen: %v", err)
	}
}

// TestWriteRefusesAChangedFile: the file changed between reading it and writing it
// (the host saved its settings meanwhile): nothing is written, no backup is left.
func TestWriteRefusesAChangedFile(t *testing.T) {
	loc := copyFile(t, "claude_desktop_config.json", "Claude Desktop")
	file, data, mode, _ := Load(loc)
	p, err := PlanWrap(context.Background(), loc, file, data, mode, Options{Self: self, Name: "everything"})
	if err != nil {
		t.Fatal(err)
	}
	changed := bytes.Replace(data, []byte("Alt+Space"), []byte("Ctrl+Space"), 1)
	if err := os.WriteFile(loc.Path, changed, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write(time.Now()); !errors.Is(err, ErrChanged) {
		t.Fatalf("Write: %v, want ErrChanged", err)
	}
	if now, _ := os.ReadFile(loc.Path); !bytes.Equal(now, changed) || len(backups(loc.Path)) != 0 {
		t.Fatal("the changed file was overwritten, or a backup was left")
	}
}

// TestWrapThroughASymlink: a config file linked from a dotfiles repository: the link
// stays a link, the file it points at is written, the backup is beside that file.
func TestWrapThroughASymlink(t *testing.T) {
	target := copyFile(t, "cursor-mcp.json", "Cursor")
	link := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.Symlink(target.Path, link); err != nil {
		t.Fatal(err)
	}
	loc := config.Location{Path: link, Client: "Cursor"}
	wrapOnce(t, loc, Options{Self: self, Name: "local"})
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", st.Mode(), err)
	}
	data, _ := os.ReadFile(target.Path)
	if e := entries(t, target, data)["local"]; e.Command != self {
		t.Fatalf("the linked file was not wrapped: %q", e.Command)
	}
	if len(backups(target.Path)) != 1 {
		t.Fatal("no backup beside the linked file")
	}
}

// TestFindNamesTheFile: --client picks among the host's usual places; the same
// name in two hosts' files is refused with both named.
func TestFindNamesTheFile(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Chdir(t.TempDir())
	write := func(p, body string) {
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	desktop := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	write(desktop, `{"mcpServers": {"fs": {"command": "a"}, "only": {"command": "b"}}}`)
	write(cursor, `{"mcpServers": {"fs": {"command": "c"}}}`)
	if l, err := Find("only", "", ""); err != nil || l.Path != desktop || l.Client != "Claude Desktop" {
		t.Fatalf("only: %+v %v", l, err)
	}
	if l, err := Find("fs", "cursor", ""); err != nil || l.Path != cursor {
		t.Fatalf("fs --client cursor: %+v %v", l, err)
	}
	_, err := Find("fs", "", "")
	if err == nil || !strings.Contains(err.Error(), "2 config files") || !strings.Contains(err.Error(), "--client") {
		t.Fatalf("fs in two files: %v", err)
	}
	if _, err := Find("fs", "zed", ""); err == nil || !slices.ContainsFunc(Clients, func(c string) bool { return strings.Contains(err.Error(), c) }) {
		t.Fatalf("unknown client: %v", err)
	}
	if l, err := Find("fs", "", cursor); err != nil || l.Client != "Cursor" {
		t.Fatalf("--config: %+v %v", l, err)
	}
}

// TestWrapClaudeJSONProject: in ~/.claude.json a server of the project in the
// working directory (projects.DIR.mcpServers) is wrapped there; the same name in
// another project and Claude Code's own state beside it stay byte for byte.
func TestWrapClaudeJSONProject(t *testing.T) {
	proj := t.TempDir()
	t.Chdir(proj)
	cwd, _ := os.Getwd()
	other := `"/home/ada/other": {"allowedTools": [], "mcpServers": {"db": {"command": "db-mcp", "args": ["--other"]}}}`
	body := `{"numStartups": 42, "projects": {` + other + `, ` + string(jsonText(cwd)) + `: {"mcpServers": {"db": {"command": "db-mcp", "args": ["--here"]}}, "hasTrustDialogAccepted": true}}, "userID": "abc"}` + "\n"
	p := filepath.Join(t.TempDir(), ".claude.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	loc := config.Location{Path: p, Client: "Claude Code (user)"}
	wrapOnce(t, loc, Options{Self: self, Name: "db"})
	now, _ := os.ReadFile(p)
	if !bytes.Contains(now, []byte(other)) || !bytes.Contains(now, []byte(`"args": ["tap", "--name", "db", "--", "db-mcp", "--here"]`)) {
		t.Fatalf("got\n%s", now)
	}
	unwrapOnce(t, loc, "db")
	if back, _ := os.ReadFile(p); string(back) != body {
		t.Fatalf("unwrap:\n%s", back)
	}
}

// A wrapped entry is recognised by its command being this very binary too, whatever
// it is called (wrap writes os.Executable's path; a binary built as ./ms was not
// recognised, and unwrap said "not wrapped").
func TestWrappedByARenamedBinary(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"tap", "--name", "x", "--", "node", "x.js"}
	if !Wrapped(config.Entry{Command: self, Args: args}) {
		t.Errorf("an entry running %s (this binary) through the tap is not recognised as wrapped", self)
	}
	other := filepath.Join(t.TempDir(), "ms")
	if err := os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if Wrapped(config.Entry{Command: other, Args: args}) {
		t.Errorf("an entry running another program %s is taken for a tap", other)
	}
}
