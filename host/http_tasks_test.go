package host

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// httpEra speaks raw JSON-RPC to the host's HTTP endpoint in one era: 2025-11-25
// (stateless, the version header only) or 2026-07-28 (_meta on every request and
// the routing headers). tasks says whether a 2026 request declares the tasks
// extension (a 2025 request asks for a task with params.task instead).
type httpEra struct {
	url     string
	version string
	tasks   bool
	id      atomic.Int64
}

func (e *httpEra) modern() bool { return e.version >= modernVersion }

// request sends method with params (a JSON object's members, without braces) and
// returns the decoded result or error, with the HTTP status.
func (e *httpEra) request(t *testing.T, method, name, params string) (status int, result, rpcErr map[string]any, body string) {
	t.Helper()
	headers := map[string]string{"MCP-Protocol-Version": e.version}
	if e.modern() {
		headers = modernHeaders(method, name)
		caps := `{}`
		if e.tasks {
			caps = `{"extensions":{"` + tasksExt + `":{}}}`
		}
		meta := strings.Replace(modernMeta, `"io.modelcontextprotocol/clientCapabilities":{}`, `"io.modelcontextprotocol/clientCapabilities":`+caps, 1)
		if params == "" {
			params = meta
		} else {
			params += "," + meta
		}
	}
	r := post(t, e.url, headers, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s}}`, e.id.Add(1), method, params))
	result, rpcErr = r.rpc(t)
	return r.status, result, rpcErr, r.body
}

// mustResult is request for a call that must succeed.
func (e *httpEra) mustResult(t *testing.T, method, name, params string) map[string]any {
	t.Helper()
	status, res, rerr, body := e.request(t, method, name, params)
	if status != http.StatusOK || rerr != nil || res == nil {
		t.Fatalf("%s over HTTP (%s): %d %s", method, e.version, status, body)
	}
	return res
}

// startResearch calls the research tool as a task and returns the task's id.
func (e *httpEra) startResearch(t *testing.T, topic string, delayMs int) string {
	t.Helper()
	params := fmt.Sprintf(`"name":"research","arguments":{"topic":%q,"delayMs":%d}`, topic, delayMs)
	if !e.modern() {
		params += `,"task":{"ttl":60000}`
	}
	res := e.mustResult(t, "tools/call", "research", params)
	task := res
	if !e.modern() {
		task, _ = res["task"].(map[string]any)
	} else if res["resultType"] != "task" {
		t.Fatalf("research with the tasks extension: resultType %v, want task: %v", res["resultType"], res)
	}
	id, _ := task["taskId"].(string)
	if id == "" {
		t.Fatalf("research started no task: %v", res)
	}
	return id
}

func eachHTTPEra(t *testing.T, f func(t *testing.T, e *httpEra)) {
	_, base := newHTTPHost(t)
	for _, v := range []string{"2025-11-25", modernVersion} {
		t.Run(v, func(t *testing.T) { f(t, &httpEra{url: base + "/mcp", version: v, tasks: true}) })
	}
}

// Over HTTP the host serves what it serves over stdio: the skills and tasks it
// advertises were -32601 there (`mcpscope skills URL` exited 3, and a research task
// started over HTTP could never be followed to its end).
func TestHTTPServesSkillsAndTasks(t *testing.T) {
	eachHTTPEra(t, func(t *testing.T, e *httpEra) {
		skills := e.mustResult(t, "skills/list", "", "")
		if b, _ := json.Marshal(skills["skills"]); !strings.Contains(string(b), `"skill://hello-world/SKILL.md"`) {
			t.Errorf("skills/list = %s", b)
		}
		got := e.mustResult(t, "skills/get", "", `"uri":"skill://hello-world/SKILL.md"`)
		if sk, _ := got["skill"].(map[string]any); sk["uri"] != "skill://hello-world/SKILL.md" {
			t.Errorf("skills/get = %v", got)
		}
		read := e.mustResult(t, "resources/read", "skill://hello-world/SKILL.md", `"uri":"skill://hello-world/SKILL.md"`)
		if b, _ := json.Marshal(read); !strings.Contains(string(b), "hello-world") {
			t.Errorf("reading the skill's SKILL.md = %s", b)
		}

		// A task, polled with tasks/get to its end.
		id := e.startResearch(t, "owls", 20)
		var last map[string]any
		testutil.Eventually(t, "the research task to complete", func() (bool, string) {
			last = e.mustResult(t, "tasks/get", "", fmt.Sprintf(`"taskId":%q`, id))
			return last["status"] == "completed", fmt.Sprint(last)
		})
		report := last["result"] // 2026-07-28 inlines it
		if !e.modern() {
			report = e.mustResult(t, "tasks/result", "", fmt.Sprintf(`"taskId":%q`, id))
		}
		if b, _ := json.Marshal(report); !strings.Contains(string(b), "Report on owls: 4 stages done.") {
			t.Errorf("the task's result = %s", b)
		}

		// A long task, cancelled; tasks/get then says so.
		id = e.startResearch(t, "slow", 10000)
		e.mustResult(t, "tasks/cancel", "", fmt.Sprintf(`"taskId":%q`, id))
		if st := e.mustResult(t, "tasks/get", "", fmt.Sprintf(`"taskId":%q`, id)); st["status"] != "cancelled" {
			t.Errorf("tasks/get after tasks/cancel = %v; want status cancelled", st)
		}
	})
}

// Every 2026-07-28 result carries resultType (mcp-wire.md §4.3): the SDK adds it to
// the results of its own methods, but skills/list and skills/get, the host's own
// methods, went without, and the TypeScript SDK v2 client rejects such a result.
func TestModernResultsCarryResultType(t *testing.T) {
	_, base := newHTTPHost(t)
	e := &httpEra{url: base + "/mcp", version: modernVersion, tasks: true}
	id := e.startResearch(t, "owls", 20)
	long := e.startResearch(t, "slow", 10000)
	requests := []struct{ method, name, params string }{
		{"server/discover", "", ""},
		{"tools/list", "", ""},
		{"tools/call", "echo", `"name":"echo","arguments":{"text":"hi"}`},
		{"resources/list", "", ""},
		{"resources/templates/list", "", ""},
		{"resources/read", readmeURI, `"uri":"` + readmeURI + `"`},
		{"prompts/list", "", ""},
		{"prompts/get", "greet", `"name":"greet","arguments":{"name":"Ada"}`},
		{"completion/complete", "", `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"language","value":""}`},
		{"skills/list", "", ""},
		{"skills/get", "", `"uri":"skill://hello-world/SKILL.md"`},
		{"tasks/get", "", `"taskId":"` + id + `"`},
		{"tasks/cancel", "", `"taskId":"` + long + `"`},
	}
	for _, r := range requests {
		res := e.mustResult(t, r.method, r.name, r.params)
		if res["resultType"] != "complete" {
			t.Errorf("%s: resultType %v, want \"complete\": %v", r.method, res["resultType"], res)
		}
		if strings.HasSuffix(r.method, "/list") || r.method == "skills/get" {
			if _, ok := res["ttlMs"].(float64); !ok || res["cacheScope"] != "public" {
				t.Errorf("%s: ttlMs %v, cacheScope %v; 2026-07-28 wants both", r.method, res["ttlMs"], res["cacheScope"])
			}
		}
	}
}

// The tasks methods answer as each revision says (mcp-wire.md §4.4, §6.6, and the
// conformance scenarios tasks-capability-negotiation and tasks-dispatch-and-envelope):
// in 2026-07-28 tasks/get, tasks/update and tasks/cancel need the tasks extension
// declared on the request (-32021, naming it, otherwise), tasks/result and
// tasks/list are gone (-32601), tasks/update answers an empty ack and a cancel of an
// ended task answers as any cancel; in both eras an unknown task id is -32602;
// before 2026-07-28 there is no tasks/update.
func TestTaskErrorsByRevision(t *testing.T) {
	code := func(rerr map[string]any) any { return rerr["code"] }
	eachHTTPEra(t, func(t *testing.T, e *httpEra) {
		if e.modern() {
			undeclared := &httpEra{url: e.url, version: e.version}
			for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
				status, _, rerr, body := undeclared.request(t, m, "", `"taskId":"gate-test","inputResponses":{}`)
				if code(rerr) != float64(-32021) || status != http.StatusBadRequest {
					t.Errorf("%s without the tasks extension: %d %s; want 400 with -32021", m, status, body)
				} else if !strings.Contains(body, `"requiredCapabilities":{"extensions":{"`+tasksExt+`":{}}}`) {
					t.Errorf("%s without the tasks extension: %s does not name the extension in data.requiredCapabilities", m, body)
				}
			}
			for _, m := range []string{"tasks/result", "tasks/list"} {
				if status, _, rerr, body := e.request(t, m, "", `"taskId":"gate-test"`); code(rerr) != float64(-32601) || status != http.StatusNotFound {
					t.Errorf("%s in 2026-07-28: %d %s; want 404 with -32601", m, status, body)
				}
			}
		} else if _, _, rerr, body := e.request(t, "tasks/update", "", `"taskId":"gate-test","inputResponses":{}`); code(rerr) != float64(-32601) {
			t.Errorf("tasks/update before 2026-07-28: %s; want -32601", body)
		}

		unknown := []string{"tasks/get", "tasks/cancel", "tasks/result"}
		if e.modern() {
			unknown = []string{"tasks/get", "tasks/cancel", "tasks/update"}
		}
		for _, m := range unknown {
			if _, _, rerr, body := e.request(t, m, "", `"taskId":"tasks-conformance-nonexistent-12345","inputResponses":{}`); code(rerr) != float64(-32602) {
				t.Errorf("%s of an unknown task: %s; want -32602", m, body)
			}
		}

		if !e.modern() {
			return
		}
		id := e.startResearch(t, "slow", 10000)
		ack := e.mustResult(t, "tasks/update", "", fmt.Sprintf(`"taskId":%q,"inputResponses":{"unknown-key":{"ignored":true}}`, id))
		if ack["resultType"] != "complete" || ack["taskId"] != nil || ack["status"] != nil {
			t.Errorf("tasks/update = %v; want an ack (only resultType complete)", ack)
		}
		// A cancel is an empty ack, of an ended task too; tasks/get says how it ended.
		if res := e.mustResult(t, "tasks/cancel", "", fmt.Sprintf(`"taskId":%q`, id)); res["resultType"] != "complete" || res["taskId"] != nil || res["status"] != nil {
			t.Errorf("tasks/cancel = %v; want an empty ack", res)
		}
		if st := e.mustResult(t, "tasks/get", "", fmt.Sprintf(`"taskId":%q`, id)); st["status"] != "cancelled" || st["statusMessage"] != "cancelled by the client" {
			t.Errorf("tasks/get after the cancel = %v", st)
		}
		if again := e.mustResult(t, "tasks/cancel", "", fmt.Sprintf(`"taskId":%q`, id)); again["resultType"] != "complete" || again["taskId"] != nil || again["status"] != nil {
			t.Errorf("a second cancel = %v; want it answered as the first (an empty ack)", again)
		}
	})
}

// On 2026-07-28 tasks/get, tasks/update and tasks/cancel are routed by Mcp-Name, the
// task's id (SEP-2663 §Routing Headers, as tools/call's is its name): a header that
// names another task is -32020 with HTTP 400 and the request does not run; the same
// id (or the header left out, as clients before SEP-2663 do) is served.
func TestTasksMcpNameMustMatchTheTask(t *testing.T) {
	_, base := newHTTPHost(t)
	e := &httpEra{url: base + "/mcp", version: modernVersion, tasks: true}
	id := e.startResearch(t, "slow", 10000)
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		params := fmt.Sprintf(`"taskId":%q,"inputResponses":{}`, id)
		status, res, rerr, body := e.request(t, m, "another-task", params)
		if status != http.StatusBadRequest || rerr == nil || rerr["code"] != float64(-32020) || res != nil {
			t.Errorf("%s with Mcp-Name naming another task: %d %s; want 400 with -32020", m, status, body)
		}
		e.mustResult(t, m, " "+id+" ", params) // optional whitespace is not part of the value
	}
	if st := e.mustResult(t, "tasks/get", "", fmt.Sprintf(`"taskId":%q`, id)); st["status"] != "cancelled" {
		t.Errorf("after the matching cancel: %v", st)
	}
}
