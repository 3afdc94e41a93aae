package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/client/wire"
)

// Task dialects: the experimental tasks of 2025-11-25 (core, capabilities.tasks) and
// the tasks extension of 2026-07-28.
const (
	TasksExtension = "io.modelcontextprotocol/tasks"
	Tasks2025      = "2025-11-25"
	Tasks2026      = "2026-07-28"
)

// Task is a task's state as the server last reported it.
type Task struct {
	ID            string
	Status        string
	StatusMessage string
	CreatedAt     string
	LastUpdatedAt string
	TTL           *int64 // ms
	PollInterval  *int64 // ms
	// Result and Error are a 2026-07-28 task's outcome, in tasks/get once terminal.
	Result        json.RawMessage
	Error         *RPCError
	InputRequests json.RawMessage // 2026-07-28: what the task asks for mid-way
	Raw           json.RawMessage
}

// Terminal reports whether the task has ended.
func (t Task) Terminal() bool {
	switch t.Status {
	case "completed", "failed", "cancelled":
		return true
	}
	return false
}

// The task-poll policy's bounds: the interval a server asks for is held within
// [TaskPollMin, TaskPollMax] (1 s when it asks none); after TaskPollSlowAfter polls
// in a row that saw no change the interval doubles every 10 more, up to
// TaskPollSlowCap (or the server's own interval when longer); each failed poll in a
// row doubles it (up to TaskPollMax), and TaskPollMaxFailures of them stop the
// polling.
const (
	TaskPollMin         = 50 * time.Millisecond
	TaskPollMax         = 30 * time.Second
	TaskPollDefault     = time.Second
	TaskPollSlowAfter   = 50
	TaskPollSlowCap     = 5 * time.Second
	TaskPollMaxFailures = 5
)

// TaskPoll is the one policy for following a task with tasks/get: how long to wait
// before the next poll, and when to stop trying. CallTask (the CLI's `call` of a task
// tool) and the TUI's Tasks tab both tick it, so a task is polled the same way
// wherever it runs: at the server's pollInterval, slower when nothing changes for a
// long while (a task that runs for hours costs a request every few seconds, not 20 a
// second), backing off on failures and giving up after a few, and resumable. The zero
// value is ready; it is not safe for concurrent use (each follower owns its own).
type TaskPoll struct {
	interval  time.Duration // the server's last pollInterval (0: none given)
	status    string        // the last state seen, to tell a change
	message   string
	seen      bool
	unchanged int // states in a row equal to the one before
	failures  int // failed polls in a row
}

// Seen takes a state of the task (a tasks/get answer or a status notification): its
// pollInterval when it gives one, whether anything changed, and the end of a run of
// failures.
func (p *TaskPoll) Seen(t Task) {
	if t.PollInterval != nil && *t.PollInterval > 0 {
		p.interval = time.Duration(*t.PollInterval) * time.Millisecond
	}
	if p.seen && t.Status == p.status && t.StatusMessage == p.message {
		p.unchanged++
	} else {
		p.unchanged = 0
	}
	p.seen, p.status, p.message = true, t.Status, t.StatusMessage
	p.failures = 0
}

// Failed counts a poll that failed; it reports whether polling should stop now.
func (p *TaskPoll) Failed() (stop bool) {
	p.failures++
	return p.failures >= TaskPollMaxFailures
}

// Resume starts again after polling stopped (the user asked): the failures are
// forgotten, the next wait is the server's interval.
func (p *TaskPoll) Resume() { p.failures = 0 }

// Failures is the number of failed polls in a row.
func (p *TaskPoll) Failures() int { return p.failures }

// Unchanged is the number of states in a row that changed nothing.
func (p *TaskPoll) Unchanged() int { return p.unchanged }

// Wait is how long to wait before the next tasks/get.
func (p *TaskPoll) Wait() time.Duration {
	wait := TaskPollDefault
	if p.interval > 0 {
		wait = p.interval
	}
	wait = min(max(wait, TaskPollMin), TaskPollMax)
	if p.unchanged > TaskPollSlowAfter {
		limit := max(wait, TaskPollSlowCap)
		for i := TaskPollSlowAfter; i < p.unchanged && wait < limit; i += 10 {
			wait *= 2
		}
		wait = min(wait, limit)
	}
	for range p.failures {
		wait = min(wait*2, TaskPollMax)
	}
	return wait
}

// TaskSupport is a tool's execution.taskSupport: "required", "optional" or
// "forbidden" (also when absent or not understood).
func (t Tool) TaskSupport() string {
	var ex struct {
		TaskSupport string `json:"taskSupport"`
	}
	if json.Unmarshal(t.Extra["execution"], &ex) == nil {
		switch ex.TaskSupport {
		case "required", "optional":
			return ex.TaskSupport
		}
	}
	return "forbidden"
}

// TaskDialect says which tasks the server speaks: Tasks2026 when it declares the
// extension, Tasks2025 when it declares capabilities.tasks, "" when neither.
func (s *Session) TaskDialect() string {
	_, ext := s.Capability("extensions", TasksExtension)
	switch {
	case ext && s.info.Era == EraModern:
		return Tasks2026
	case s.HasCapability("tasks"):
		return Tasks2025
	case ext:
		return Tasks2026
	}
	return ""
}

func decodeTask(raw json.RawMessage) (Task, error) {
	t := Task{Raw: raw}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return t, fmt.Errorf("the task is %s, not an object", jsonKind(raw))
	}
	// CreateTaskResult nests the task; tasks/get flattens it.
	if inner, ok := m["task"]; ok && jsonKind(inner) == "an object" {
		var im map[string]json.RawMessage
		_ = json.Unmarshal(inner, &im)
		for k, v := range m {
			if _, ok := im[k]; !ok && k != "task" {
				im[k] = v
			}
		}
		m = im
	}
	f := &fields{m: m}
	t.ID = f.str("taskId")
	t.Status = f.str("status")
	t.StatusMessage = f.str("statusMessage")
	t.CreatedAt = f.str("createdAt")
	t.LastUpdatedAt = f.str("lastUpdatedAt")
	t.TTL = f.int64p("ttl")
	if t.TTL == nil {
		t.TTL = f.int64p("ttlMs")
	}
	t.PollInterval = f.int64p("pollInterval")
	if t.PollInterval == nil {
		t.PollInterval = f.int64p("pollIntervalMs")
	}
	t.Result = f.raw("result")
	t.InputRequests = f.raw("inputRequests")
	if e := f.raw("error"); e != nil {
		var re struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		}
		if json.Unmarshal(e, &re) == nil {
			t.Error = &RPCError{Code: re.Code, Message: re.Message, Data: re.Data}
		}
	}
	if t.ID == "" {
		return t, fmt.Errorf("the task has no taskId: %s", abbreviate(raw, 120))
	}
	switch t.Status {
	case "working", "input_required", "completed", "failed", "cancelled":
	default:
		return t, fmt.Errorf("task %s has status %q, which is not a task status", t.ID, t.Status)
	}
	return t, nil
}

// TaskOptions configures a call run as a task.
type TaskOptions struct {
	TTL      time.Duration // asked-for retention; 0: the server's default
	OnStatus func(Task)    // each change of status or message
	// OnCreated is called once the server has created the task.
	OnCreated func(Task)
}

// taskMeta is the _meta of a 2026-07-28 request that opts into the tasks extension.
func (s *Session) taskMeta() map[string]any {
	caps := map[string]any{}
	for k, v := range s.declared {
		caps[k] = v
	}
	caps["extensions"] = map[string]any{TasksExtension: map[string]any{}}
	return map[string]any{"io.modelcontextprotocol/clientCapabilities": caps}
}

// CallTask calls a tool as a task and follows it to its end: tasks/get as TaskPoll
// says (the server's pollInterval, slower when nothing changes, a failed poll tried
// again up to TaskPollMaxFailures; sooner on notifications/tasks/status), then tasks/result
// (2025-11-25) or the result in tasks/get (2026-07-28). The whole task is bounded by
// Options.Timeout, restarted by each status change and capped by TimeoutCap; on a
// timeout or a cancelled ctx the task is cancelled on the server (tasks/cancel). A
// server that answers without creating a task gets its result returned as is.
func (s *Session) CallTask(ctx context.Context, name string, args json.RawMessage, opts TaskOptions) (*CallResult, *Task, error) {
	dialect := s.TaskDialect()
	if dialect == "" {
		return nil, nil, errNoTasks
	}
	rctx, rt := s.startRequest(ctx, fmt.Sprintf("task for tool %q", name))
	defer rt.stop()
	direct, created, err := s.createTask(rctx, dialect, name, args, opts.TTL)
	if err != nil {
		return nil, nil, s.taskErr(ctx, rctx, err)
	}
	if direct != nil {
		return direct, nil, nil
	}
	task := *created
	if opts.OnCreated != nil {
		opts.OnCreated(task)
	}
	if opts.OnStatus != nil {
		opts.OnStatus(task)
	}
	wake := make(chan struct{}, 1)
	stop := s.tap.Listen(func(e wire.Event) {
		// The head names the method (a 100 MiB result is not searched); the id is
		// looked for only in a task notification.
		if e.Kind == wire.KindMessage && e.Dir == wire.Recv && (strings.HasPrefix(e.Method, "notifications/tasks") || e.Shape == wire.ShapeBatch) && bytes.Contains(e.Data, []byte(task.ID)) {
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	})
	defer stop()
	last := task
	var poll TaskPoll // the same policy the TUI's Tasks tab ticks
	poll.Seen(task)
	retry := false // the last tasks/get failed: last is the state already acted on
	for !last.Terminal() {
		if last.Status == "input_required" && !retry {
			if dialect == Tasks2025 {
				// The server sends its requests once tasks/result is called; it blocks
				// until the task ends.
				break
			}
			if err := s.answerTaskInput(rctx, last); err != nil {
				s.cancelTask(last.ID)
				return nil, &last, err
			}
		}
		timer := time.NewTimer(poll.Wait())
		select {
		case <-rctx.Done():
			timer.Stop()
			s.cancelTask(last.ID)
			return nil, &last, s.taskErr(ctx, rctx, rctx.Err())
		case <-wake:
			timer.Stop()
		case <-timer.C:
		}
		t, err := s.GetTask(rctx, last.ID)
		if err != nil {
			if rctx.Err() != nil {
				s.cancelTask(last.ID)
				return nil, &last, s.taskErr(ctx, rctx, err)
			}
			if poll.Failed() {
				return nil, &last, s.taskErr(ctx, rctx, fmt.Errorf("tasks/get failed %d times in a row, the last: %w", poll.Failures(), err))
			}
			retry = true // tried again after the policy's (longer) wait
			continue
		}
		retry = false
		poll.Seen(*t)
		if t.Status != last.Status || t.StatusMessage != last.StatusMessage {
			rt.progressed()
			if opts.OnStatus != nil {
				opts.OnStatus(*t)
			}
		}
		last = *t
	}
	if dialect == Tasks2026 {
		switch {
		case last.Error != nil:
			return nil, &last, last.Error
		case last.Result != nil:
			return decodeCallResult(last.Result), &last, nil
		case last.Status == "cancelled":
			return nil, &last, fmt.Errorf("task %s was cancelled", last.ID)
		}
		return nil, &last, fmt.Errorf("task %s ended %s without a result", last.ID, last.Status)
	}
	if last.Status == "cancelled" {
		return nil, &last, fmt.Errorf("task %s was cancelled", last.ID)
	}
	res, err := s.request(rctx, "tasks/result", map[string]string{"taskId": last.ID})
	if err != nil {
		if rctx.Err() != nil {
			s.cancelTask(last.ID)
		}
		return nil, &last, s.taskErr(ctx, rctx, err)
	}
	if t, gerr := s.GetTask(rctx, last.ID); gerr == nil && t.Status != last.Status {
		if opts.OnStatus != nil {
			opts.OnStatus(*t)
		}
		last = *t
	}
	return decodeCallResult(res), &last, nil
}

var errNoTasks = &UsageError{Msg: "the server declares no tasks support (capabilities.tasks, or the " + TasksExtension + " extension)"}

// createTask sends tools/call augmented as a task in the server's dialect. A server
// that answers without creating a task gets its result returned as direct.
func (s *Session) createTask(ctx context.Context, dialect, name string, args json.RawMessage, ttl time.Duration) (direct *CallResult, task *Task, err error) {
	params := map[string]any{"name": name}
	if len(args) > 0 {
		params["arguments"] = args
	}
	meta := map[string]any{}
	if dialect == Tasks2025 {
		task := map[string]any{}
		if ttl > 0 {
			task["ttl"] = ttl.Milliseconds()
		}
		params["task"] = task
	} else {
		meta = s.taskMeta()
	}
	if m := s.logMeta(); m != nil {
		for k, v := range m {
			meta[k] = v
		}
	}
	if len(meta) > 0 {
		params["_meta"] = meta
	}
	result, err := s.request(ctx, "tools/call", params)
	if err != nil {
		return nil, nil, err
	}
	var top map[string]json.RawMessage
	_ = json.Unmarshal(result, &top)
	isTask := resultTypeOf(top) == "task" || (top["task"] != nil && top["content"] == nil)
	if !isTask {
		return decodeCallResult(result), nil, nil
	}
	t, err := decodeTask(result)
	if err != nil {
		return nil, nil, err
	}
	return nil, &t, nil
}

// StartTask calls a tool as a task and returns once the server has created it (or,
// when it answered without a task, with the result as direct). Following the task
// is the caller's: GetTask at its PollInterval, TaskResult, CancelTask.
func (s *Session) StartTask(ctx context.Context, name string, args json.RawMessage, ttl time.Duration) (direct *CallResult, task *Task, err error) {
	dialect := s.TaskDialect()
	if dialect == "" {
		return nil, nil, errNoTasks
	}
	rctx, rt := s.startRequest(ctx, fmt.Sprintf("task for tool %q", name))
	defer rt.stop()
	direct, task, err = s.createTask(rctx, dialect, name, args, ttl)
	if err != nil {
		return nil, nil, s.taskErr(ctx, rctx, err)
	}
	return direct, task, nil
}

// TaskResult is the outcome of a terminal task: the result in tasks/get on
// 2026-07-28 (t as last fetched), tasks/result in 2025-11-25, which blocks while the
// task runs (and is when the server sends its elicitation and sampling requests for
// a task in input_required).
func (s *Session) TaskResult(ctx context.Context, t Task) (*CallResult, error) {
	if s.TaskDialect() == Tasks2026 {
		switch {
		case t.Error != nil:
			return nil, t.Error
		case t.Result != nil:
			return decodeCallResult(t.Result), nil
		case t.Status == "cancelled":
			return nil, fmt.Errorf("task %s was cancelled", t.ID)
		}
		return nil, fmt.Errorf("task %s ended %s without a result", t.ID, t.Status)
	}
	if t.Status == "cancelled" {
		return nil, fmt.Errorf("task %s was cancelled", t.ID)
	}
	res, err := s.request(ctx, "tasks/result", map[string]string{"taskId": t.ID})
	if err != nil {
		return nil, err
	}
	return decodeCallResult(res), nil
}

// AnswerTaskInput fulfils a 2026-07-28 task's inputRequests (status input_required)
// with the session's handlers and sends them with tasks/update.
func (s *Session) AnswerTaskInput(ctx context.Context, t Task) error {
	return s.answerTaskInput(ctx, t)
}

// ParseTask decodes a task as a server sends it (a CreateTaskResult, a tasks/get
// result, the params of notifications/tasks/status).
func ParseTask(raw json.RawMessage) (Task, error) { return decodeTask(raw) }

func (s *Session) taskErr(ctx, rctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if te := timeoutErr(rctx); te != nil {
		return te
	}
	return err
}

// cancelTask tells the server to cancel, bounded on its own: the caller's context
// may be the one that ended.
func (s *Session) cancelTask(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = s.CancelTask(ctx, id)
}

// GetTask asks tasks/get.
func (s *Session) GetTask(ctx context.Context, id string) (*Task, error) {
	params := map[string]any{"taskId": id}
	if s.TaskDialect() == Tasks2026 {
		params["_meta"] = s.taskMeta()
	}
	res, err := s.request(ctx, "tasks/get", params)
	if err != nil {
		return nil, err
	}
	t, err := decodeTask(res)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// CancelTask asks tasks/cancel and returns the task as it is after the cancel. A
// 2025-11-25 server answers with the task; the 2026-07-28 extension answers an empty
// ack ({resultType:"complete"}: the cancel is cooperative, and the task's state is
// for tasks/get to say), and some 2025 servers answer {} too. After an answer that
// carries no task, CancelTask asks tasks/get, so that a caller never takes the ack
// for the task's last state (it has neither its status nor its message).
func (s *Session) CancelTask(ctx context.Context, id string) (*Task, error) {
	params := map[string]any{"taskId": id}
	if s.TaskDialect() == Tasks2026 {
		params["_meta"] = s.taskMeta()
	}
	res, err := s.request(ctx, "tasks/cancel", params)
	if err != nil {
		return nil, err
	}
	if t, derr := decodeTask(res); derr == nil && t.ID == id {
		return &t, nil
	}
	t, err := s.GetTask(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("tasks/cancel was acknowledged, but tasks/get after it failed: %w", err)
	}
	return t, nil
}

// ListTasks lists every page of tasks/list (2025-11-25; the 2026-07-28 extension
// has no list).
func (s *Session) ListTasks(ctx context.Context) (*List[Task], error) {
	if s.TaskDialect() == Tasks2026 {
		return nil, &UsageError{Msg: "the 2026-07-28 tasks extension has no tasks/list"}
	}
	return listPages("tasks/list", "tasks", s.pager(ctx, "tasks/list"), func(raw json.RawMessage) (Task, bool) {
		t, err := decodeTask(raw)
		return t, err == nil || t.ID != ""
	}, func(Task) []string { return nil }, func(t Task) string { return t.ID })
}

// answerTaskInput fulfils a 2026-07-28 task's inputRequests with the caller's
// handlers and sends them with tasks/update.
func (s *Session) answerTaskInput(ctx context.Context, t Task) error {
	var reqs map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(t.InputRequests, &reqs); err != nil || len(reqs) == 0 {
		return nil
	}
	responses := map[string]any{}
	for key, r := range reqs {
		s.noteServerRequest(r.Method, r.Params)
		switch r.Method {
		case "elicitation/create":
			if s.opts.Elicit == nil {
				return errors.New("the task asks for user input, but elicitation is not enabled")
			}
			var p struct {
				Mode            string          `json:"mode"`
				Message         string          `json:"message"`
				RequestedSchema json.RawMessage `json:"requestedSchema"`
				URL             string          `json:"url"`
			}
			_ = json.Unmarshal(r.Params, &p)
			resp, err := s.opts.Elicit(ctx, ElicitRequest{Mode: p.Mode, Message: p.Message, Schema: p.RequestedSchema, URL: p.URL})
			if err != nil {
				return err
			}
			out := map[string]any{"action": resp.Action}
			if len(resp.Content) > 0 {
				out["content"] = resp.Content
			}
			responses[key] = out
		case "roots/list":
			roots := s.Roots()
			if roots == nil {
				roots = []Root{}
			}
			responses[key] = map[string]any{"roots": roots}
		default:
			return fmt.Errorf("the task asks for %q, which mcpscope cannot answer mid-task", r.Method)
		}
	}
	params := map[string]any{"taskId": t.ID, "inputResponses": responses, "_meta": s.taskMeta()}
	_, err := s.request(ctx, "tasks/update", params)
	return err
}
