package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// The two eras every client-side test runs in: the SDK client negotiates 2026-07-28
// (server/discover, _meta on every request) unless told to offer 2025-11-25.
var eras = []string{"2026-07-28", "2025-11-25"}

func newHost(t *testing.T, opts Options) *Host {
	t.Helper()
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// connect joins a new SDK client to h's server in memory, at version (an era).
func connect(t *testing.T, h *Host, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return connectClient(t, h, version, mcp.NewClient(&mcp.Implementation{Name: "host-test", Version: "0"}, opts))
}

func connectClient(t *testing.T, h *Host, version string, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := h.Server().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := c.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %s; want %s", got, version)
	}
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	return res
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func forEachEra(t *testing.T, f func(t *testing.T, version string)) {
	for _, v := range eras {
		t.Run(v, func(t *testing.T) { f(t, v) })
	}
}

func TestDemoToolsListed(t *testing.T) {
	forEachEra(t, func(t *testing.T, version string) {
		cs := connect(t, newHost(t, Options{}), version, nil)
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		tools := map[string]*mcp.Tool{}
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			tools[tool.Name] = tool
		}
		for _, want := range demoToolNames {
			if want == bonusTool {
				continue
			}
			if tools[want] == nil {
				t.Errorf("tool %q not listed; got %v", want, names)
			}
		}
		if slices.Contains(names, bonusTool) {
			t.Errorf("%q listed before toggle_tool ran", bonusTool)
		}
		// The annotation matrix.
		a := func(name string) *mcp.ToolAnnotations { return tools[name].Annotations }
		if !a("now").ReadOnlyHint {
			t.Error("now: readOnlyHint not set")
		}
		if d := a("pretend_delete").DestructiveHint; d == nil || !*d || a("pretend_delete").ReadOnlyHint {
			t.Error("pretend_delete: not destructive")
		}
		if s := a("set_counter"); !s.IdempotentHint || s.DestructiveHint == nil || *s.DestructiveHint {
			t.Error("set_counter: not idempotent and non-destructive")
		}
		if o := a("pretend_search").OpenWorldHint; o == nil || !*o {
			t.Error("pretend_search: openWorldHint not true")
		}
		if a("random_id") != nil {
			t.Errorf("random_id has annotations %+v; want none", a("random_id"))
		}
		if tools["add"].OutputSchema == nil {
			t.Error("add must declare an outputSchema")
		}
		// The default surface is spec-clean: no deliberate fault (see TestFaults).
		for _, f := range faultToolNames {
			if tools[f] != nil {
				t.Errorf("the fault %q is listed without Faults", f)
			}
		}
	})
}

func TestDemoToolCalls(t *testing.T) {
	forEachEra(t, func(t *testing.T, version string) {
		cs := connect(t, newHost(t, Options{}), version, nil)

		if got := textOf(call(t, cs, "echo", map[string]any{"text": "hello"})); got != "hello" {
			t.Errorf("echo = %q", got)
		}

		res := call(t, cs, "add", map[string]any{"a": 2, "b": 3.5})
		if b, _ := json.Marshal(res.StructuredContent); string(b) != `{"sum":5.5}` {
			t.Errorf("add structuredContent = %s", b)
		}

		if got := textOf(call(t, cs, "now", nil)); !strings.Contains(got, "UTC") {
			t.Errorf("now = %q", got)
		}
		if got := textOf(call(t, cs, "pretend_delete", map[string]any{"path": "/etc/passwd"})); !strings.Contains(got, "Nothing was deleted") {
			t.Errorf("pretend_delete = %q", got)
		}
		call(t, cs, "set_counter", map[string]any{"value": 7})
		if got := textOf(call(t, cs, "set_counter", map[string]any{"value": 7})); got != "counter = 7 (was 7)" {
			t.Errorf("set_counter twice = %q", got)
		}
		if got := textOf(call(t, cs, "pretend_search", map[string]any{"query": "mcp"})); !strings.Contains(got, "no network request") {
			t.Errorf("pretend_search = %q", got)
		}
		if got := textOf(call(t, cs, "random_id", nil)); len(got) != 32 {
			t.Errorf("random_id = %q", got)
		}

		res = call(t, cs, "image", nil)
		img, ok := res.Content[1].(*mcp.ImageContent)
		if !ok || img.MIMEType != "image/png" {
			t.Fatalf("image content = %#v", res.Content)
		}
		if cfg, err := png.DecodeConfig(bytes.NewReader(img.Data)); err != nil || cfg.Width != 64 {
			t.Errorf("image is not a 64-pixel PNG: %v %+v", err, cfg)
		}

		res = call(t, cs, "audio", nil)
		au, ok := res.Content[0].(*mcp.AudioContent)
		if !ok || au.MIMEType != "audio/wav" || string(au.Data[:4]) != "RIFF" || string(au.Data[8:12]) != "WAVE" || len(au.Data) != 44+8000 {
			t.Errorf("audio content is not the WAV file")
		}

		res = call(t, cs, "resource_links", nil)
		if len(res.Content) != 3 {
			t.Fatalf("resource_links returned %d blocks", len(res.Content))
		}
		for _, c := range res.Content {
			if l, ok := c.(*mcp.ResourceLink); !ok || !strings.HasPrefix(l.URI, "mcpscope://demo/") {
				t.Errorf("not a resource link to the demo: %#v", c)
			}
		}

		res = call(t, cs, "embedded_resources", nil)
		if len(res.Content) != 2 {
			t.Fatalf("embedded_resources returned %d blocks", len(res.Content))
		}
		er0, ok0 := res.Content[0].(*mcp.EmbeddedResource)
		er1, ok1 := res.Content[1].(*mcp.EmbeddedResource)
		if !ok0 || !ok1 || er0.Resource.Text != readmeText || !bytes.Equal(er1.Resource.Blob, demoPNG()) {
			t.Errorf("embedded resources are not text + blob")
		}

		if res := call(t, cs, "fail", nil); !res.IsError {
			t.Errorf("fail did not return isError")
		}

		res = call(t, cs, "big", map[string]any{"megabytes": 1})
		if got := textOf(res); len(got) != 1<<20 || !strings.HasPrefix(got, "line 000000000") {
			t.Errorf("big returned %d bytes", len(got))
		}
	})
}

// Options.Faults serves the deliberate protocol faults beside the demo (or a tool
// file): bad_output declares an integer count and returns a string one. A tool file
// cannot take a fault's name while they are served.
func TestFaults(t *testing.T) {
	forEachEra(t, func(t *testing.T, version string) {
		h := newHost(t, Options{Faults: true})
		cs := connect(t, h, version, nil)
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var bad *mcp.Tool
		for _, tool := range res.Tools {
			if tool.Name == "bad_output" {
				bad = tool
			}
		}
		if bad == nil || bad.OutputSchema == nil || len(res.Tools) != len(demoToolNames) {
			t.Fatalf("bad_output %+v among %d tools; want it with an outputSchema, beside the demo's %d", bad, len(res.Tools), len(demoToolNames)-1)
		}
		if b, _ := json.Marshal(bad.OutputSchema); !strings.Contains(string(b), `"count":{"type":"integer"}`) {
			t.Errorf("bad_output outputSchema = %s", b)
		}
		out := call(t, cs, "bad_output", nil)
		if b, _ := json.Marshal(out.StructuredContent); string(b) != `{"count":"three"}` || out.IsError {
			t.Errorf("bad_output structuredContent = %s (isError %v)", b, out.IsError)
		}
		if !strings.Contains(cs.InitializeResult().Instructions, "deliberate protocol faults") {
			t.Errorf("instructions do not say the faults are served: %q", cs.InitializeResult().Instructions)
		}
	})
	clash := filepath.Join(t.TempDir(), "tools.json")
	writeFile(t, clash, `{"tools":[{"name":"bad_output","run":["/bin/echo"]}]}`)
	if _, err := New(Options{ToolFile: clash, Faults: true}); err == nil || !strings.Contains(err.Error(), "taken by a fault fixture") {
		t.Errorf("a file tool named bad_output beside the faults: %v", err)
	}
	// Without the demo, the faults are served beside the file's tools.
	file := filepath.Join(t.TempDir(), "tools.json")
	writeFile(t, file, `{"tools":[{"name":"greet","run":["/bin/echo"]}]}`)
	cs := connect(t, newHost(t, Options{ToolFile: file, Faults: true, WatchInterval: -1}), eras[0], nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	if slices.Sort(names); strings.Join(names, ",") != "bad_output,greet" {
		t.Errorf("a tool file with Faults lists %v", names)
	}
}

func TestRichForm(t *testing.T) {
	forEachEra(t, func(t *testing.T, version string) {
		cs := connect(t, newHost(t, Options{}), version, nil)
		res := call(t, cs, "rich_form", map[string]any{
			"title":    "x",
			"priority": "high",
			"owner":    map[string]any{"name": "Ada"},
			"steps":    []any{map[string]any{"name": "one", "minutes": 5}},
			"target":   map[string]any{"path": "/tmp"},
		})
		if res.IsError {
			t.Fatalf("rich_form failed: %s", textOf(res))
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(textOf(res)), &got); err != nil {
			t.Fatal(err)
		}
		if got["count"] != float64(3) || got["enabled"] != true {
			t.Errorf("defaults not applied: %v", got)
		}

		for _, bad := range []map[string]any{
			{"priority": "high"},                           // title missing
			{"title": "x", "priority": "urgent"},           // not in the enum
			{"title": "x", "priority": "low", "count": 11}, // above the maximum
			{"title": "x", "priority": "low", "target": map[string]any{"url": "u", "path": "p"}}, // matches neither oneOf branch
		} {
			if res := call(t, cs, "rich_form", bad); !res.IsError {
				t.Errorf("rich_form accepted %v", bad)
			}
		}
	})
}

func TestProgress(t *testing.T) {
	forEachEra(t, func(t *testing.T, version string) {
		var mu sync.Mutex
		var got []float64
		cs := connect(t, newHost(t, Options{}), version, &mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				got = append(got, req.Params.Progress)
				mu.Unlock()
			},
		})
		params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"steps": 3, "delayMs": 1}}
		params.SetProgressToken("tok")
		if _, err := cs.CallTool(t.Context(), params); err != nil {
			t.Fatal(err)
		}
		// The last notification may arrive after the result.
		waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 3 })
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(got, []float64{1, 2, 3}) {
			t.Errorf("progress = %v", got)
		}
	})
}

func TestCancellation(t *testing.T) {
	forEachEra(t, func(t *testing.T, version string) {
		h := newHost(t, Options{})
		progressed := make(chan struct{}, 1)
		cs := connect(t, h, version, &mcp.ClientOptions{
			ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
				select {
				case progressed <- struct{}{}:
				default:
				}
			},
		})
		stopped := make(chan error, 1)
		h.testSlowDone = func(err error) { stopped <- err }

		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"steps": 1000, "delayMs": 20}}
		params.SetProgressToken(1)
		errc := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(ctx, params)
			errc <- err
		}()
		<-progressed
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("CallTool after cancel = %v", err)
		}
		select {
		case err := <-stopped:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("slow ended with %v; want context.Canceled", err)
			}
		case <-time.After(testutil.Patience):
			t.Fatal("slow kept running after the call was cancelled")
		}
	})
}

func TestLogging(t *testing.T) {
	forEachEra(t, func(t *testing.T, version string) {
		var mu sync.Mutex
		var levels []string
		cs := connect(t, newHost(t, Options{}), version, &mcp.ClientOptions{
			//lint:ignore SA1019 the logging API, deprecated by 2026-07-28 (SEP-2577), is what servers on earlier versions speak
			LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
				mu.Lock()
				levels = append(levels, string(req.Params.Level))
				mu.Unlock()
			},
		})
		params := &mcp.CallToolParams{Name: "log"}
		if version < "2026-07-28" {
			//lint:ignore SA1019 the logging API, deprecated by 2026-07-28 (SEP-2577), is what servers on earlier versions speak
			if err := cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
				t.Fatal(err)
			}
		} else {
			params.Meta = mcp.Meta{"io.modelcontextprotocol/logLevel": "warning"}
		}
		if _, err := cs.CallTool(t.Context(), params); err != nil {
			t.Fatal(err)
		}
		want := []string{"warning", "error", "critical", "alert", "emergency"}
		waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(levels) >= len(want) })
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(levels, want) {
			t.Errorf("levels = %v; want %v", levels, want)
		}
	})
}

func TestToolListChanged(t *testing.T) {
	forEachEra(t, func(t *testing.T, version string) {
		changed := make(chan struct{}, 10)
		cs := connect(t, newHost(t, Options{}), version, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
		})
		hasBonus := func() bool {
			res, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			return slices.ContainsFunc(res.Tools, func(tool *mcp.Tool) bool { return tool.Name == bonusTool })
		}
		for i, want := range []bool{true, false} {
			call(t, cs, "toggle_tool", nil)
			select {
			case <-changed:
			case <-time.After(testutil.Patience):
				t.Fatalf("toggle %d: no notifications/tools/list_changed", i)
			}
			if got := hasBonus(); got != want {
				t.Errorf("toggle %d: bonus listed = %v; want %v", i, got, want)
			}
			if want {
				if got := textOf(call(t, cs, bonusTool, nil)); got != "the bonus tool is here" {
					t.Errorf("bonus = %q", got)
				}
			}
		}
	})
}

func TestResources(t *testing.T) {
	forEachEra(t, func(t *testing.T, version string) {
		cs := connect(t, newHost(t, Options{}), version, nil)
		ctx := t.Context()
		list, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		// readme, gradient, counter, and the eight skill files (hello-world's and
		// colour-names' two each, release-notes' four: a dynamic skill's files are
		// resources too, found by resources/directory/read as well).
		if len(list.Resources) != 11 {
			t.Errorf("resources = %d; want 11", len(list.Resources))
		}
		tl, err := cs.ListResourceTemplates(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(tl.ResourceTemplates) != 2 || tl.ResourceTemplates[0].URITemplate != bigTemplate || tl.ResourceTemplates[1].URITemplate != colorTemplate {
			t.Errorf("templates = %+v", tl.ResourceTemplates)
		}
		r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: readmeURI})
		if err != nil || r.Contents[0].Text != readmeText {
			t.Errorf("reading the readme: %v", err)
		}
		r, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: gradientURI})
		if err != nil || !bytes.Equal(r.Contents[0].Blob, demoPNG()) {
			t.Errorf("reading the gradient: %v", err)
		}
		r, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: colorURIPrefix + "teal"})
		if err != nil || r.Contents[0].Text != `{"hex":"#008080","name":"teal"}` {
			t.Errorf("reading teal: %v %+v", err, r)
		}
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: colorURIPrefix + "nope"}); err == nil {
			t.Error("reading an unknown colour succeeded")
		}
	})
}

func TestPrompts(t *testing.T) {
	forEachEra(t, func(t *testing.T, version string) {
		cs := connect(t, newHost(t, Options{}), version, nil)
		ctx := t.Context()
		list, err := cs.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Prompts) != 2 {
			t.Fatalf("prompts = %d; want 2", len(list.Prompts))
		}
		p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"text": "long text", "style": "bullets"}})
		if err != nil {
			t.Fatal(err)
		}
		if tc, ok := p.Messages[0].Content.(*mcp.TextContent); !ok || !strings.Contains(tc.Text, "(bullets):\n\nlong text") {
			t.Errorf("summarize = %+v", p.Messages[0].Content)
		}
		p, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada"}})
		if err != nil || len(p.Messages) != 2 || p.Messages[1].Role != "assistant" {
			t.Errorf("greet = %+v, %v", p, err)
		}
		_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("greet without a name: %v; want -32602", err)
		}
	})
}

func TestCompletion(t *testing.T) {
	forEachEra(t, func(t *testing.T, version string) {
		cs := connect(t, newHost(t, Options{}), version, nil)
		tests := []struct {
			ref       *mcp.CompleteReference
			arg, val  string
			wantFirst []string
		}{
			{&mcp.CompleteReference{Type: "ref/resource", URI: colorTemplate}, "name", "b", []string{"black", "blue"}},
			{&mcp.CompleteReference{Type: "ref/resource", URI: colorTemplate}, "name", "TE", []string{"teal"}},
			{&mcp.CompleteReference{Type: "ref/prompt", Name: "summarize"}, "style", "", summaryStyles},
			{&mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, "language", "e", []string{"en", "es"}},
			{&mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, "name", "", []string{}},
		}
		for _, tt := range tests {
			res, err := cs.Complete(t.Context(), &mcp.CompleteParams{Ref: tt.ref, Argument: mcp.CompleteParamsArgument{Name: tt.arg, Value: tt.val}})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Completion.Values, tt.wantFirst) {
				t.Errorf("complete %s %s=%q = %v; want %v", tt.ref.Type, tt.arg, tt.val, res.Completion.Values, tt.wantFirst)
			}
		}
	})
}

func TestElicitation(t *testing.T) {
	answers := []struct {
		result *mcp.ElicitResult
		want   string
	}{
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "color": "green"}}, "Hello, Ada! green is a fine colour."},
		{&mcp.ElicitResult{Action: "decline"}, "You declined to answer."},
		{&mcp.ElicitResult{Action: "cancel"}, "You cancelled the question."},
	}
	forEachEra(t, func(t *testing.T, version string) {
		for _, a := range answers {
			var mu sync.Mutex
			var asked *mcp.ElicitParams
			var received []string // requests the server sent to the client
			c := mcp.NewClient(&mcp.Implementation{Name: "host-test", Version: "0"}, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					asked = req.Params
					mu.Unlock()
					return a.result, nil
				},
			})
			c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					mu.Lock()
					received = append(received, method)
					mu.Unlock()
					return next(ctx, method, req)
				}
			})
			cs := connectClient(t, newHost(t, Options{}), version, c)
			res := call(t, cs, "ask", map[string]any{"question": "Who are you?"})
			if got := textOf(res); got != a.want || res.IsError {
				t.Errorf("ask answered %s = %q (isError %v); want %q", a.result.Action, got, res.IsError, a.want)
			}
			mu.Lock()
			if asked == nil || asked.Message != "Who are you?" || asked.Mode != "form" {
				t.Errorf("the elicitation handler saw %+v", asked)
			}
			// Before 2026-07-28 the question is a server-to-client request; from
			// 2026-07-28 it travels inside an input_required result instead.
			sentRequest := slices.Contains(received, "elicitation/create")
			if legacy := version < "2026-07-28"; sentRequest != legacy {
				t.Errorf("server sent elicitation/create as a request: %v; want %v (received %v)", sentRequest, legacy, received)
			}
			mu.Unlock()
		}
	})
}

// TestElicitationMRTR checks the 2026-07-28 wire shape: the first call returns
// input_required with an elicitation/create input request and requestState, and the
// retry with inputResponses completes.
func TestElicitationMRTR(t *testing.T) {
	cs := connect(t, newHost(t, Options{}), "2026-07-28", &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("must not be called: the client handles the round trip itself")
		},
	})
	res := call(t, cs, "ask", nil)
	if !res.NeedsInput() || res.RequestState != askState {
		t.Fatalf("first round: NeedsInput %v, requestState %q", res.NeedsInput(), res.RequestState)
	}
	ep, ok := res.InputRequests[askKey].(*mcp.ElicitParams)
	if !ok || ep.Message == "" {
		t.Fatalf("inputRequests = %#v", res.InputRequests)
	}
	retry := &mcp.CallToolParams{
		Name:           "ask",
		InputResponses: mcp.InputResponseMap{askKey: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Lin"}}},
		RequestState:   res.RequestState,
	}
	res, err := cs.CallTool(t.Context(), retry)
	if err != nil {
		t.Fatal(err)
	}
	if res.NeedsInput() || textOf(res) != "Hello, Lin!" {
		t.Errorf("retry = %q (needs input %v)", textOf(res), res.NeedsInput())
	}
	retry.RequestState = "forged"
	if res := call(t, cs, "ask", retry); !res.IsError {
		t.Errorf("a retry with a forged requestState succeeded: %q", textOf(res))
	}
}

func TestElicitationWithoutCapability(t *testing.T) {
	forEachEra(t, func(t *testing.T, version string) {
		cs := connect(t, newHost(t, Options{}), version, nil) // no ElicitationHandler
		res := call(t, cs, "ask", nil)
		if !res.IsError || !strings.Contains(textOf(res), "did not declare the elicitation capability") {
			t.Errorf("ask without elicitation = %q", textOf(res))
		}
	})
}

func TestUnsupportedMetaVersion(t *testing.T) {
	h := newHost(t, Options{})
	cs := connect(t, h, "2025-11-25", nil)
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"},
		Meta: mcp.Meta{"io.modelcontextprotocol/protocolVersion": "1900-01-01"}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeUnsupportedProtocolVersion || !strings.Contains(string(je.Data), `"supported"`) {
		t.Errorf("call with _meta version 1900-01-01 = %v; want -32022 with data.supported", err)
	}
}

// waitFor polls cond until it holds, failing the test after testutil.Patience.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testutil.Patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v (hung)", testutil.Patience)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
