package replay_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/replay"
	"github.com/mcpscope/mcpscope/target"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// goldenDir holds the project's own recordings: sessions with the bundled host.
func goldenDir() string { return filepath.Join(testutil.Root(), "testdata") }

// TestHostGoldens replays every recording in testdata/ against the bundled host, so a
// change to the host, the client or the recorder shows up as a diff. go test -update
// rewrites the recorded responses; MCPSCOPE_RECORD_GOLDENS=1 records the sessions
// anew (see goldenSessions).
func TestHostGoldens(t *testing.T) {
	bin := testutil.Mcpscope(t)
	if os.Getenv("MCPSCOPE_RECORD_GOLDENS") != "" {
		for _, g := range goldenSessions {
			recordGolden(t, bin, g)
		}
	}
	files, _ := filepath.Glob(filepath.Join(goldenDir(), "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no recordings in testdata/")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			rec, err := record.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			argv := append([]string(nil), rec.Header.Target.Argv...)
			if len(argv) == 0 || argv[0] != "mcpscope" {
				t.Fatalf("%s: recorded command %q is not mcpscope's host", f, argv)
			}
			replay.Golden(t, f, replay.Command(bin, argv[1:]...))
		})
	}
}

// golden describes one recorded session with the host.
type golden struct {
	file     string
	args     []string // after "mcpscope"
	protocol string   // force a version ("" negotiates: 2026-07-28 with the host)
	framing  wire.Framing
	ignore   []string // saved in the header
	run      func(t *testing.T, s *client.Session)
}

// volatile are the host's answers that change from run to run.
var volatile = []string{
	"now:/result/content/0/text",
	"now:/result/structuredContent",
	"random_id:/result/content/0/text",
	"/result/_meta/io.modelcontextprotocol~1serverInfo/version", // mcpscope's own version
}

var goldenSessions = []golden{
	// --faults: the session calls bad_output too, whose structuredContent breaks its
	// own output schema, so replay compares a fault as it was recorded.
	{file: "host-demo.jsonl", args: []string{"host", "--faults"}, ignore: volatile, run: func(t *testing.T, s *client.Session) {
		ctx := context.Background()
		if _, err := s.Tools(ctx); err != nil {
			t.Fatal(err)
		}
		calls := []struct{ name, args string }{
			{"echo", `{"text":"hello, golden"}`},
			{"add", `{"a":2,"b":3.5}`},
			{"now", `{}`},
			{"pretend_delete", `{"path":"/tmp/nothing"}`},
			{"set_counter", `{"value":7}`},
			{"pretend_search", `{"query":"model context protocol"}`},
			{"random_id", `{}`},
			{"image", `{}`},
			{"audio", `{}`},
			{"resource_links", `{}`},
			{"embedded_resources", `{}`},
			{"fail", `{}`},
			{"bad_output", `{}`},
			{"rich_form", `{"title":"T","priority":"high","tags":["a","b"],"owner":{"name":"Ann","email":"ann@example.com"}}`},
			{"big", `{"megabytes":0.002}`},
			{"ask", `{"question":"who?"}`},
			{"toggle_tool", `{}`},
			{"bonus", `{}`},
			{"toggle_tool", `{}`},
			{"nonexistent", `{}`},
		}
		for _, c := range calls {
			if _, err := s.Call(ctx, c.name, json.RawMessage(c.args), client.CallOptions{}); err != nil {
				t.Logf("%s: %v (recorded as it is)", c.name, err)
			}
		}
		// Progress, and log messages at a level asked for in _meta.
		if _, err := s.Call(ctx, "slow", json.RawMessage(`{"steps":3,"delayMs":5}`), client.CallOptions{OnProgress: func(client.Progress) {}}); err != nil {
			t.Fatal(err)
		}
		raw := []struct{ method, params string }{
			{"tools/call", `{"name":"log","arguments":{},"_meta":{"io.modelcontextprotocol/logLevel":"warning"}}`},
			{"resources/list", `{}`},
			{"resources/templates/list", `{}`},
			{"resources/read", `{"uri":"mcpscope://demo/readme.md"}`},
			{"resources/read", `{"uri":"mcpscope://demo/colors/teal"}`},
			{"resources/read", `{"uri":"mcpscope://demo/nothing"}`},
			{"prompts/list", `{}`},
			{"prompts/get", `{"name":"greet","arguments":{"name":"Ada","language":"fr"}}`},
			{"completion/complete", `{"ref":{"type":"ref/prompt","name":"summarize"},"argument":{"name":"style","value":"b"}}`},
		}
		for _, r := range raw {
			if _, err := s.Raw(ctx, r.method, json.RawMessage(r.params)); err != nil {
				t.Fatalf("%s: %v", r.method, err)
			}
		}
	}},
	{file: "host-primitives.jsonl", args: []string{"host"}, ignore: volatile, run: func(t *testing.T, s *client.Session) {
		// Resources that change, skills and their files, completion of the template,
		// and the sampling and roots tools in the 2026-07-28 input_required style: the
		// interim result, then the retry with the answers.
		ctx := context.Background()
		sampling := `"_meta":{"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"roots":{}}}`
		raw := []struct{ method, params string }{
			{"resources/list", `{}`},
			{"resources/read", `{"uri":"mcpscope://demo/counter"}`},
			{"tools/call", `{"name":"bump","arguments":{}}`},
			{"resources/read", `{"uri":"mcpscope://demo/counter"}`},
			{"completion/complete", `{"ref":{"type":"ref/resource","uri":"mcpscope://demo/colors/{name}"},"argument":{"name":"name","value":"g"}}`},
			{"completion/complete", `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"language","value":"e"},"context":{"arguments":{"name":"Ada"}}}`},
			{"skills/list", `{}`},
			{"skills/get", `{"uri":"skill://hello-world/SKILL.md"}`},
			{"skills/get", `{"uri":"skill://nothing/SKILL.md"}`},
			{"resources/read", `{"uri":"skill://hello-world/SKILL.md"}`},
			{"resources/read", `{"uri":"skill://hello-world/scripts/hello.sh"}`},
			{"resources/read", `{"uri":"skill://colour-names/reference/colours.md"}`},
			{"resources/directory/read", `{"uri":"skill://release-notes"}`},
			{"resources/directory/read", `{"uri":"skill://release-notes","cursor":"2"}`},
			{"resources/directory/read", `{"uri":"skill://release-notes/templates/examples"}`},
			{"resources/directory/read", `{"uri":"skill://release-notes/SKILL.md"}`},
			{"tools/call", `{"name":"sample","arguments":{"messages":3},` + sampling + `}`},
			{"tools/call", `{"name":"sample","arguments":{"messages":3},"inputResponses":{"reply":{"role":"assistant","content":{"type":"text","text":"recorded reply"},"model":"golden"}},"requestState":"sample/v1",` + sampling + `}`},
			{"tools/call", `{"name":"roots","arguments":{},` + sampling + `}`},
			{"tools/call", `{"name":"roots","arguments":{},"inputResponses":{"roots":{"roots":[{"uri":"file:///tmp/golden","name":"golden"}]}},"requestState":"roots/v1",` + sampling + `}`},
			{"tools/call", `{"name":"sample","arguments":{}}`},
		}
		for _, r := range raw {
			if _, err := s.Raw(ctx, r.method, json.RawMessage(r.params)); err != nil {
				t.Fatalf("%s: %v", r.method, err)
			}
		}
	}},
	{file: "host-2025.jsonl", args: []string{"host"}, protocol: "2025-11-25", ignore: volatile, run: func(t *testing.T, s *client.Session) {
		// Recorded in the legacy era, replayed against the dual-era host (which then
		// negotiates 2026-07-28).
		ctx := context.Background()
		if _, err := s.Tools(ctx); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ name, args string }{{"echo", `{"text":"from 2025"}`}, {"add", `{"a":1,"b":2}`}, {"image", `{}`}, {"fail", `{}`}} {
			if _, err := s.Call(ctx, c.name, json.RawMessage(c.args), client.CallOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Call(ctx, "slow", json.RawMessage(`{"steps":2,"delayMs":5}`), client.CallOptions{OnProgress: func(client.Progress) {}}); err != nil {
			t.Fatal(err)
		}
	}},
	{file: "host-content-length.jsonl", args: []string{"host", "--framing", "content-length"}, framing: wire.FramingContentLength, ignore: volatile, run: func(t *testing.T, s *client.Session) {
		ctx := context.Background()
		if _, err := s.Tools(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Call(ctx, "echo", json.RawMessage(`{"text":"framed"}`), client.CallOptions{}); err != nil {
			t.Fatal(err)
		}
	}},
}

// recordGolden records one session with the host into testdata/.
func recordGolden(t *testing.T, bin string, g golden) {
	t.Helper()
	path := filepath.Join(goldenDir(), g.file)
	framing := g.framing
	if framing == "" {
		framing = wire.FramingAuto
	}
	tap := &wire.Tap{}
	w, err := record.Create(path, record.Header{
		McpscopeVersion: client.Version,
		Target:          record.Target{Transport: "stdio", Argv: append([]string{"mcpscope"}, g.args...), Framing: string(framing)},
		Client:          &record.Peer{Name: "mcpscope", Version: client.Version},
		Ignore:          g.ignore,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tap.Listen(w.Listen)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := client.Connect(ctx, target.Target{Argv: append([]string{bin}, g.args...)}, client.Options{Tap: tap, Protocol: g.protocol, Framing: framing})
	if err != nil {
		t.Fatal(err)
	}
	g.run(t, s)
	s.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %s", path)
}
