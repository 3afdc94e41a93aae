package client_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/host"
)

func ms(n int64) *int64 { return &n }

// The one task-poll policy the CLI (CallTask) and the TUI's Tasks tab both tick.
func TestTaskPollPolicy(t *testing.T) {
	t.Parallel()
	working := client.Task{ID: "t", Status: "working", PollInterval: ms(200)}

	var p client.TaskPoll
	if w := p.Wait(); w != time.Second {
		t.Errorf("before any answer: wait %v, want 1s", w)
	}
	p.Seen(working)
	if w := p.Wait(); w != 200*time.Millisecond {
		t.Errorf("the task's pollInterval: wait %v, want 200ms", w)
	}
	// A state without pollInterval keeps the last one the server gave.
	p.Seen(client.Task{ID: "t", Status: "working"})
	if w := p.Wait(); w != 200*time.Millisecond {
		t.Errorf("pollInterval left out: wait %v, want the last one, 200ms", w)
	}
	// Bounds: a server asking 1 ms or a day gets 50 ms or 30 s.
	var q client.TaskPoll
	q.Seen(client.Task{Status: "working", PollInterval: ms(1)})
	if w := q.Wait(); w != client.TaskPollMin {
		t.Errorf("1 ms asked: wait %v, want %v", w, client.TaskPollMin)
	}
	q.Seen(client.Task{Status: "working", PollInterval: ms(86400000)})
	if w := q.Wait(); w != client.TaskPollMax {
		t.Errorf("a day asked: wait %v, want %v", w, client.TaskPollMax)
	}

	// Many unchanged polls: slower, up to the cap; a change brings the server's
	// interval back.
	for range client.TaskPollSlowAfter + 100 {
		p.Seen(working)
	}
	if w := p.Wait(); w != client.TaskPollSlowCap {
		t.Errorf("after many unchanged polls: wait %v, want the cap %v", w, client.TaskPollSlowCap)
	}
	p.Seen(client.Task{ID: "t", Status: "working", StatusMessage: "half way"})
	if w := p.Wait(); w != 200*time.Millisecond {
		t.Errorf("after a change: wait %v, want 200ms again", w)
	}

	// Failures: each doubles the wait; the policy says stop at the last allowed one;
	// Resume starts again at the server's interval.
	for i := 1; i < client.TaskPollMaxFailures; i++ {
		if p.Failed() {
			t.Fatalf("stopped after %d failures, want %d", i, client.TaskPollMaxFailures)
		}
		if want := min(200*time.Millisecond<<i, client.TaskPollMax); p.Wait() != want {
			t.Errorf("after %d failures: wait %v, want %v", i, p.Wait(), want)
		}
	}
	if !p.Failed() {
		t.Fatalf("went on after %d failures", client.TaskPollMaxFailures)
	}
	if p.Failures() != client.TaskPollMaxFailures {
		t.Errorf("failures %d", p.Failures())
	}
	p.Resume()
	if p.Failures() != 0 || p.Wait() != 200*time.Millisecond {
		t.Errorf("resumed: %d failures, wait %v", p.Failures(), p.Wait())
	}
	// An answer ends a run of failures too.
	p.Failed()
	p.Seen(working)
	if p.Failures() != 0 {
		t.Errorf("an answer left %d failures", p.Failures())
	}
}

// TestCallTaskRidesOutAFailedPoll: CallTask (what `call` of a task tool runs) follows
// the same policy as the Tasks tab: one tasks/get that fails is tried again, instead of
// ending the call (it did: the first error was the call's error).
func TestCallTaskRidesOutAFailedPoll(t *testing.T) {
	t.Parallel()
	h, err := host.New(host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var failed atomic.Int32
	inner := h.HTTPHandler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Method") == "tasks/get" && failed.Add(1) == 1 {
			body, _ := io.ReadAll(r.Body)
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(body, &req)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"error":{"code":-32603,"message":"busy, try again"}}`)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	defer srv.Close()
	s, _ := connectURL(t, client.Target{URL: srv.URL + "/mcp"}, client.Options{})
	res, task, err := s.CallTask(ctx(t), "research", json.RawMessage(`{"topic":"go","delayMs":20}`), client.TaskOptions{})
	if err != nil {
		t.Fatalf("the call ended on a failed poll: %v", err)
	}
	if failed.Load() < 2 {
		t.Errorf("%d tasks/get sent, want the failed one and more", failed.Load())
	}
	if task == nil || task.Status != "completed" || res == nil || !strings.Contains(string(res.Raw), "Report on go") {
		t.Errorf("task %+v, result %+v", task, res)
	}
}
