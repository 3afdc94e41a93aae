package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/host"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/replay"
	"github.com/mcpscope/mcpscope/target"
)

// recordFake records a session with a fake server scenario into a file.
func recordFake(t *testing.T, scenario string, run func(s *client.Session)) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), scenario+".jsonl")
	argv := testutil.FakeServer(t, scenario)
	w, err := record.Create(path, record.Header{Target: record.Target{Transport: "stdio", Argv: argv}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tap := &wire.Tap{}
	tap.Listen(w.Listen)
	s, err := client.Connect(context.Background(), target.Target{Argv: argv}, client.Options{Tap: tap})
	if err != nil {
		t.Fatal(err)
	}
	run(s)
	s.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func call(t *testing.T, s *client.Session, name, args string) {
	t.Helper()
	if _, err := s.Call(context.Background(), name, json.RawMessage(args), client.CallOptions{}); err != nil {
		t.Fatal(err)
	}
}

// Golden fails on a difference and, with -update (here MCPSCOPE_UPDATE), rewrites the
// recorded response instead.
func TestGoldenUpdate(t *testing.T) {
	path := recordFake(t, "ndjson", func(s *client.Session) { call(t, s, "echo", `{"message":"golden"}`) })
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte(`echo: golden`), []byte(`echo: tarnished`), 1), 0o600)
	argv := testutil.FakeServer(t, "ndjson")

	t.Setenv("MCPSCOPE_UPDATE", "1")
	if !replay.Updating() {
		t.Fatal("MCPSCOPE_UPDATE=1 does not count as -update")
	}
	replay.Golden(t, path, replay.Command(argv[0], argv[1:]...))
	b, _ = os.ReadFile(path)
	if !bytes.Contains(b, []byte(`echo: golden`)) || bytes.Contains(b, []byte("tarnished")) {
		t.Fatalf("not updated:\n%s", b)
	}
	t.Setenv("MCPSCOPE_UPDATE", "")
	replay.Golden(t, path, replay.Command(argv[0], argv[1:]...)) // passes now
}

// A server that dies mid-replay fails that exchange; the rest are reported as not
// replayed, and no process is left.
func TestRunServerDies(t *testing.T) {
	path := recordFake(t, "ndjson", func(s *client.Session) {
		call(t, s, "echo", `{"message":"one"}`)
		call(t, s, "echo", `{"message":"two"}`)
	})
	// Make the second call one to the fake server's crash tool.
	b, _ := os.ReadFile(path)
	b = bytes.Replace(b, []byte(`"name":"echo","arguments":{"message":"two"}`), []byte(`"name":"crash","arguments":{}`), 1)
	os.WriteFile(path, b, 0o600)
	rec, err := record.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	pidfile, env := testutil.PIDFile(t)
	report, err := replay.Run(context.Background(), rec, target.Target{Argv: testutil.FakeServer(t, "ndjson")}, replay.Options{Client: client.Options{Env: []string{env}}})
	if err != nil {
		t.Fatal(err)
	}
	testutil.AssertGone(t, pidfile, 1)
	if report.OK() || len(report.Failures) != 1 || !strings.Contains(report.Failures[0].Err, "closed the connection") || !strings.Contains(report.Failures[0].Err, "crashing now") {
		var buf bytes.Buffer
		report.WriteText(&buf)
		t.Errorf("report:\n%s", buf.String())
	}
}

// Replay waits no longer than its timeout for a response.
func TestRunTimeout(t *testing.T) {
	path := recordFake(t, "progress", func(s *client.Session) { call(t, s, "slow", `{"steps":1}`) })
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte(`"steps":1`), []byte(`"steps":400`), 1), 0o600)
	rec, _ := record.Load(path)
	// The slow call takes 400 × 50 ms: a replay that waited for it would find it equal.
	report, err := replay.Run(context.Background(), rec, target.Target{Argv: testutil.FakeServer(t, "progress")}, replay.Options{Timeout: 300 * time.Millisecond, Client: client.Options{Grace: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Failures) != 1 || report.Failures[0].Err != "no response within 300ms" {
		t.Errorf("%+v", report.Failures)
	}
}

// Round trips over Streamable HTTP in both eras, against the bundled host served
// in-process: record, replay equal; change one value, replay reports that path;
// update, replay equal again.
func TestHTTPRoundTrip(t *testing.T) {
	h, err := host.New(host.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h.HTTPHandler())
	defer srv.Close()
	url := srv.URL + "/mcp"
	for _, protocol := range []string{"", "2025-11-25"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "http.jsonl")
			w, err := record.Create(path, record.Header{Target: record.Target{Transport: "http", URL: url}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			tap := &wire.Tap{}
			tap.Listen(w.Listen)
			ctx := context.Background()
			s, err := client.Connect(ctx, target.Target{URL: url}, client.Options{Tap: tap, Protocol: protocol})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Tools(ctx); err != nil {
				t.Fatal(err)
			}
			call(t, s, "echo", `{"text":"over http"}`)
			if _, err := s.Call(ctx, "slow", json.RawMessage(`{"steps":3,"delayMs":5}`), client.CallOptions{OnProgress: func(client.Progress) {}}); err != nil {
				t.Fatal(err)
			}
			s.Close()
			w.Close()

			rec, err := record.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			notes := 0
			for _, x := range rec.Exchanges() {
				notes += len(x.Notifications)
			}
			if notes != 3 {
				t.Errorf("%d progress notifications recorded over HTTP, want 3", notes)
			}
			run := func() *replay.Report {
				t.Helper()
				rec, err := record.Load(path)
				if err != nil {
					t.Fatal(err)
				}
				report, err := replay.Run(ctx, rec, target.Target{URL: url}, replay.Options{Update: true})
				if err != nil {
					t.Fatal(err)
				}
				return report
			}
			if r := run(); !r.OK() || r.Replayed < 3 {
				t.Fatalf("%s", r.Summary())
			}
			b, _ := os.ReadFile(path)
			os.WriteFile(path, bytes.Replace(b, []byte(`"text":"over http"}]`), []byte(`"text":"over htttp"}]`), 1), 0o600)
			r := run()
			if len(r.Failures) != 1 || len(r.Failures[0].Diffs) != 1 || r.Failures[0].Diffs[0].Path != "/result/content/0/text" {
				var buf bytes.Buffer
				r.WriteText(&buf)
				t.Fatalf("after the edit:\n%s", buf.String())
			}
			if err := r.Updated.Save(path); err != nil {
				t.Fatal(err)
			}
			if r := run(); !r.OK() {
				t.Errorf("after --update: %s", r.Summary())
			}
		})
	}
}

// RunFile, which reads the file as it replays, reports what Run reports of the
// recording in memory: the same exchanges, skips, --only's usage error and warnings.
func TestRunFileReportsWhatRunReports(t *testing.T) {
	path := recordFake(t, "ndjson", func(s *client.Session) {
		call(t, s, "echo", `{"message":"one"}`)
		call(t, s, "echo", `{"message":"two"}`)
	})
	b, _ := os.ReadFile(path)
	b = b[:bytes.LastIndex(bytes.TrimRight(b, "\n"), []byte("\n"))+1] // the end marker cut off
	os.WriteFile(path, b, 0o600)
	argv := testutil.FakeServer(t, "ndjson")
	rec, err := record.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, only := range [][]string{nil, {"3"}} {
		opts := replay.Options{Only: only}
		want, err := replay.Run(context.Background(), rec, target.Target{Argv: argv}, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := replay.RunFile(context.Background(), path, "", target.Target{Argv: argv}, opts)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := json.Marshal(want)
		g, _ := json.Marshal(got)
		if string(w) != string(g) {
			t.Errorf("--only %v:\nRunFile %s\nRun     %s", only, g, w)
		}
		if !strings.Contains(string(g), "no end marker") || got.Replayed == 0 {
			t.Errorf("--only %v: the report lacks the warning or replayed nothing: %s", only, g)
		}
	}
	_, err = replay.RunFile(context.Background(), path, "", target.Target{Argv: argv}, replay.Options{Only: []string{"nope"}})
	var ue *client.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "the recording has: 3, echo, 4") {
		t.Errorf("--only nope: %v", err)
	}
}
