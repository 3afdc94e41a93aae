package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// hostSession connects to the bundled host (mcpscope host) over stdio.
func hostSession(t *testing.T, opts client.Options, protocol string) (*client.Session, *recorder) {
	t.Helper()
	rec := &recorder{}
	opts.Tap = &wire.Tap{}
	opts.Tap.Listen(rec.listen)
	opts.Protocol = protocol
	opts.Grace = 200 * time.Millisecond
	opts.ConnectTimeout = testutil.Patience
	s, err := client.Connect(ctx(t), client.Target{Argv: []string{testutil.Mcpscope(t), "host"}}, opts)
	if err != nil {
		t.Fatalf("connect to the host: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, rec
}

// Both eras: every list, a read, a prompt with its messages, completion with
// context, and a template expanded and read.
func TestHostPrimitives(t *testing.T) {
	t.Parallel()
	for _, protocol := range []string{"", "2025-11-25"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			t.Parallel()
			s, _ := hostSession(t, client.Options{}, protocol)
			res, err := s.Resources(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			uris := map[string]client.Resource{}
			for _, r := range res.Items {
				uris[r.URI] = r
			}
			if r, ok := uris["mcpscope://demo/readme.md"]; !ok || r.MIMEType != "text/markdown" || r.Size == nil || r.Title != "About the demo host" {
				t.Fatalf("readme resource = %+v (all: %v)", r, res.Items)
			}
			if len(res.Problems) != 0 {
				t.Errorf("problems: %v", res.Problems)
			}
			read, err := s.Read(ctx(t), "mcpscope://demo/readme.md")
			if err != nil || len(read.Contents) != 1 || !read.Contents[0].HasText || !strings.Contains(read.Contents[0].Text, "bundled host") {
				t.Fatalf("read = %+v, %v", read, err)
			}
			blob, err := s.Read(ctx(t), "mcpscope://demo/gradient.png")
			if err != nil || len(blob.Contents) != 1 || !blob.Contents[0].HasBlob || blob.Contents[0].MIMEType != "image/png" {
				t.Fatalf("blob read = %+v, %v", blob, err)
			}
			tpls, err := s.ResourceTemplates(ctx(t))
			if err != nil || len(tpls.Items) != 2 {
				t.Fatalf("templates = %+v, %v", tpls, err)
			}
			var colors client.ResourceTemplate
			for _, tp := range tpls.Items {
				if tp.URITemplate == "mcpscope://demo/colors/{name}" {
					colors = tp
				}
			}
			tpls.Items[0] = colors
			vars, err := tpls.Items[0].Variables()
			if err != nil || len(vars) != 1 || vars[0] != "name" {
				t.Fatalf("variables = %v, %v", vars, err)
			}
			comp, err := s.Complete(ctx(t), client.CompletionRef{Type: "ref/resource", URI: tpls.Items[0].URITemplate}, "name", "te", nil)
			if err != nil || len(comp.Values) != 1 || comp.Values[0] != "teal" {
				t.Fatalf("completion = %+v, %v", comp, err)
			}
			uri, err := tpls.Items[0].Expand(map[string]string{"name": comp.Values[0]})
			if err != nil || uri != "mcpscope://demo/colors/teal" {
				t.Fatalf("expanded %q, %v", uri, err)
			}
			if r, err := s.Read(ctx(t), uri); err != nil || !strings.Contains(r.Contents[0].Text, "#008080") {
				t.Fatalf("template read = %+v, %v", r, err)
			}
			prompts, err := s.Prompts(ctx(t))
			if err != nil || len(prompts.Items) != 2 {
				t.Fatalf("prompts = %+v, %v", prompts, err)
			}
			for _, p := range prompts.Items {
				if p.Name == "greet" && (len(p.Arguments) != 2 || !p.Arguments[0].Required || p.Arguments[1].Required) {
					t.Errorf("greet arguments = %+v", p.Arguments)
				}
			}
			c2, err := s.Complete(ctx(t), client.CompletionRef{Type: "ref/prompt", Name: "greet"}, "language", "e", map[string]string{"name": "Ada"})
			if err != nil || strings.Join(c2.Values, ",") != "en,es" {
				t.Fatalf("prompt completion = %+v, %v", c2, err)
			}
			pr, err := s.GetPrompt(ctx(t), "greet", map[string]string{"name": "Ada", "language": "fr"})
			if err != nil || len(pr.Messages) != 2 || pr.Messages[0].Role != "user" || pr.Messages[1].Role != "assistant" ||
				!strings.Contains(pr.Messages[0].Content[0].Text, "Ada") {
				t.Fatalf("prompt = %+v, %v", pr, err)
			}
			var rpc *client.RPCError
			if _, err := s.GetPrompt(ctx(t), "greet", nil); !errors.As(err, &rpc) {
				t.Fatalf("a prompt without its required argument: %v, want a JSON-RPC error", err)
			}
		})
	}
}

// The host's skills: listed without a read, then each loaded and every file verified.
func TestHostSkills(t *testing.T) {
	t.Parallel()
	s, rec := hostSession(t, client.Options{}, "")
	if !s.HasSkills() {
		t.Fatalf("the host does not declare the skills extension: %s", s.Info().Capabilities)
	}
	list, err := s.Skills(ctx(t))
	if err != nil || len(list.Items) != 3 || len(list.Problems) != 0 {
		t.Fatalf("skills = %+v, %v", list, err)
	}
	if _, ok := rec.find(wire.KindMessage, `"resources/read"`); ok {
		t.Fatal("listing skills read a skill file")
	}
	for _, k := range list.Items {
		ls, err := s.LoadSkill(ctx(t), k)
		if err != nil {
			t.Fatalf("load %s: %v", k.URI, err)
		}
		want := 1 // the file each static skill lists beside SKILL.md
		if k.Dynamic {
			want = 3 // found by resources/directory/read (TestHostSkillDirectories)
		}
		if !strings.Contains(ls.SkillMD.Text, "name: "+k.Name) || len(ls.Files) != want {
			t.Fatalf("loaded %s = %+v", k.URI, ls)
		}
	}
	// A listing whose digest does not match is refused before any other file is read.
	k := list.Items[0]
	k.Files = append([]client.SkillFile(nil), k.Files...)
	k.Files[0].Digest = "sha256:" + strings.Repeat("0", 64)
	_, err = s.LoadSkill(ctx(t), k)
	var ve *client.VerifyError
	if !errors.As(err, &ve) || !strings.Contains(ve.Reason, "digest") {
		t.Fatalf("a wrong digest: %v, want a VerifyError about the digest", err)
	}
}

// Sampling and roots, declared only when asked, in both eras (2026-07-28 as
// input_required, 2025 as server requests the SDK bridges).
func TestHostSamplingAndRoots(t *testing.T) {
	t.Parallel()
	for _, protocol := range []string{"", "2025-11-25"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			t.Parallel()
			var got client.SamplingRequest
			s, _ := hostSession(t, client.Options{
				Sample: func(_ context.Context, req client.SamplingRequest) (client.SamplingResponse, error) {
					got = req
					return client.SamplingResponse{Text: "hello from the test"}, nil
				},
				Roots: []client.Root{{URI: "file:///tmp/one", Name: "one"}},
			}, protocol)
			r, err := s.Call(ctx(t), "sample", json.RawMessage(`{"messages":1000}`), client.CallOptions{})
			if err != nil || r.IsError || !strings.Contains(r.Content[0].Text, "hello from the test") {
				t.Fatalf("sample = %+v, %v", r, err)
			}
			if len(got.Messages) != 1000 || got.MaxTokens != 200 || got.SystemPrompt == "" {
				t.Errorf("the sampling request had %d messages, maxTokens %d", len(got.Messages), got.MaxTokens)
			}
			r, err = s.Call(ctx(t), "roots", nil, client.CallOptions{})
			if err != nil || r.IsError || !strings.Contains(r.Content[0].Text, "file:///tmp/one (one)") {
				t.Fatalf("roots = %+v, %v", r, err)
			}
		})
	}
	// Without handlers nothing is declared, and the host says so.
	s, _ := hostSession(t, client.Options{}, "")
	r, err := s.Call(ctx(t), "sample", nil, client.CallOptions{})
	if err != nil || !r.IsError || !strings.Contains(r.Content[0].Text, "did not declare the sampling capability") {
		t.Fatalf("sample without --sampling = %+v, %v", r, err)
	}
}

// Misbehaviour: a list with items of the wrong shape, a read of an unknown content
// shape, a template that does not parse, a completion that never answers, a task
// that never completes. Each is a problem or a clear error, and nothing hangs.
func TestPrimitivesMisbehaving(t *testing.T) {
	t.Parallel()
	// What must be answered goes through a session with the default timeout: a loaded
	// machine may take longer than a short one to answer, and that is not what is tested.
	s := connect(t, "primitives", client.Options{}).s
	res, err := s.Resources(ctx(t))
	if err != nil || len(res.Items) != 2 {
		t.Fatalf("resources = %+v, %v", res, err)
	}
	joined := strings.Join(res.Problems, "\n")
	if !strings.Contains(joined, `name is a number, not a string`) || !strings.Contains(joined, `resources[2] is not an object`) {
		t.Errorf("problems = %q", joined)
	}
	r, err := s.Read(ctx(t), "fake://odd")
	if err != nil || len(r.Contents) != 1 || r.Contents[0].HasText || r.Contents[0].HasBlob || !strings.Contains(r.Contents[0].Problem, "neither text nor blob (members: video)") {
		t.Fatalf("odd read = %+v, %v", r, err)
	}
	tpls, err := s.ResourceTemplates(ctx(t))
	if err != nil || len(tpls.Items) != 2 || !strings.Contains(strings.Join(tpls.Problems, "\n"), "does not parse") {
		t.Fatalf("templates = %+v, %v", tpls, err)
	}
	if _, err := tpls.Items[0].Expand(map[string]string{"id": "1"}); err == nil {
		t.Fatal("a broken template expanded")
	}
	list, err := s.Tools(ctx(t))
	if err != nil || len(list.Tools) != 2 || list.Tools[0].TaskSupport() != "required" || list.Tools[1].TaskSupport() != "forbidden" {
		t.Fatalf("tools = %+v, %v", list, err)
	}
	// What never ends goes through one with a short timeout (still far above what a
	// loaded machine takes to answer the task's creation): it ends each of them.
	f := connect(t, "primitives", client.Options{Timeout: 3 * time.Second, TimeoutCap: 6 * time.Second})
	_, err = f.s.Complete(ctx(t), client.CompletionRef{Type: "ref/resource", URI: "fake://items/{id}"}, "id", "", nil)
	var te *client.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("a silent completion: %v, want a timeout", err)
	}
	var statuses []string
	_, task, err := f.s.CallTask(ctx(t), "forever", nil, client.TaskOptions{OnStatus: func(t client.Task) { statuses = append(statuses, t.Status) }})
	if !errors.As(err, &te) || task == nil || task.ID != "t-forever" {
		t.Fatalf("a task that never completes: %v (task %+v), want a timeout", err, task)
	}
	if len(statuses) == 0 || statuses[0] != "working" {
		t.Errorf("statuses = %v", statuses)
	}
	// The cancel is sent, and answered, before CallTask returns.
	if _, ok := f.rec.find(wire.KindMessage, `"tasks/cancel"`); !ok {
		t.Error("the endless task was not cancelled on the server (no tasks/cancel)")
	}
}

// The host's research tool as a task in both dialects: status changes, the result,
// and a cancel that the host honours.
func TestHostTasks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ protocol, dialect string }{{"", client.Tasks2026}, {"2025-11-25", client.Tasks2025}} {
		t.Run("protocol="+tc.protocol, func(t *testing.T) {
			t.Parallel()
			s, _ := hostSession(t, client.Options{}, tc.protocol)
			if d := s.TaskDialect(); d != tc.dialect {
				t.Fatalf("dialect %q, want %q", d, tc.dialect)
			}
			var statuses []string
			r, task, err := s.CallTask(ctx(t), "research", json.RawMessage(`{"topic":"go","delayMs":20}`), client.TaskOptions{
				OnStatus: func(t client.Task) { statuses = append(statuses, t.Status) },
			})
			if err != nil || r == nil || !strings.Contains(r.Content[0].Text, "Report on go") || task == nil || task.Status != "completed" {
				t.Fatalf("research = %+v, task %+v, %v", r, task, err)
			}
			if statuses[0] != "working" || statuses[len(statuses)-1] != "completed" {
				t.Errorf("statuses = %v", statuses)
			}
			// A long task, cancelled from the caller's side.
			cctx, cancel := context.WithCancel(ctx(t))
			var id string
			_, _, err = s.CallTask(cctx, "research", json.RawMessage(`{"topic":"long","delayMs":10000}`), client.TaskOptions{
				OnCreated: func(t client.Task) { id = t.ID; cancel() },
			})
			if !errors.Is(err, context.Canceled) || id == "" {
				t.Fatalf("cancelled task: %v (id %q)", err, id)
			}
			got, err := s.GetTask(ctx(t), id)
			if err != nil || got.Status != "cancelled" {
				t.Fatalf("after the cancel, the task is %+v, %v", got, err)
			}
		})
	}
}

// A tasks/cancel answered without the task (an empty ack: the 2026-07-28 extension's
// answer, and what some servers send) does not say how the task ended: CancelTask
// asks tasks/get after it and returns the task as the server then has it, with its
// status message, rather than a cancelled task made up from the ack.
func TestCancelTaskEmptyAckAsksTasksGet(t *testing.T) {
	t.Parallel()
	f := connect(t, "primitives", client.Options{})
	_, task, err := f.s.StartTask(ctx(t), "forever", nil, 0)
	if err != nil || task == nil || task.ID != "t-forever" {
		t.Fatalf("StartTask = %+v, %v", task, err)
	}
	got, err := f.s.CancelTask(ctx(t), task.ID)
	if err != nil || got == nil {
		t.Fatalf("CancelTask = %+v, %v", got, err)
	}
	if got.ID != "t-forever" || got.Status != "cancelled" || got.StatusMessage != "cancelled on request" {
		t.Errorf("after an empty cancel ack the task is %+v, want the server's cancelled task with its message", got)
	}
	if e, ok := f.rec.find(wire.KindMessage, `"tasks/get"`); !ok || !strings.Contains(string(e.Data), "t-forever") {
		t.Error("no tasks/get after the empty cancel ack")
	}
}
