package host

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tasks, which the SDK does not know. One store runs every tool that can be a task
// (taskTool: the demo's research, and the conformance profile's fixtures), in both
// dialects. In the 2025-11-25 era (capabilities.tasks) the tool's
// execution.taskSupport decides: a call of a "required" tool must ask for a task
// (params.task; a plain call is -32601), and a tool with none refuses one. In
// 2026-07-28 a call is a task when the request declares the
// io.modelcontextprotocol/tasks extension; without it an "optional" tool (and
// research, which can answer at once) gets a plain call, and a tool that can only run
// as a task is -32021 naming the extension.
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

// taskTool is a tool the store can run as a task.
type taskTool struct {
	support string // its execution.taskSupport: "required" or "optional"
	// plainWithoutExt: a 2026-07-28 call that does not declare the tasks extension
	// is answered by the tool's own handler (a plain call) even though support is
	// "required". Only research: it answers at once, and clients without the
	// extension can use it.
	plainWithoutExt bool
	// begins reports whether this call starts the task (nil: every call does); a
	// tool that gathers its input in multi-round-trip rounds first leaves the
	// rounds before to its own handler. An error refuses the call.
	begins func(req *mcp.CallToolRequest, isModern bool) (bool, error)
	// run is the task's work. A tool error is a result with isError (the task
	// completes); an error is a protocol error (the task fails).
	run func(ctx context.Context, p *mcp.CallToolParamsRaw, tc *taskCtl) (*mcp.CallToolResult, error)
}

type hostTask struct {
	id, tool, status, message string
	modern                    bool // created by a 2026-07-28 request: input is asked with tasks/update
	created, updated          time.Time
	result                    *mcp.CallToolResult
	err                       *jsonrpc.Error // a protocol error: the task failed
	cancel                    context.CancelFunc
	// While input_required: what is still asked (key: request), what was answered,
	// and answered, closed when nothing is pending any more.
	pending  mcp.InputRequestMap
	answers  mcp.InputResponseMap
	answered chan struct{}
}

type taskStore struct {
	mu    sync.Mutex
	tasks map[string]*hostTask
	tools map[string]*taskTool // by tool name; registered before the host serves
}

// register makes the tool called name runnable as a task. The tool itself (schema,
// plain-call handler) is registered with the server by the caller.
func (st *taskStore) register(name string, t *taskTool) { st.tools[name] = t }

// taskCtl is what a running task's work reports through; nil for a plain call.
type taskCtl struct {
	st *taskStore
	t  *hostTask
}

// status sets the task's status message.
func (tc *taskCtl) status(msg string) {
	if tc == nil {
		return
	}
	tc.st.mu.Lock()
	if tc.t.status == "working" {
		tc.t.message, tc.t.updated = msg, time.Now().UTC()
	}
	tc.st.mu.Unlock()
}

// ask parks the task in input_required with reqs (tasks/get shows them as
// inputRequests) until tasks/update has answered every one, and returns the
// answers. Only a 2026-07-28 task can ask: before it, a task's input is a request on
// the client's session during tasks/result, which the host does not send.
func (tc *taskCtl) ask(ctx context.Context, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	if tc == nil || !tc.t.modern {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "this tool asks for input mid-task, which the host does on 2026-07-28 only (tasks/update); call it as a 2026-07-28 task"}
	}
	st, t := tc.st, tc.t
	st.mu.Lock()
	if t.status != "working" {
		st.mu.Unlock()
		return nil, fmt.Errorf("task %s is %s", t.id, t.status)
	}
	t.pending, t.answers, t.answered = mcp.InputRequestMap{}, mcp.InputResponseMap{}, make(chan struct{})
	for k, v := range reqs {
		t.pending[k] = v
	}
	t.status, t.message, t.updated = "input_required", "waiting for the client's input", time.Now().UTC()
	answered := t.answered
	st.mu.Unlock()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-answered:
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return t.answers, nil
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
	InputResponses json.RawMessage `json:"inputResponses,omitempty"` // tasks/update
}

func (h *Host) addTasks() {
	st := &taskStore{tasks: map[string]*hostTask{}, tools: map[string]*taskTool{}}
	h.tasks = st
	s := h.server
	mcp.AddTool(s, &mcp.Tool{
		Name: researchTool, Title: "Research (a task)",
		Description: "Runs four stages of pretend research as a task (tasks/get shows each stage); 2025-11-25: always a task, 2026-07-28: a task when the client opts into the tasks extension.",
		Annotations: readOnly(),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in researchIn) (*mcp.CallToolResult, any, error) {
		return runResearch(ctx, in, nil)
	})
	st.register(researchTool, &taskTool{support: "required", plainWithoutExt: true,
		run: func(ctx context.Context, p *mcp.CallToolParamsRaw, tc *taskCtl) (*mcp.CallToolResult, error) {
			var in researchIn
			if len(p.Arguments) > 0 {
				if err := json.Unmarshal(p.Arguments, &in); err != nil {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "research: " + err.Error()}
				}
			}
			res, _, err := runResearch(ctx, in, tc.status)
			return res, err
		}})
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
			// Each task tool's own execution.taskSupport, in both eras (a 2026-07-28
			// client that does not opt into the extension still reads it).
			return patch(req, res, func(m map[string]any) {
				tools, _ := m["tools"].([]any)
				for _, t := range tools {
					if tm, ok := t.(map[string]any); ok {
						name, _ := tm["name"].(string)
						if tt := st.tools[name]; tt != nil {
							tm["execution"] = map[string]any{"taskSupport": tt.support}
						}
					}
				}
			})
		case "tools/call":
			cr, ok := req.(*mcp.CallToolRequest)
			if !ok || cr.Params == nil {
				return next(ctx, method, req)
			}
			name := cr.Params.Name
			tool := st.tools[name]
			// 2026-07-28: the extension declared on the request decides, and a
			// legacy params.task is tolerated but never makes a task. Before, the
			// tool's execution.taskSupport does (mcp-wire.md §6.6): absent
			// (forbidden) refuses a task, required refuses a plain call.
			isModern, wantsTask := modern(req)
			if !isModern {
				wantsTask = legacyTaskAsked(req)
				switch {
				case tool != nil && tool.support == "required" && !wantsTask:
					return nil, methodNotFound(fmt.Sprintf("tool %q runs only as a task (execution.taskSupport is required): call it with params.task", name))
				case tool == nil && wantsTask:
					return nil, methodNotFound(fmt.Sprintf("tool %q does not run as a task (it has no execution.taskSupport): call it without params.task", name))
				}
			}
			if tool == nil {
				return next(ctx, method, req)
			}
			if !wantsTask {
				if isModern && tool.support == "required" && !tool.plainWithoutExt {
					return nil, tasksExtMissing(fmt.Sprintf("tools/call of %q (it runs only as a task)", name))
				}
				return next(ctx, method, req)
			}
			if tool.begins != nil {
				begin, err := tool.begins(cr, isModern)
				if err != nil {
					return nil, err
				}
				if !begin {
					return next(ctx, method, req)
				}
			}
			// The task is in the store before its CreateTaskResult is sent, so a
			// tasks/get right after it finds it.
			t := st.start(name, tool, cr.Params, isModern)
			out := st.view(t, isModern)
			if isModern {
				delete(out, "result") // the outcome is for tasks/get
				delete(out, "error")
				delete(out, "inputRequests")
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

// start runs tool's work for the call p as a new task.
func (st *taskStore) start(name string, tool *taskTool, p *mcp.CallToolParamsRaw, isModern bool) *hostTask {
	ctx, cancel := context.WithTimeout(context.Background(), taskTTL)
	now := time.Now().UTC()
	t := &hostTask{id: newTaskID(), tool: name, status: "working", message: "starting", modern: isModern, created: now, updated: now, cancel: cancel}
	st.mu.Lock()
	st.tasks[t.id] = t
	st.mu.Unlock()
	// The work gets its own copy of what it reads: the request is the SDK's.
	call := &mcp.CallToolParamsRaw{Name: p.Name, Arguments: append(json.RawMessage(nil), p.Arguments...), InputResponses: p.InputResponses, RequestState: p.RequestState}
	go func() {
		defer cancel()
		res, err := tool.run(ctx, call, &taskCtl{st: st, t: t})
		st.mu.Lock()
		defer st.mu.Unlock()
		if t.status == "cancelled" {
			return
		}
		t.updated, t.pending = time.Now().UTC(), nil
		if err != nil || res == nil {
			// A protocol error: the task failed, with the error a plain call would
			// have answered.
			var rpcErr *jsonrpc.Error
			switch {
			case errors.As(err, &rpcErr):
			case err != nil:
				rpcErr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
			default:
				rpcErr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: name + " returned no result"}
			}
			t.status, t.message, t.err = "failed", rpcErr.Message, rpcErr
			return
		}
		t.status, t.message, t.result = "completed", "done", res
		if res.IsError {
			t.message = "done: the tool reported an error"
		}
	}()
	return t
}

// view is the task as the dialect shows it: in 2026-07-28 (a DetailedTask) with
// what it asks for while input_required, and its result or error once ended.
func (st *taskStore) view(t *hostTask, isModern bool) map[string]any {
	st.mu.Lock()
	defer st.mu.Unlock()
	v := map[string]any{
		"taskId": t.id, "status": t.status, "statusMessage": t.message,
		"createdAt": t.created.Format(time.RFC3339Nano), "lastUpdatedAt": t.updated.Format(time.RFC3339Nano),
	}
	if isModern {
		v["ttlMs"], v["pollIntervalMs"] = taskTTL.Milliseconds(), taskPoll.Milliseconds()
		switch t.status {
		case "input_required":
			// A copy: the answer is marshalled after the lock, while tasks/update
			// may take keys out of pending.
			pending := make(mcp.InputRequestMap, len(t.pending))
			for k, r := range t.pending {
				pending[k] = r
			}
			v["inputRequests"] = pending
		case "completed":
			v["result"] = t.result
		case "failed":
			v["error"] = t.err
		}
	} else {
		v["ttl"], v["pollInterval"] = taskTTL.Milliseconds(), taskPoll.Milliseconds()
	}
	return v
}

// update gives a task the answers of tasks/update: each one to the request it
// answers; one that answers nothing pending is ignored (the extension acks it
// anyway). When nothing is pending any more the task works on.
func (st *taskStore) update(t *hostTask, responses json.RawMessage) error {
	var raw map[string]json.RawMessage
	if len(responses) > 0 && json.Unmarshal(responses, &raw) != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "tasks/update: inputResponses is not an object"}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if t.status != "input_required" {
		return nil
	}
	for key, r := range raw {
		if _, ok := t.pending[key]; !ok {
			continue
		}
		one, _ := json.Marshal(map[string]json.RawMessage{key: r})
		var m mcp.InputResponseMap
		if err := json.Unmarshal(one, &m); err != nil {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "tasks/update: " + err.Error()}
		}
		t.answers[key] = m[key]
		delete(t.pending, key)
	}
	if len(t.pending) == 0 {
		t.status, t.message, t.updated = "working", "working on the answers", time.Now().UTC()
		close(t.answered)
	}
	return nil
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
		// An empty ack: what the task does with the answers is for tasks/get to say.
		if err := st.update(t, p.InputResponses); err != nil {
			return nil, err
		}
		return reply(map[string]any{})
	case "tasks/cancel":
		// 2026-07-28 answers an empty ack ({resultType:"complete"}), for an ended
		// task too (the extension reserves -32602 for an unknown one): the cancel is
		// cooperative and tasks/get says how the task ended. 2025-11-25 answers the
		// task, and refuses to cancel an ended one.
		st.mu.Lock()
		switch t.status {
		case "working", "input_required":
			t.status, t.message, t.updated, t.pending = "cancelled", "cancelled by the client", time.Now().UTC(), nil
			st.mu.Unlock()
			t.cancel()
		default:
			st.mu.Unlock()
			if !isModern {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("task %s is already %s", id, t.status)}
			}
		}
		if isModern {
			return reply(map[string]any{})
		}
		return reply(st.view(t, isModern))
	default: // tasks/result: wait for the end
		for {
			st.mu.Lock()
			status, res, rpcErr := t.status, t.result, t.err
			st.mu.Unlock()
			switch status {
			case "failed":
				// What the call would have answered (mcp-wire.md §6.6).
				return nil, rpcErr
			case "completed":
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
