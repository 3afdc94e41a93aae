package host

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tasks, which the SDK does not know: the research tool runs as a task in both
// dialects; its execution.taskSupport is "required". In the 2025-11-25 era
// (capabilities.tasks) a call of it must ask for a task (params.task; a plain call
// is -32601); in 2026-07-28 it is one when the request declares the
// io.modelcontextprotocol/tasks extension, and a plain call otherwise.
// A middleware adds what the SDK's types cannot carry (capabilities.tasks, the tool's
// execution member, the task-shaped result) and tasks/* are custom methods.

const (
	researchTool   = "research"
	tasksExt       = "io.modelcontextprotocol/tasks"
	taskTTL        = 10 * time.Minute
	taskPoll       = 100 * time.Millisecond
	researchStages = 4
)

func init() { demoToolNames = append(demoToolNames, researchTool) }

type hostTask struct {
	id, status, message string
	created, updated    time.Time
	result              *mcp.CallToolResult
	cancel              context.CancelFunc
}

type taskStore struct {
	mu    sync.Mutex
	tasks map[string]*hostTask
}

type researchIn struct {
	Topic   string `json:"topic" jsonschema:"what to research"`
	DelayMs int    `json:"delayMs,omitempty" jsonschema:"milliseconds per stage (default 200, at most 10000)"`
}

// rawResult is a result the middleware rewrote: the SDK sends its JSON, with the
// _meta it adds (serverInfo) merged in. modern adds resultType "complete" when the
// JSON has none, as the SDK does for its own types.
type rawResult struct {
	mcp.ResultBase
	raw    json.RawMessage
	modern bool
}

func (r *rawResult) markComplete() { r.modern = true }

func (r *rawResult) MarshalJSON() ([]byte, error) {
	if len(r.Meta) == 0 && !r.modern {
		return r.raw, nil
	}
	var m map[string]any
	if err := json.Unmarshal(r.raw, &m); err != nil {
		return r.raw, nil
	}
	if len(r.Meta) > 0 {
		meta, _ := m["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		for k, v := range r.Meta {
			if _, ok := meta[k]; !ok {
				meta[k] = v
			}
		}
		m["_meta"] = meta
	}
	if _, ok := m["resultType"]; !ok && r.modern {
		m["resultType"] = "complete"
	}
	return json.Marshal(m)
}

type taskIDParams struct {
	mcp.ParamsBase
	TaskID         string          `json:"taskId"`
	Cursor         string          `json:"cursor,omitempty"`
	InputResponses json.RawMessage `json:"inputResponses,omitempty"` // tasks/update; research never asks for input
}

func (h *Host) addTasks() {
	st := &taskStore{tasks: map[string]*hostTask{}}
	s := h.server
	mcp.AddTool(s, &mcp.Tool{
		Name: researchTool, Title: "Research (a task)",
		Description: "Runs four stages of pretend research as a task (tasks/get shows each stage); 2025-11-25: always a task, 2026-07-28: a task when the client opts into the tasks extension.",
		Annotations: readOnly(),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in researchIn) (*mcp.CallToolResult, any, error) {
		return runResearch(ctx, in, nil)
	})
	s.AddReceivingMiddleware(st.middleware)
	// One handler for both revisions' methods; handle refuses those the request's
	// revision does not have.
	for _, m := range []string{"tasks/get", "tasks/result", "tasks/cancel", "tasks/list", "tasks/update"} {
		method := m
		_ = mcp.AddReceivingCustomMethod(s, method, func(ctx context.Context, _ *mcp.ServerSession, p *taskIDParams) (*rawResult, error) {
			return st.handle(ctx, method, p)
		})
	}
}

func runResearch(ctx context.Context, in researchIn, status func(string)) (*mcp.CallToolResult, any, error) {
	delay := time.Duration(in.DelayMs) * time.Millisecond
	if delay <= 0 {
		delay = 200 * time.Millisecond
	}
	delay = min(delay, maxSlowDelay)
	stages := []string{"Gathering sources", "Reading", "Thinking", "Writing the report"}
	for i, st := range stages {
		if status != nil {
			status(fmt.Sprintf("stage %d of %d: %s", i+1, researchStages, st))
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(delay):
		}
	}
	topic := in.Topic
	if topic == "" {
		topic = "nothing in particular"
	}
	return &mcp.CallToolResult{Content: text(fmt.Sprintf("Report on %s: %d stages done.", topic, researchStages))}, nil, nil
}

// taskParamKey is where liftTaskParam puts a 2025-11-25 tools/call's params.task:
// the SDK's CallToolParams has no member for it and drops it when it decodes the
// request, but keeps _meta.
const taskParamKey = "io.github.mcpscope/task"

// liftTaskParam copies params.task of a tools/call into _meta[taskParamKey], so
// that the tasks middleware can tell a call that asks for a task from a plain one.
// Every transport the host serves applies it to what it reads (ServeStdio's
// connection, the HTTP endpoint's body) before the SDK decodes the request. It
// returns params unchanged when there is no task member.
func liftTaskParam(params json.RawMessage) (json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		return params, false
	}
	task, ok := m["task"]
	if !ok || string(task) == "null" {
		return params, false
	}
	var meta map[string]json.RawMessage
	if raw, ok := m["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return params, false
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta[taskParamKey] = task
	m["_meta"], _ = json.Marshal(meta)
	out, err := json.Marshal(m)
	if err != nil {
		return params, false
	}
	return out, true
}

// liftTaskParamInBody is liftTaskParam on the params of one JSON-RPC message.
func liftTaskParamInBody(body []byte) []byte {
	var msg map[string]json.RawMessage
	if json.Unmarshal(body, &msg) != nil {
		return body
	}
	params, ok := liftTaskParam(msg["params"])
	if !ok {
		return body
	}
	msg["params"] = params
	out, err := json.Marshal(msg)
	if err != nil {
		return body
	}
	return out
}

// legacyTaskAsked reports whether a 2025-era tools/call carried params.task (see
// liftTaskParam).
func legacyTaskAsked(req mcp.Request) bool {
	_, ok := requestMeta(req)[taskParamKey]
	return ok
}

// requestMeta is the request's _meta; nil when it has no params. A request sent
// without params (ping) has a typed nil, whose GetMeta dereferences it.
func requestMeta(req mcp.Request) map[string]any {
	p := req.GetParams()
	if p == nil || reflect.ValueOf(p).IsNil() {
		return nil
	}
	return p.GetMeta()
}

func modern(req mcp.Request) (isModern, wantsTask bool) {
	return metaEra(requestMeta(req))
}

// metaEra reads a request's _meta: whether it is of 2026-07-28 or later, and then
// whether it declares the tasks extension.
func metaEra(meta map[string]any) (isModern, declaresTasks bool) {
	v, _ := meta["io.modelcontextprotocol/protocolVersion"].(string)
	if v < modernVersion {
		return false, false
	}
	caps, _ := meta["io.modelcontextprotocol/clientCapabilities"].(map[string]any)
	ext, _ := caps["extensions"].(map[string]any)
	_, ok := ext[tasksExt]
	return true, ok
}

// tasksExtMissing is -32021 for a 2026-07-28 tasks request that does not declare the
// tasks extension (SEP-2575: the capabilities are declared per request).
func tasksExtMissing(method string) error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{tasksExt: map[string]any{}}}})
	return &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: fmt.Sprintf("%s needs the %s extension declared in the request's _meta clientCapabilities", method, tasksExt),
		Data:    data,
	}
}

// patch re-marshals res with edit applied to its JSON object.
func patch(req mcp.Request, res mcp.Result, edit func(m map[string]any)) (mcp.Result, error) {
	isModern, _ := modern(req)
	b, err := json.Marshal(res)
	if err != nil {
		return res, nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return res, nil
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return &rawResult{raw: out, modern: isModern}, nil
}

func (st *taskStore) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "initialize":
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			return patch(req, res, func(m map[string]any) {
				caps, _ := m["capabilities"].(map[string]any)
				if caps != nil {
					caps["tasks"] = map[string]any{"list": map[string]any{}, "cancel": map[string]any{}, "requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
				}
			})
		case "tools/list":
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			// required in both eras (a 2026-07-28 client that does not opt into the
			// extension still gets a plain answer).
			support := "required"
			return patch(req, res, func(m map[string]any) {
				tools, _ := m["tools"].([]any)
				for _, t := range tools {
					if tm, ok := t.(map[string]any); ok && tm["name"] == researchTool {
						tm["execution"] = map[string]any{"taskSupport": support}
					}
				}
			})
		case "tools/call":
			cr, ok := req.(*mcp.CallToolRequest)
			if !ok || cr.Params == nil {
				return next(ctx, method, req)
			}
			// 2026-07-28: the extension declared on the request decides, and a
			// legacy params.task is tolerated but never makes a task. Before, the
			// tool's execution.taskSupport does (mcp-wire.md §6.6): research's is
			// "required", every other tool's is absent (forbidden).
			isModern, wantsTask := modern(req)
			if !isModern {
				wantsTask = legacyTaskAsked(req)
				switch {
				case cr.Params.Name == researchTool && !wantsTask:
					return nil, methodNotFound(fmt.Sprintf("tool %q runs only as a task (execution.taskSupport is required): call it with params.task", researchTool))
				case cr.Params.Name != researchTool && wantsTask:
					return nil, methodNotFound(fmt.Sprintf("tool %q does not run as a task (it has no execution.taskSupport): call it without params.task", cr.Params.Name))
				}
			}
			if cr.Params.Name != researchTool || !wantsTask {
				return next(ctx, method, req)
			}
			var in researchIn
			if len(cr.Params.Arguments) > 0 {
				if err := json.Unmarshal(cr.Params.Arguments, &in); err != nil {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "research: " + err.Error()}
				}
			}
			t := st.start(in)
			out := st.view(t, isModern)
			if isModern {
				out["resultType"] = "task"
			} else {
				out = map[string]any{"task": out}
			}
			b, _ := json.Marshal(out)
			return &rawResult{raw: b}, nil
		}
		return next(ctx, method, req)
	}
}

// methodNotFound is a -32601 error that keeps its message. The SDK replaces the
// message of any error that is -32601 by errors.Is with "method not found:
// METHOD", which for a tools/call says nothing of why; this error is not one by
// errors.Is (it has no Unwrap) but gives its code to the SDK's errors.As, which
// keeps the message.
type methodNotFound string

func (e methodNotFound) Error() string { return string(e) }

func (e methodNotFound) As(target any) bool {
	if w, ok := target.(**jsonrpc.Error); ok {
		*w = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: string(e)}
		return true
	}
	return false
}

func newTaskID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (st *taskStore) start(in researchIn) *hostTask {
	ctx, cancel := context.WithTimeout(context.Background(), taskTTL)
	now := time.Now().UTC()
	t := &hostTask{id: newTaskID(), status: "working", message: "starting", created: now, updated: now, cancel: cancel}
	st.mu.Lock()
	st.tasks[t.id] = t
	st.mu.Unlock()
	go func() {
		defer cancel()
		res, _, err := runResearch(ctx, in, func(msg string) {
			st.mu.Lock()
			if t.status == "working" {
				t.message, t.updated = msg, time.Now().UTC()
			}
			st.mu.Unlock()
		})
		st.mu.Lock()
		defer st.mu.Unlock()
		if t.status != "working" {
			return // cancelled
		}
		t.updated = time.Now().UTC()
		if err != nil {
			t.status, t.message = "failed", err.Error()
			t.result = errorResult(err.Error())
			return
		}
		t.status, t.message, t.result = "completed", "done", res
	}()
	return t
}

// view is the task as the dialect shows it.
func (st *taskStore) view(t *hostTask, isModern bool) map[string]any {
	st.mu.Lock()
	defer st.mu.Unlock()
	v := map[string]any{
		"taskId": t.id, "status": t.status, "statusMessage": t.message,
		"createdAt": t.created.Format(time.RFC3339Nano), "lastUpdatedAt": t.updated.Format(time.RFC3339Nano),
	}
	if isModern {
		v["ttlMs"], v["pollIntervalMs"] = taskTTL.Milliseconds(), taskPoll.Milliseconds()
		if t.result != nil {
			v["result"] = t.result
		}
	} else {
		v["ttl"], v["pollInterval"] = taskTTL.Milliseconds(), taskPoll.Milliseconds()
	}
	return v
}

func (st *taskStore) handle(ctx context.Context, method string, p *taskIDParams) (*rawResult, error) {
	var meta map[string]any
	if p != nil {
		meta = p.GetMeta()
	}
	isModern, declared := metaEra(meta)
	// Which methods exist depends on the revision (mcp-wire.md §6.6): 2026-07-28's
	// extension has tasks/get, tasks/update and tasks/cancel, and only for a request
	// that declares it; 2025-11-25 has tasks/get, tasks/result, tasks/list and
	// tasks/cancel.
	switch {
	case isModern && (method == "tasks/result" || method == "tasks/list"):
		return nil, methodNotFound(fmt.Sprintf("%s is not in the 2026-07-28 tasks extension: tasks/get carries the task's result, and there is no list", method))
	case isModern && !declared:
		return nil, tasksExtMissing(method)
	case !isModern && method == "tasks/update":
		return nil, methodNotFound("tasks/update is in the 2026-07-28 tasks extension only; before it, a task's input is asked for during tasks/result")
	}
	reply := func(v map[string]any) (*rawResult, error) {
		if isModern {
			v["resultType"] = "complete"
		}
		b, err := json.Marshal(v)
		return &rawResult{raw: b, modern: isModern}, err
	}
	if method == "tasks/list" {
		st.mu.Lock()
		ids := make([]*hostTask, 0, len(st.tasks))
		for _, t := range st.tasks {
			ids = append(ids, t)
		}
		st.mu.Unlock()
		sort.Slice(ids, func(i, j int) bool { return ids[i].created.After(ids[j].created) })
		list := []any{}
		for _, t := range ids {
			list = append(list, st.view(t, isModern))
		}
		return reply(map[string]any{"tasks": list})
	}
	id := ""
	if p != nil {
		id = p.TaskID
	}
	st.mu.Lock()
	t, ok := st.tasks[id]
	st.mu.Unlock()
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no task %q", id)}
	}
	switch method {
	case "tasks/get":
		return reply(st.view(t, isModern))
	case "tasks/update":
		// The research task never asks for input, so there is nothing to give the
		// responses to; the ack is what the extension answers either way.
		return reply(map[string]any{})
	case "tasks/cancel":
		st.mu.Lock()
		if t.status != "working" {
			st.mu.Unlock()
			if isModern {
				// The extension reserves -32602 for an unknown task: cancelling an
				// ended one answers as a cancel does (idempotent).
				return reply(st.view(t, isModern))
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("task %s is already %s", id, t.status)}
		}
		t.status, t.message, t.updated = "cancelled", "cancelled by the client", time.Now().UTC()
		st.mu.Unlock()
		t.cancel()
		// The answer carries the task, in 2026-07-28 too, where the extension's
		// scenarios want an empty ack: mcpscope's client takes a cancel's task as
		// the task's last state (it asks tasks/get no more), and an empty ack would
		// lose the status message.
		return reply(st.view(t, isModern))
	default: // tasks/result: wait for the end
		for {
			st.mu.Lock()
			status, res := t.status, t.result
			st.mu.Unlock()
			switch status {
			case "completed", "failed":
				b, err := json.Marshal(res)
				return &rawResult{raw: b, modern: isModern}, err
			case "cancelled":
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("task %s was cancelled", id)}
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(taskPoll):
			}
		}
	}
}
