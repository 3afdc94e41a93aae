package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/replay"
)

// recordTwo records two fake servers, "a" and "b", into one recording of several:
// each answers one echo call with its own message.
func recordTwo(t *testing.T) (path string, argv []string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "two.jsonl")
	argv = testutil.FakeServer(t, "ndjson")
	target := record.Target{Transport: "stdio", Argv: argv}
	w, err := record.Create(path, record.Header{Target: target, Servers: []record.Server{{Name: "a", Target: target}, {Name: "b", Target: target}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		tap := &wire.Tap{}
		tap.Listen(w.ListenServer(name))
		s, err := client.Connect(context.Background(), client.Target{Argv: argv}, client.Options{Tap: tap})
		if err != nil {
			t.Fatal(err)
		}
		call(t, s, "echo", `{"message":"from `+name+`"}`)
		s.Close()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path, argv
}

// RunServers replays each server of a recording of several against its own target;
// the text report names the server on every line, and Differs names the one whose
// answer changed, with its count.
func TestRunServers(t *testing.T) {
	path, argv := recordTwo(t)
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte(`echo: from b`), []byte(`echo: from elsewhere`), 1), 0o600)
	rec, err := record.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	runs := []replay.ServerRun{{Name: "a", Target: client.Target{Argv: argv}}, {Name: "b", Target: client.Target{Argv: argv}}}
	report, err := replay.RunServers(context.Background(), rec, runs)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := report.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n") {
		if !strings.HasPrefix(line, "a: ") && !strings.HasPrefix(line, "b: ") {
			t.Errorf("a line names no server: %q\n%s", line, text.String())
		}
	}
	if !strings.Contains(text.String(), "a: replay: all 1 exchanges equal") || !strings.Contains(text.String(), "b:     expected: ") {
		t.Errorf("report:\n%s", text.String())
	}
	if report.OK() || report.Differs() != `server "b" in 1 of 1 exchange` {
		t.Errorf("OK %v, Differs %q", report.OK(), report.Differs())
	}
	j, _ := json.Marshal(report)
	if !bytes.HasPrefix(j, []byte(`{"servers":[{"server":"a","report":{"replayed":1,`)) {
		t.Errorf("JSON: %s", j)
	}
	// A server the recording does not have is a usage error, before anything runs.
	_, err = replay.RunServers(context.Background(), rec, []replay.ServerRun{{Name: "c"}})
	var ue *client.UsageError
	if !errors.As(err, &ue) || !strings.Contains(ue.Msg, "it has: a, b") {
		t.Errorf("server c: %v", err)
	}
}

// --only among several servers: NAME picks every server that has it, SERVER/NAME
// only that one; a server no name picks is skipped; a name nothing has is a usage
// error listing what each server has.
func TestOnlyByServer(t *testing.T) {
	path, _ := recordTwo(t)
	rec, err := record.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	picked, skipped, err := replay.OnlyByServer(rec, []string{"a", "b"}, []string{"echo"})
	if err != nil || len(picked["a"]) != 1 || len(picked["b"]) != 1 || len(skipped) != 0 {
		t.Errorf("echo: %v %v %v", picked, skipped, err)
	}
	picked, skipped, err = replay.OnlyByServer(rec, []string{"a", "b"}, []string{"b/echo"})
	if err != nil || len(picked["a"]) != 0 || strings.Join(picked["b"], ",") != "echo" || strings.Join(skipped, ",") != "a" {
		t.Errorf("b/echo: %v %v %v", picked, skipped, err)
	}
	_, _, err = replay.OnlyByServer(rec, []string{"a", "b"}, []string{"nope"})
	var ue *client.UsageError
	if !errors.As(err, &ue) || !strings.Contains(ue.Msg, "--only nope") || !strings.Contains(ue.Msg, "a: ") || !strings.Contains(ue.Msg, "; b: ") {
		t.Errorf("nope: %v", err)
	}
}

// RecordedTarget starts the recorded target again, or says why it cannot.
func TestRecordedTarget(t *testing.T) {
	if _, _, err := replay.RecordedTarget(record.Target{Transport: "http", URL: "http://127.0.0.1:9/mcp?k=" + record.Redacted}); !errors.Is(err, replay.ErrUnusableURL) {
		t.Errorf("redacted URL: %v", err)
	}
	if _, _, err := replay.RecordedTarget(record.Target{Transport: "stdio"}); !errors.Is(err, replay.ErrNoCommand) {
		t.Errorf("no command: %v", err)
	}
	target, redacted, err := replay.RecordedTarget(record.Target{Transport: "stdio", Argv: []string{"srv", "--key", record.Redacted}, Dir: "/tmp"})
	if err != nil || !redacted || target.Argv[0] != "srv" || target.Dir != "/tmp" {
		t.Errorf("command: %+v %v %v", target, redacted, err)
	}
	target, _, err = replay.RecordedTarget(record.Target{Transport: "http", URL: "http://127.0.0.1:9/mcp"})
	if err != nil || target.URL != "http://127.0.0.1:9/mcp" {
		t.Errorf("URL: %+v %v", target, err)
	}
}

// PlanServers says what a replay of several cannot do before any server runs, and
// asks setup for each server replayed with its own part's recorded target; --only
// leaves out (with a note) a server it picks nothing of, and every run has the
// shared options with its own client options and --only names.
func TestPlanServers(t *testing.T) {
	path, argv := recordTwo(t)
	rec, err := record.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	setup := func(name string, recorded record.Target) (client.Target, client.Options, error) {
		asked = append(asked, name+" "+strings.Join(recorded.Argv, " "))
		return client.Target{Argv: recorded.Argv}, client.Options{Protocol: name}, nil
	}
	for _, c := range []struct {
		sev  replay.Several
		want string
	}{
		{replay.Several{Argv: []string{"x"}}, "a command or URL after -- replaces one: add --server NAME"},
		{replay.Several{Update: true}, "--update is not supported yet"},
		{replay.Several{Record: true}, "--record is not supported yet"},
		{replay.Several{Only: []string{"nope"}}, "--only nope: no exchange"},
	} {
		asked = nil
		_, _, err := replay.PlanServers(rec, c.sev, setup)
		var ue *client.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) || len(asked) > 0 {
			t.Errorf("%+v: %v (asked %v), want a usage error with %q before any setup", c.sev, err, asked, c.want)
		}
	}
	asked = nil
	runs, notes, err := replay.PlanServers(rec, replay.Several{Only: []string{"b/3"}, Options: replay.Options{StrictOrder: true}}, setup)
	if err != nil {
		t.Fatal(err)
	}
	one := strings.Join(argv, " ")
	if len(runs) != 1 || runs[0].Name != "b" || runs[0].Options.Client.Protocol != "b" || !runs[0].Options.StrictOrder ||
		strings.Join(runs[0].Options.Only, ",") != "3" || strings.Join(asked, ";") != "b "+one {
		t.Errorf("runs %+v, asked %v", runs, asked)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "--only names no exchange of a; not replayed") {
		t.Errorf("notes %v", notes)
	}
	if _, _, err := replay.PlanServers(&record.Recording{}, replay.Several{File: "one.jsonl", Servers: []string{"a"}}, setup); err == nil || !strings.Contains(err.Error(), "one.jsonl records one server") {
		t.Errorf("a recording of one: %v", err)
	}
}
