package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
)

// One recording of a three-server session (the bundled host twice under two names,
// and server-everything): the header names every server, every event its server; it
// replays green; a changed answer of one server is reported with that server's name.
func TestRecordReplaySeveralServers(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "three.jsonl")
	ev := strings.Join(testutil.Everything(t), " ")
	r := mcpscope(t, nil, "--inspect", "--record", file, "--server", "a=host", "--server", "b=host", "--server", "ev="+ev)
	expect(t, r, 0, []string{"== a: connected ==", "== b: connected ==", "== ev: connected =="}, nil)
	rec, err := record.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Header.Version != record.VersionServers || strings.Join(rec.ServerNames(), ",") != "a,b,ev" || rec.Header.Servers[2].Target.Argv[0] != testutil.Everything(t)[0] {
		t.Fatalf("header: %+v", rec.Header)
	}
	per := map[string]int{}
	for _, e := range rec.Events {
		if e.Server == "" {
			t.Fatalf("line %d has no server: %+v", e.Line, e)
		}
		per[e.Server]++
	}
	if per["a"] == 0 || per["b"] == 0 || per["ev"] == 0 {
		t.Fatalf("events per server: %v", per)
	}

	r = mcpscope(t, nil, "replay", file)
	expect(t, r, 0, []string{"a: replay: all", "b: replay: all", "ev: replay: all"}, nil)
	r = mcpscope(t, nil, "replay", file, "--server", "b", "--format", "json")
	expect(t, r, 0, []string{`"server": "b"`}, nil)
	var doc struct {
		Servers []struct {
			Server string          `json:"server"`
			Report json.RawMessage `json:"report"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Servers) != 1 || doc.Servers[0].Server != "b" {
		t.Fatalf("json: %v\n%s", err, r.stdout)
	}

	// Change b's recorded tools/list answer only.
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	changed := 0
	for i, l := range lines {
		if strings.Contains(l, `"server":"b"`) && strings.Contains(l, `"dir":"recv"`) && strings.Contains(l, "Returns its text argument unchanged.") {
			lines[i] = strings.Replace(l, "Returns its text argument unchanged.", "Returns something else.", 1)
			changed++
		}
	}
	if changed == 0 {
		t.Fatalf("no tools/list answer of b in the recording")
	}
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	r = mcpscope(t, nil, "replay", file)
	expect(t, r, 1, []string{"b: exchange", "tools/list", "b: replay: 1 of", "a: replay: all", "ev: replay: all"}, []string{`differs from the live servers: server "b" in 1 of`})
	if strings.Contains(r.stdout, "a: exchange") || strings.Contains(r.stdout, "ev: exchange") {
		t.Errorf("a difference is blamed on the wrong server:\n%s", r.stdout)
	}

	// serve one server of it; a recording of several needs --server.
	expect(t, mcpscope(t, nil, "serve", file), 2, nil, []string{"records 3 servers; serve one", "a, b, ev"})
	expect(t, mcpscope(t, nil, "serve", file, "--server", "nope"), 2, nil, []string{`no server named "nope"`})
	r = mcpscope(t, nil, "--inspect", "--", testutil.Mcpscope(t), "serve", file, "--server", "ev")
	expect(t, r, 0, []string{"echo", "get-sum"}, nil)
	r = mcpscope(t, nil, "replay", file, "--server", "zz")
	expect(t, r, 2, nil, []string{`no server named "zz"`})
}

// A version 1 recording still loads, replays and serves; --server does not apply.
func TestVersionOneRecordingStillWorks(t *testing.T) {
	t.Parallel()
	v1 := filepath.Join(testutil.Root(), "testdata", "host-demo.jsonl")
	rec, err := record.Load(v1)
	if err != nil || rec.Header.Version != record.Version || rec.Several() {
		t.Fatalf("%+v %v", rec, err)
	}
	// host-demo.jsonl was recorded with --faults (it calls bad_output).
	expect(t, mcpscope(t, nil, "replay", v1, "--", testutil.Mcpscope(t), "host", "--faults"), 0, []string{"replay: all"}, nil)
	expect(t, mcpscope(t, nil, "replay", v1, "--server", "a"), 2, nil, []string{"records one server"})
	r := mcpscope(t, nil, "--inspect", "--", testutil.Mcpscope(t), "serve", v1)
	expect(t, r, 0, []string{"echo"}, nil)
}

// replay --only on a recording of several servers: NAME picks the exchanges of
// whichever server has it, SERVER/NAME one server's; a server no name picks is not
// replayed; a name no server has is a usage error naming what each has.
func TestReplayOnlySeveralServers(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "two.jsonl")
	// --no-pins: the first connection's pin would list each server's prompts and
	// templates too (ids mcpscope-1, -2), which this test of --only does not need.
	expect(t, mcpscope(t, nil, "--inspect", "--no-pins", "--record", file, "--server", "a=host", "--server", "b=host"), 0, nil, nil)
	// id 3 is each server's tools/list.
	r := mcpscope(t, nil, "replay", file, "--only", "3", "--format", "json")
	expect(t, r, 0, []string{`"server": "a"`, `"server": "b"`, `"replayed": 1`}, nil)
	r = mcpscope(t, nil, "replay", file, "--only", "a/3", "--format", "json")
	expect(t, r, 0, []string{`"server": "a"`, `"replayed": 1`}, []string{"--only names no exchange of b; not replayed"})
	if strings.Contains(r.stdout, `"server": "b"`) {
		t.Errorf("b was replayed:\n%s", r.stdout)
	}
	r = mcpscope(t, nil, "replay", file, "--only", "zz")
	expect(t, r, 2, nil, []string{"--only zz: no exchange of the servers replayed", "they have: a: 3; b: 3"})
}
