package host

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// The tasks fixtures of the conformance profile run in the host's one task store, as
// the 0.2 suite's tasks scenarios call them (TestConformanceServer runs the suite
// itself): each tool's own taskSupport in tools/list; a tool error completes the task
// with isError, a protocol error fails it with an error and no result; a task that
// asks is input_required with its inputRequests, takes its answers one at a time by
// tasks/update, and completes; a tool that runs only as a task is -32021 without the
// extension, and an optional one a plain call; before 2026-07-28 the same tools
// follow execution.taskSupport.
func TestConformanceTaskFixtures(t *testing.T) {
	srv := httptest.NewServer(newHost(t, Options{Conformance: true}).HTTPHandler())
	t.Cleanup(srv.Close)
	e := &httpEra{url: srv.URL + "/mcp", version: modernVersion, tasks: true}
	start := func(tool, args string) string {
		t.Helper()
		res := e.mustResult(t, "tools/call", tool, fmt.Sprintf(`"name":%q,"arguments":%s`, tool, args))
		id, _ := res["taskId"].(string)
		if res["resultType"] != "task" || id == "" || res["result"] != nil || res["inputRequests"] != nil {
			t.Fatalf("%s: %v; want a CreateTaskResult", tool, res)
		}
		return id
	}
	get := func(id string) map[string]any {
		return e.mustResult(t, "tasks/get", "", fmt.Sprintf(`"taskId":%q`, id))
	}
	until := func(what, id string, ok func(map[string]any) bool) map[string]any {
		t.Helper()
		var last map[string]any
		testutil.Eventually(t, what, func() (bool, string) {
			last = get(id)
			return ok(last), fmt.Sprint(last)
		})
		return last
	}
	status := func(s string) func(map[string]any) bool {
		return func(m map[string]any) bool { return m["status"] == s }
	}
	text := func(v any) string { b, _ := json.Marshal(v); return string(b) }

	list := e.mustResult(t, "tools/list", "", "")
	support := map[string]any{}
	for _, tool := range list["tools"].([]any) {
		tm := tool.(map[string]any)
		if ex, ok := tm["execution"].(map[string]any); ok {
			support[tm["name"].(string)] = ex["taskSupport"]
		}
	}
	for tool, want := range map[string]string{"research": "required", "slow_compute": "optional", "failing_job": "required", "protocol_error_job": "required", "confirm_delete": "required", "multi_input": "required", "test_tool_with_task": "required"} {
		if support[tool] != want {
			t.Errorf("%s: taskSupport %v, want %s", tool, support[tool], want)
		}
	}
	if _, ok := support["greet"]; ok {
		t.Error("greet has task support")
	}

	done := until("slow_compute to complete", start("slow_compute", `{"seconds":0,"label":"quick"}`), status("completed"))
	if !strings.Contains(text(done["result"]), "Computed quick") {
		t.Errorf("slow_compute: %v", done)
	}
	done = until("failing_job to end", start("failing_job", `{}`), func(m map[string]any) bool { return m["status"] != "working" })
	if r, _ := done["result"].(map[string]any); done["status"] != "completed" || r["isError"] != true {
		t.Errorf("failing_job: %v; want completed with result.isError", done)
	}
	done = until("protocol_error_job to end", start("protocol_error_job", `{}`), func(m map[string]any) bool { return m["status"] != "working" })
	if er, _ := done["error"].(map[string]any); done["status"] != "failed" || er["code"] != float64(-32603) || done["result"] != nil {
		t.Errorf("protocol_error_job: %v; want failed with error -32603 and no result", done)
	}

	id := start("multi_input", `{}`)
	asked := until("multi_input to ask", id, status("input_required"))
	reqs, _ := asked["inputRequests"].(map[string]any)
	if len(reqs) != 2 || !strings.Contains(text(reqs["name"]), `"method":"elicitation/create"`) {
		t.Fatalf("multi_input asks %v", asked)
	}
	ack := e.mustResult(t, "tasks/update", "", fmt.Sprintf(`"taskId":%q,"inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}},"nothing-asked":{"x":1}}`, id))
	if ack["resultType"] != "complete" || ack["status"] != nil {
		t.Errorf("tasks/update = %v; want an empty ack", ack)
	}
	if st := get(id); st["status"] != "input_required" || text(st["inputRequests"]) == "" || st["inputRequests"].(map[string]any)["name"] != nil || st["inputRequests"].(map[string]any)["confirm"] == nil {
		t.Errorf("after one answer of two: %v; want input_required asking confirm only", st)
	}
	e.mustResult(t, "tasks/update", "", fmt.Sprintf(`"taskId":%q,"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}`, id))
	done = until("multi_input to complete", id, status("completed"))
	if !strings.Contains(text(done["result"]), "name: Ada, go on: true") {
		t.Errorf("multi_input: %v", done)
	}

	// A cancel while it asks: an empty ack, and tasks/get says cancelled.
	id = start("confirm_delete", `{"filename":"a.txt"}`)
	until("confirm_delete to ask", id, status("input_required"))
	if ack := e.mustResult(t, "tasks/cancel", "", fmt.Sprintf(`"taskId":%q`, id)); ack["resultType"] != "complete" || ack["status"] != nil {
		t.Errorf("tasks/cancel = %v; want an empty ack", ack)
	}
	if st := get(id); st["status"] != "cancelled" || st["inputRequests"] != nil {
		t.Errorf("after the cancel: %v", st)
	}

	// Without the extension: a tool that runs only as a task is refused naming it; an
	// optional one is a plain call.
	plain := &httpEra{url: e.url, version: modernVersion}
	if status, _, rerr, body := plain.request(t, "tools/call", "failing_job", `"name":"failing_job","arguments":{}`); status != http.StatusBadRequest || rerr["code"] != float64(-32021) || !strings.Contains(body, tasksExt) {
		t.Errorf("failing_job without the extension: %d %s; want 400 with -32021 naming it", status, body)
	}
	if res := plain.mustResult(t, "tools/call", "slow_compute", `"name":"slow_compute","arguments":{"seconds":0,"label":"plain"}`); res["resultType"] != "complete" || !strings.Contains(text(res["content"]), "Computed plain") {
		t.Errorf("slow_compute without the extension: %v; want a plain result", res)
	}

	// 2025-11-25: execution.taskSupport decides, and a failed task's tasks/result is
	// the error the call would have answered.
	old := &httpEra{url: e.url, version: "2025-11-25"}
	if _, _, rerr, body := old.request(t, "tools/call", "", `"name":"failing_job","arguments":{}`); rerr["code"] != float64(-32601) {
		t.Errorf("a plain call of failing_job before 2026-07-28: %s; want -32601", body)
	}
	res := old.mustResult(t, "tools/call", "", `"name":"protocol_error_job","arguments":{},"task":{}`)
	task, _ := res["task"].(map[string]any)
	oid, _ := task["taskId"].(string)
	if oid == "" {
		t.Fatalf("protocol_error_job as a 2025 task: %v", res)
	}
	if _, _, rerr, body := old.request(t, "tasks/result", "", fmt.Sprintf(`"taskId":%q`, oid)); rerr["code"] != float64(-32603) {
		t.Errorf("tasks/result of the failed task: %s; want its -32603", body)
	}
}
