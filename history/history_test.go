package history_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/history"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/replay"
	"github.com/mcpscope/mcpscope/target"
)

func TestMain(m *testing.M) {
	if os.Getenv("HISTORY_HELPER") != "" {
		os.Exit(helper())
	}
	testutil.Main(m)
}

const (
	envSecret    = "s3cr3t-from-dash-e-0123456789"
	bearerSecret = "bearer-token-abcdefghijklmnop"
	argvSecret   = "argv-key-zyxwvutsrqponm"
)

var srv = history.Server{Name: "dev", Target: target.Target{Argv: []string{"./server", "--api-key", argvSecret}}}

// redactor is what a session with -e API_TOKEN=… and --bearer … builds.
func redactor() *record.Redactor {
	_, secrets := record.EnvSecrets([]string{"API_TOKEN=" + envSecret})
	red, err := record.NewRedactor(append(secrets, bearerSecret), nil)
	if err != nil {
		panic(err)
	}
	return red
}

// helper is the first process: it records three calls, secrets in them, and exits.
func helper() int {
	l, err := history.Open(srv, history.Options{Redact: redactor()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for i := 0; i < 3; i++ {
		args := fmt.Sprintf(`{"text":"call %d","token":%q,"auth":"Bearer %s","key":%q}`, i, envSecret, bearerSecret, argvSecret)
		res := fmt.Sprintf(`{"content":[{"type":"text","text":"echo %s"}]}`, envSecret)
		if _, err := l.Add(history.Entry{Tool: "echo", Arguments: json.RawMessage(args), Result: json.RawMessage(res)}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

func TestPersistedAcrossProcessesAndRedacted(t *testing.T) {
	state := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "HISTORY_HELPER=1", "XDG_STATE_HOME="+state)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("first process: %v\n%s", err, out)
	}
	t.Setenv("XDG_STATE_HOME", state)
	l, err := history.Open(srv, history.Options{Redact: redactor()})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(l.Path(), filepath.Join(state, "mcpscope", "history")) {
		t.Errorf("file %s is not under XDG_STATE_HOME", l.Path())
	}
	es := l.Entries()
	if len(es) != 3 || !strings.Contains(string(es[2].Arguments), "call 2") {
		t.Fatalf("entries from the first process: %+v", es)
	}
	if got := l.Search("call 1"); len(got) != 1 {
		t.Errorf("search: %+v", got)
	}
	// Another server (same name, another command) has its own history.
	other, _ := history.Open(history.Server{Name: "dev", Target: target.Target{Argv: []string{"./other"}}}, history.Options{})
	if len(other.Entries()) != 0 {
		t.Errorf("another command shares the history")
	}
	// No secret reaches the disk, in any file of the state directory.
	filepath.WalkDir(state, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, s := range []string{envSecret, bearerSecret, argvSecret} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds the secret %q", p, s)
			}
		}
		if !bytes.Contains(b, []byte(record.Redacted)) {
			t.Errorf("%s: nothing redacted?", p)
		}
		return nil
	})
}

func TestBound(t *testing.T) {
	dir := t.TempDir()
	l, err := history.Open(srv, history.Options{Dir: dir, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 23; i++ {
		if _, err := l.Add(history.Entry{Tool: "t", Arguments: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(l *history.Log) {
		es := l.Entries()
		if len(es) != 5 || string(es[0].Arguments) != `{"i":18}` || string(es[4].Arguments) != `{"i":22}` {
			t.Fatalf("kept: %+v", es)
		}
	}
	check(l)
	b, _ := os.ReadFile(l.Path())
	if n := bytes.Count(b, []byte("\n")); n > 11 {
		t.Errorf("the file has %d lines for a bound of 5", n)
	}
	again, err := history.Open(srv, history.Options{Dir: dir, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	check(again)
}

func TestDamagedFileIsSetAside(t *testing.T) {
	for _, tc := range []struct{ name, content, aside, msg string }{
		{"corrupt", "\x00\x01 not json at all\n", ".corrupt.", "corrupt"},
		{"future", `{"mcpscope":"history","version":99,"server":"dev"}` + "\n" + `{"id":"x","tool":"t"}` + "\n", ".v99.", "newer mcpscope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			l, _ := history.Open(srv, history.Options{Dir: dir})
			l.Add(history.Entry{Tool: "before"})
			if err := os.WriteFile(l.Path(), []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			l, err := history.Open(srv, history.Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], tc.msg) || !strings.Contains(l.Warnings[0], "a new history starts") {
				t.Fatalf("warnings: %v", l.Warnings)
			}
			if len(l.Entries()) != 0 {
				t.Errorf("entries from a damaged file: %+v", l.Entries())
			}
			matches, _ := filepath.Glob(l.Path() + tc.aside + "*")
			if len(matches) != 1 {
				t.Fatalf("set aside: %v", matches)
			}
			if b, _ := os.ReadFile(matches[0]); string(b) != tc.content {
				t.Errorf("the set-aside file changed")
			}
			if _, err := l.Add(history.Entry{Tool: "after"}); err != nil {
				t.Fatal(err)
			}
			l2, _ := history.Open(srv, history.Options{Dir: dir})
			if es := l2.Entries(); len(es) != 1 || es[0].Tool != "after" || len(l2.Warnings) != 0 {
				t.Errorf("new history: %+v %v", es, l2.Warnings)
			}
		})
	}
	t.Run("torn last line", func(t *testing.T) {
		dir := t.TempDir()
		l, _ := history.Open(srv, history.Options{Dir: dir})
		l.Add(history.Entry{Tool: "a"})
		f, _ := os.OpenFile(l.Path(), os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(`{"id":"torn","tool":`)
		f.Close()
		l2, _ := history.Open(srv, history.Options{Dir: dir})
		if len(l2.Entries()) != 1 || len(l2.Warnings) != 1 || !strings.Contains(l2.Warnings[0], "skipped") {
			t.Errorf("torn line: %+v %v", l2.Entries(), l2.Warnings)
		}
	})
}

// TestCollectionReplays: calls made on the bundled host, marked, saved as a
// collection, replayed (all, then --only some) against the host.
func TestCollectionReplays(t *testing.T) {
	dir := t.TempDir()
	target := target.Target{Argv: []string{testutil.Mcpscope(t), "host"}}
	ctx := testutil.Context(t)
	s, err := client.Connect(ctx, target, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := history.Open(history.Server{Name: "host", Target: target}, history.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"one", "two", "three"} {
		args := json.RawMessage(fmt.Sprintf(`{"text":%q}`, text))
		r, err := s.Call(ctx, "echo", args, client.CallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Add(history.Entry{Tool: "echo", Arguments: args, Result: r.Raw}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	es := l.Entries()
	if err := l.Mark(true, es[0].ID, es[2].ID); err != nil {
		t.Fatal(err)
	}
	l2, _ := history.Open(history.Server{Name: "host", Target: target}, history.Options{Dir: dir})
	marked := l2.Marked()
	if len(marked) != 2 {
		t.Fatalf("marks not kept: %+v", l2.Entries())
	}
	coll := filepath.Join(dir, "smoke.jsonl")
	names, skipped, err := l2.SaveCollection(coll, marked, nil)
	if err != nil || len(skipped) != 0 || strings.Join(names, ",") != "echo-1,echo-2" {
		t.Fatalf("save: %v %v %v", names, skipped, err)
	}
	rec, err := record.Load(coll)
	if err != nil {
		t.Fatal(err)
	}
	run := func(only ...string) *replay.Report {
		rep, err := replay.Run(context.Background(), rec, target, replay.Options{Only: only})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	if rep := run(); !rep.OK() || rep.Replayed != 2 {
		t.Fatalf("replay: %s", rep.Summary())
	}
	if rep := run("echo-2"); !rep.OK() || rep.Replayed != 1 || len(rep.Skipped) != 1 {
		t.Fatalf("replay --only echo-2: %s", rep.Summary())
	}
	if _, err := replay.Run(context.Background(), rec, target, replay.Options{Only: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), "echo-1, echo, echo-2") {
		t.Fatalf("--only nope: %v", err)
	}
}
