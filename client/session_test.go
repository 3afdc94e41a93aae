package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// recorder keeps every wire event a session emits.
type recorder struct {
	mu     sync.Mutex
	events []wire.Event
}

func (r *recorder) listen(e wire.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) find(kind wire.Kind, substr string) (wire.Event, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if e.Kind == kind && (strings.Contains(string(e.Data), substr) || strings.Contains(e.Text, substr)) {
			return e, true
		}
	}
	return wire.Event{}, false
}

type fixture struct {
	s       *client.Session
	rec     *recorder
	pidfile string
}

// connect starts a fake server scenario and connects to it. The session is closed and
// the server's processes are checked to be gone when the test ends.
func connect(t *testing.T, scenario string, opts client.Options) *fixture {
	t.Helper()
	f, err := tryConnect(t, scenario, opts)
	if err != nil {
		t.Fatalf("connect %s: %v", scenario, err)
	}
	return f
}

func tryConnect(t *testing.T, scenario string, opts client.Options) (*fixture, error) {
	t.Helper()
	pidfile, env := testutil.PIDFile(t)
	rec := &recorder{}
	opts.Tap = &wire.Tap{}
	opts.Tap.Listen(rec.listen)
	opts.Env = append(opts.Env, env)
	if opts.Grace == 0 {
		opts.Grace = 200 * time.Millisecond
	}
	if opts.ConnectTimeout == 0 {
		opts.ConnectTimeout = testutil.Patience
	}
	s, err := client.Connect(testutil.Context(t), client.Target{Argv: testutil.FakeServer(t, scenario)}, opts)
	f := &fixture{s: s, rec: rec, pidfile: pidfile}
	t.Cleanup(func() {
		if s != nil {
			s.Close()
		}
		testutil.AssertGone(t, pidfile, 1)
	})
	return f, err
}

// ctx is a test's hang guard (testutil.Patience), never a speed budget.
func ctx(t *testing.T) context.Context { return testutil.Context(t) }

func TestNDJSONServer(t *testing.T) {
	t.Parallel()
	f := connect(t, "ndjson", client.Options{})
	info := f.s.Info()
	if info.Name != "fakemcp" || info.ProtocolVersion != "2025-11-25" || info.Era != client.EraLegacy || info.Framing != wire.FramingNDJSON {
		t.Fatalf("info = %+v", info)
	}
	if !strings.Contains(info.Instructions, "fake server for tests") {
		t.Errorf("instructions = %q", info.Instructions)
	}
	list, err := f.s.Tools(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 5 {
		t.Fatalf("%d tools, want 5", len(list.Tools))
	}
	byName := map[string]client.Tool{}
	for _, tl := range list.Tools {
		byName[tl.Name] = tl
	}
	echo, add, fail := byName["echo"], byName["add"], byName["fail"]
	if echo.Title != "Echo" || !echo.Annotations.ReadOnly.Set || !echo.Annotations.ReadOnly.Value ||
		!echo.Annotations.Destructive.Set || echo.Annotations.Destructive.Value {
		t.Errorf("echo annotations = %+v", echo.Annotations)
	}
	// add sets readOnlyHint:false and nothing else: false must read as set, the
	// others as absent with the spec defaults.
	a := add.Annotations
	if !a.ReadOnly.Set || a.ReadOnly.Value || a.Destructive.Set || !a.Destructive.Value || a.Idempotent.Set || a.Idempotent.Value || a.OpenWorld.Set || !a.OpenWorld.Value {
		t.Errorf("add annotations = %+v", a)
	}
	if fail.Annotations.Present {
		t.Errorf("fail has no annotations object, got %+v", fail.Annotations)
	}
	params := add.Params()
	if len(params) != 6 || params[0].Name != "a" || !params[0].Required || params[1].Name != "b" || string(params[1].Default) != "1" || params[2].Name != "mode" || len(params[2].Enum) != 2 || params[4].Type != "string[]" {
		t.Errorf("add params = %+v", params)
	}
	r, err := f.s.Call(ctx(t), "echo", json.RawMessage(`{"message":"hi there"}`), client.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Content) != 1 || r.Content[0].Text != "echo: hi there" || r.IsError {
		t.Errorf("echo result = %+v", r)
	}
	r, err = f.s.Call(ctx(t), "fail", nil, client.CallOptions{})
	if err != nil || !r.IsError || r.Content[0].Text != "this tool always fails" {
		t.Errorf("fail: %+v, %v", r, err)
	}
	_, err = f.s.Call(ctx(t), "nope", nil, client.CallOptions{})
	var rpc *client.RPCError
	if !errors.As(err, &rpc) || rpc.Code != -32602 || !strings.Contains(rpc.Message, "Unknown tool") {
		t.Errorf("unknown tool: %v", err)
	}
	// Every frame is on the tap as exact bytes.
	if _, ok := f.rec.find(wire.KindMessage, `"method":"tools/call"`); !ok {
		t.Error("no tools/call frame on the tap")
	}
	if _, ok := f.rec.find(wire.KindStderr, "fakemcp: ndjson starting"); !ok {
		t.Error("stderr line missing from the tap")
	}
}

func TestContentLengthServerIsDetected(t *testing.T) {
	t.Parallel()
	f := connect(t, "content-length", client.Options{})
	info := f.s.Info()
	if info.Framing != wire.FramingContentLength || info.ProtocolVersion != "2024-11-05" {
		t.Fatalf("info = %+v", info)
	}
	if _, ok := f.rec.find(wire.KindSynthetic, "restarting it with Content-Length"); !ok {
		t.Error("no restart event")
	}
	list, err := f.s.Tools(ctx(t))
	if err != nil || len(list.Tools) != 5 || string(list.Tools[0].InputSchema) != `{"type":"object"}` {
		t.Fatalf("tools: %+v, %v", list, err)
	}
	r, err := f.s.Call(ctx(t), "echo", json.RawMessage(`{"message":"framed"}`), client.CallOptions{})
	if err != nil || r.Content[0].Text != "echo: framed" {
		t.Fatalf("call: %+v, %v", r, err)
	}
	// The first process was replaced: two PIDs recorded, both must be gone at the end.
	if pids := testutil.PIDs(t, f.pidfile); len(pids) != 2 {
		t.Errorf("%d processes started, want 2 (the NDJSON try and the Content-Length one)", len(pids))
	}
}

func TestForcedFramingSkipsTheProbe(t *testing.T) {
	t.Parallel()
	f := connect(t, "content-length", client.Options{Framing: wire.FramingContentLength, Protocol: "2024-11-05"})
	if _, ok := f.rec.find(wire.KindSynthetic, ""); ok {
		t.Error("a synthetic event with forced framing and version")
	}
	if pids := testutil.PIDs(t, f.pidfile); len(pids) != 1 {
		t.Errorf("%d processes, want 1", len(pids))
	}
}

func TestNoiseOnStdoutIsReportedAndSkipped(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ scenario, noise string }{
		{"banner", "Fake MCP server v1.0 ready on stdio"},
		{"midnoise", "DEBUG: handling tools/call"},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			t.Parallel()
			f := connect(t, tc.scenario, client.Options{})
			r, err := f.s.Call(ctx(t), "echo", json.RawMessage(`{"message":"x"}`), client.CallOptions{})
			if err != nil || r.Content[0].Text != "echo: x" {
				t.Fatalf("call: %+v, %v", r, err)
			}
			e, ok := f.rec.find(wire.KindNoise, tc.noise)
			if !ok || string(e.Data) != tc.noise || e.Dir != wire.Recv {
				t.Errorf("noise event = %+v, %v", e, ok)
			}
		})
	}
}

func TestEmptyLinesAreIgnored(t *testing.T) {
	t.Parallel()
	f := connect(t, "empty-lines", client.Options{})
	if _, err := f.s.Tools(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if e, ok := f.rec.find(wire.KindNoise, ""); ok {
		t.Errorf("an empty line became a noise event: %+v", e)
	}
}

func TestServerThatIgnoresDiscover(t *testing.T) {
	t.Parallel()
	f := connect(t, "discover-silent", client.Options{})
	if f.s.Info().Era != client.EraLegacy {
		t.Errorf("era = %s", f.s.Info().Era)
	}
	if _, ok := f.rec.find(wire.KindSynthetic, "ignored server/discover"); !ok {
		t.Error("no synthetic event for the ignored discover")
	}
}

func TestSlowStartIsNotMistakenForSilence(t *testing.T) {
	t.Parallel()
	f := connect(t, "slow-start", client.Options{})
	if e, ok := f.rec.find(wire.KindSynthetic, ""); ok {
		t.Errorf("a server that starts slowly was probed as silent: %s", e.Text)
	}
	if f.s.Info().Framing != wire.FramingNDJSON {
		t.Errorf("framing = %s", f.s.Info().Framing)
	}
}

func TestRepairs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ scenario, refusal, repair string }{
		{"no-jsonrpc", `without "jsonrpc":"2.0"`, `inserted the missing "jsonrpc"`},
		{"string-id", `echoed request id`, `rewrote id`},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			t.Parallel()
			_, err := tryConnect(t, tc.scenario, client.Options{Protocol: "2025-11-25"})
			var se *client.ServerError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.refusal) || !strings.Contains(err.Error(), "--repair") {
				t.Fatalf("without --repair: %v", err)
			}
			f := connect(t, tc.scenario, client.Options{Repair: true})
			r, err := f.s.Call(ctx(t), "echo", json.RawMessage(`{"message":"fixed"}`), client.CallOptions{})
			if err != nil || r.Content[0].Text != "echo: fixed" {
				t.Fatalf("with --repair: %+v, %v", r, err)
			}
			if _, ok := f.rec.find(wire.KindRepair, tc.repair); !ok {
				t.Error("no repair event")
			}
		})
	}
}

func TestServerThatExitsAtOnce(t *testing.T) {
	t.Parallel()
	_, err := tryConnect(t, "exit-at-once", client.Options{})
	var se *client.ServerError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v", err)
	}
	if se.Exit == nil || se.Exit.Code != 1 {
		t.Errorf("exit = %v", se.Exit)
	}
	if !strings.Contains(err.Error(), "missing configuration FOO_TOKEN") || !strings.Contains(err.Error(), "exited with code 1") {
		t.Errorf("message lacks the reason or the stderr line:\n%v", err)
	}
}

func TestServerThatPrintsOnlyGarbage(t *testing.T) {
	t.Parallel()
	_, err := tryConnect(t, "garbage", client.Options{ProbeTimeout: 100 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "none was a JSON-RPC message") || !strings.Contains(err.Error(), "garbage line") {
		t.Fatalf("err = %v", err)
	}
}

func TestCommandNotFound(t *testing.T) {
	t.Parallel()
	_, err := client.Connect(ctx(t), client.Target{Argv: []string{"mcpscope-no-such-command"}}, client.Options{})
	var se *client.ServerError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "no such command") {
		t.Fatalf("err = %v", err)
	}
}

func TestCloseLeavesNoProcess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		scenario string
		procs    int
	}{
		{"ndjson", 1},
		{"stubborn", 1}, // ignores EOF and SIGTERM: needs SIGKILL
		{"wrapper", 2},  // the real server is a grandchild
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			t.Parallel()
			f := connect(t, tc.scenario, client.Options{Grace: 100 * time.Millisecond})
			testutil.Within(t, "Close", func() { f.s.Close() })
			testutil.AssertGone(t, f.pidfile, tc.procs)
		})
	}
}

func TestCrashDuringCall(t *testing.T) {
	t.Parallel()
	f := connect(t, "ndjson", client.Options{})
	_, err := f.s.Call(ctx(t), "crash", nil, client.CallOptions{})
	var se *client.ServerError
	if !errors.As(err, &se) || se.Exit == nil || se.Exit.Code != 3 || !strings.Contains(err.Error(), "crashing now") {
		t.Fatalf("err = %v", err)
	}
	// The closed event comes from the goroutine that reaps the process, which may
	// finish just after the call has returned.
	deadline := time.Now().Add(testutil.Patience)
	for {
		if _, ok := f.rec.find(wire.KindClosed, "exited with code 3"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no closed event")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestProgressAndCancel(t *testing.T) {
	t.Parallel()
	f := connect(t, "progress", client.Options{})
	var mu sync.Mutex
	var got []client.Progress
	r, err := f.s.Call(ctx(t), "slow", json.RawMessage(`{"steps":3}`), client.CallOptions{OnProgress: func(p client.Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	}})
	if err != nil || r.Content[0].Text != "done after 3 steps" {
		t.Fatalf("slow: %+v, %v", r, err)
	}
	mu.Lock()
	if len(got) != 3 || got[2].Progress != 3 || got[2].Total != 3 || got[2].Message != "step 3 of 3" {
		t.Errorf("progress = %+v", got)
	}
	mu.Unlock()

	cctx, cancel := context.WithCancel(ctx(t))
	first := make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		_, err := f.s.Call(cctx, "slow", json.RawMessage(`{"steps":100}`), client.CallOptions{OnProgress: func(client.Progress) {
			once.Do(func() { close(first) })
		}})
		done <- err
	}()
	<-first
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call returned %v", err)
	}
	deadline := time.Now().Add(testutil.Patience)
	for {
		if _, ok := f.rec.find(wire.KindStderr, "cancelled request"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never saw notifications/cancelled")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, ok := f.rec.find(wire.KindMessage, `"method":"notifications/cancelled"`); !ok {
		t.Error("notifications/cancelled not on the wire")
	}
}

func TestUndecodableResultsAreStillShown(t *testing.T) {
	t.Parallel()
	f := connect(t, "unknown-content", client.Options{})
	r, err := f.s.Call(ctx(t), "echo", json.RawMessage(`{"message":"x"}`), client.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Content) != 2 || r.Content[0].Text != "before" || r.Content[1].Type != "video" || !strings.Contains(r.Content[1].Problem, "unknown content type") {
		t.Errorf("content = %+v", r.Content)
	}
	// Over stdio the SDK never decodes a plain tools/call result (the wire hands it a
	// placeholder), so it has nothing to fail on; the problem is noted on the block.
}

func TestToolsWithWrongTypesAreListed(t *testing.T) {
	t.Parallel()
	f := connect(t, "bad-tool-types", client.Options{})
	list, err := f.s.Tools(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 5 {
		t.Fatalf("%d tools, want all 5", len(list.Tools))
	}
	var problems []string
	for _, tl := range list.Tools {
		problems = append(problems, tl.Problems...)
	}
	joined := strings.Join(problems, "; ")
	if !strings.Contains(joined, "name is a number") || !strings.Contains(joined, "readOnlyHint is a string") {
		t.Errorf("problems = %s", joined)
	}
}

func TestPagedTools(t *testing.T) {
	t.Parallel()
	f := connect(t, "paged", client.Options{})
	list, err := f.s.Tools(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 5 || list.Pages != 3 || list.Tools[4].Name != "crash" {
		t.Errorf("%d tools over %d pages", len(list.Tools), list.Pages)
	}
}

func TestContentBlocks(t *testing.T) {
	t.Parallel()
	f := connect(t, "images", client.Options{})
	r, err := f.s.Call(ctx(t), "pic", nil, client.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	types := []string{}
	for _, c := range r.Content {
		types = append(types, c.Type)
	}
	if strings.Join(types, ",") != "text,image,audio,resource_link,resource" {
		t.Fatalf("types = %v", types)
	}
	img, err := r.Content[1].Bytes()
	if err != nil || string(img[1:4]) != "PNG" {
		t.Errorf("image bytes: %v", err)
	}
	blob, err := r.Content[4].Bytes()
	if err != nil || len(blob) != 16 || blob[15] != 15 {
		t.Errorf("blob = %v, %v", blob, err)
	}
}

func TestFiftyMegabyteResult(t *testing.T) {
	t.Parallel()
	f := connect(t, "ndjson", client.Options{})
	r, err := f.s.Call(ctx(t), "big", json.RawMessage(`{"mb":50}`), client.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(r.Content[0].Text); n != 50<<20 {
		t.Fatalf("text is %d bytes, want %d", n, 50<<20)
	}
}

func TestOverLargeFrameIsAClearError(t *testing.T) {
	t.Parallel()
	f := connect(t, "ndjson", client.Options{MaxFrame: 1 << 20})
	_, err := f.s.Call(ctx(t), "big", json.RawMessage(`{"mb":2}`), client.CallOptions{})
	if err == nil || !strings.Contains(err.Error(), "--max-frame") {
		t.Fatalf("err = %v", err)
	}
}

func TestHugeNoiseLineIsSkipped(t *testing.T) {
	t.Parallel()
	f := connect(t, "huge-line", client.Options{})
	list, err := f.s.Tools(ctx(t))
	if err != nil || len(list.Tools) != 5 {
		t.Fatalf("tools after a 500 MiB noise line: %v", err)
	}
	e, ok := f.rec.find(wire.KindNoise, "xxxx")
	if !ok || e.Size < 500<<20 || len(e.Data) > 64<<10 {
		t.Errorf("noise event: size %d, kept %d bytes", e.Size, len(e.Data))
	}
}

func TestRawSideChannel(t *testing.T) {
	t.Parallel()
	f := connect(t, "ndjson", client.Options{})
	raw, err := f.s.Raw(ctx(t), "tools/list", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"id":"mcpscope-1"`) || !strings.Contains(string(raw), `"name":"echo"`) {
		t.Errorf("raw = %.200s", raw)
	}
	// The SDK's session is unaffected.
	if _, err := f.s.Tools(ctx(t)); err != nil {
		t.Fatal(err)
	}
}

func TestForcedProtocolVersion(t *testing.T) {
	t.Parallel()
	f := connect(t, "ndjson", client.Options{Protocol: "2025-03-26"})
	if v := f.s.Info().ProtocolVersion; v != "2025-03-26" {
		t.Errorf("version = %s", v)
	}
	if _, ok := f.rec.find(wire.KindMessage, "server/discover"); ok {
		t.Error("discover sent although a legacy version was forced")
	}
	_, err := client.Connect(ctx(t), client.Target{Argv: []string{"true"}}, client.Options{Protocol: "1999-01-01"})
	var ue *client.UsageError
	if !errors.As(err, &ue) {
		t.Errorf("unknown version: %v", err)
	}
}

func TestRefreshToolsAsksTheServer(t *testing.T) {
	t.Parallel()
	f := connect(t, "paged", client.Options{})
	list, err := f.s.RefreshTools(ctx(t))
	if err != nil || len(list.Tools) != 5 || list.Pages != 3 {
		t.Fatalf("refresh: %+v, %v", list, err)
	}
	if _, ok := f.rec.find(wire.KindMessage, `"cursor":"p3"`); !ok {
		t.Error("the last page was not requested on the wire")
	}
}

// A response nested a million levels deep (valid JSON) fails its request at once with
// a clear error, instead of being skipped so that the call waits for its timeout.
func TestDeeplyNestedResponseFailsAtOnce(t *testing.T) {
	t.Parallel()
	f := connect(t, "deep", client.Options{Timeout: time.Hour})
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := f.s.Call(c, "echo", json.RawMessage(`{"message":"x"}`), client.CallOptions{})
	if err == nil || !strings.Contains(err.Error(), "too deeply nested") {
		t.Fatalf("err = %v, want a 'too deeply nested' error", err)
	}
	if c.Err() != nil {
		t.Fatal("the call waited for its deadline")
	}
	// The session goes on.
	if _, err := f.s.Tools(ctx(t)); err != nil {
		t.Fatalf("tools/list after the refused response: %v", err)
	}
}

// Responses to ids never sent, and a second response to one id, are marked on the
// wire event (Stray, with a note) so that Traffic and --trace can show them.
func TestStrayResponsesAreFlagged(t *testing.T) {
	t.Parallel()
	f := connect(t, "stray", client.Options{})
	r, err := f.s.Call(ctx(t), "echo", json.RawMessage(`{"message":"hi"}`), client.CallOptions{})
	if err != nil || len(r.Content) != 1 {
		t.Fatalf("call: %v %+v", err, r)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		never, ok1 := f.rec.find(wire.KindMessage, "never sent a request with id 424242")
		again, ok2 := f.rec.find(wire.KindMessage, "no longer awaited")
		if ok1 && ok2 {
			if !never.Stray || !again.Stray || !strings.Contains(string(again.Data), "hi") {
				t.Fatalf("stray events: %+v / %+v", never, again)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("stray responses not flagged (never sent: %v, second answer: %v)", ok1, ok2)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The answered response itself is not stray.
	f.rec.mu.Lock()
	defer f.rec.mu.Unlock()
	for _, e := range f.rec.events {
		if e.Kind == wire.KindMessage && e.Dir == wire.Recv && strings.Contains(string(e.Data), `"id":1,`) && e.Stray {
			t.Errorf("the initialize response is marked stray: %s", e.Text)
		}
	}
}

// An endless cursor stops at a bound on the bytes kept, said in Problems, long before
// 10,000 pages of 1 MiB.
func TestEndlessCursorIsBoundedByBytes(t *testing.T) {
	t.Parallel()
	f := connect(t, "endless", client.Options{})
	c, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	list, err := f.s.Tools(c)
	if err != nil {
		t.Fatal(err)
	}
	if list.Pages >= 1000 || len(list.Problems) == 0 || !strings.Contains(list.Problems[len(list.Problems)-1], "listing stopped") {
		t.Fatalf("%d pages, problems %q", list.Pages, list.Problems)
	}
}

// A server that stops reading its stdin cannot hold a call past its --timeout: the
// write of a request bigger than the pipe gives up with the request's context, and the
// call fails with the timeout; Close still returns.
func TestTimeoutBoundsAWriteTheServerDoesNotRead(t *testing.T) {
	t.Parallel()
	f := connect(t, "deaf", client.Options{Timeout: time.Second})
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The first call is read (and never answered); after it the server reads nothing.
	if _, err := f.s.Call(c, "echo", json.RawMessage(`{"message":"x"}`), client.CallOptions{}); err == nil {
		t.Fatal("the deaf server answered")
	}
	big, _ := json.Marshal(map[string]string{"message": strings.Repeat("b", 1<<20)})
	_, err := f.s.Call(c, "echo", big, client.CallOptions{})
	var te *client.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want a TimeoutError", err)
	}
	if c.Err() != nil {
		t.Fatal("the call waited past its timeout for the write")
	}
}

// Issue 19 (TestPerServerTimeout under load): the bundled host answers a call it was
// told to cancel ("context canceled", a tool error). When that answer reached the
// client before the SDK noticed the timeout, the call returned it with no error: a
// call bounded at 50 ms to a 1.5 s tool "succeeded" after 0.10 s. The hook holds the
// call there until the host's late answer is on the wire.
func TestTimeoutIsNotTakenForALateAnswer(t *testing.T) {
	t.Parallel()
	s, rec := hostSession(t, client.Options{Timeout: 50 * time.Millisecond}, "2025-11-25")
	client.SetAfterCallTool(s, func() {
		testutil.Eventually(t, "the host's answer to the cancelled call", func() (bool, string) {
			_, ok := rec.find(wire.KindMessage, "context canceled")
			return ok, ""
		})
	})
	r, err := s.Call(ctx(t), "slow", json.RawMessage(`{"steps":1,"delayMs":1500}`), client.CallOptions{})
	var te *client.TimeoutError
	if !errors.As(err, &te) || te.Timeout != 50*time.Millisecond {
		t.Fatalf("a call past its timeout returned %+v, %v; want a TimeoutError", r, err)
	}
}
