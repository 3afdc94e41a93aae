package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/record"
)

// An operation is what a user did as one thing, even when the wire shows several
// requests with unrelated ids (see grouper):
//
//   - a 2026-07-28 multi-round-trip request: the first request, its input_required
//     result, the retried request(s) carrying inputResponses and requestState, and
//     the final result;
//   - a task: the request that created it, its tasks/get polls, its tasks/update
//     answers and its tasks/result.
//
// Replaying them one by one cannot work: a retry must echo the requestState the live
// server sent (it is opaque, often signed), and a poll names the recorded taskId,
// which the live server never made. So an operation is replayed and compared as one
// exchange.

// lookahead bounds how many later exchanges the grouper reads while it looks for the
// rest of an operation (a retry, the polls of a task): memory stays flat in the size
// of the recording, and a chain whose rest is further away is compared step by step.
const lookahead = 256

// grouper hands out the exchanges of a source with the rest of each operation
// (steps) taken out of the stream and kept with its first request.
type grouper struct {
	src   source
	ahead []*record.Exchange // read, not handed out yet
	n     int                // exchanges read from src
	seq   map[*record.Exchange]int
	steps map[*record.Exchange][]*record.Exchange
}

func newGrouper(src source) *grouper {
	return &grouper{src: src, seq: map[*record.Exchange]int{}, steps: map[*record.Exchange][]*record.Exchange{}}
}

// pull reads one more exchange from the source into ahead; false at the end or when
// the look-ahead is full.
func (g *grouper) pull() bool {
	if len(g.ahead) >= lookahead {
		return false
	}
	x := g.src.next()
	if x == nil {
		return false
	}
	g.n++
	g.seq[x] = g.n
	g.ahead = append(g.ahead, x)
	return true
}

// take removes and returns the first exchange ahead that ok accepts, reading on as
// far as the look-ahead allows.
func (g *grouper) take(ok func(*record.Exchange) bool) *record.Exchange {
	for i := 0; ; i++ {
		if i == len(g.ahead) && !g.pull() {
			return nil
		}
		if x := g.ahead[i]; ok(x) {
			g.ahead = append(g.ahead[:i], g.ahead[i+1:]...)
			return x
		}
	}
}

// next returns the next exchange; its operation's further steps are in follow.
func (g *grouper) next() *record.Exchange {
	if len(g.ahead) == 0 && !g.pull() {
		return nil
	}
	x := g.ahead[0]
	g.ahead = g.ahead[1:]
	if x.Response == nil || x.Handshake() {
		return x
	}
	var steps []*record.Exchange
	if interim(x.Response) != nil {
		for cur := x; interim(cur.Response) != nil; {
			r := g.take(func(y *record.Exchange) bool { return isRetry(cur, y) })
			if r == nil {
				break
			}
			steps = append(steps, r)
			cur = r
		}
	} else if id := createdTask(x.Response); id != "" {
		steps = g.taskSteps(id)
	}
	if len(steps) > 0 {
		g.steps[x] = steps
	}
	return x
}

// follow returns (and forgets) the further steps of x's operation.
func (g *grouper) follow(x *record.Exchange) []*record.Exchange {
	s := g.steps[x]
	delete(g.steps, x)
	return s
}

// number is x's 1-based place among the recording's requests.
func (g *grouper) number(x *record.Exchange) int {
	n := g.seq[x]
	delete(g.seq, x)
	return n
}

// taskSteps takes the task's requests: polls and updates up to a terminal status,
// then its tasks/result if there is one (2025-11-25 fetches the result with it).
func (g *grouper) taskSteps(id string) []*record.Exchange {
	var steps []*record.Exchange
	of := func(methods ...string) func(*record.Exchange) bool {
		return func(y *record.Exchange) bool {
			for _, m := range methods {
				if y.Method == m && taskParam(y.Params) == id {
					return true
				}
			}
			return false
		}
	}
	for {
		y := g.take(of("tasks/get", "tasks/update", "tasks/cancel", "tasks/result"))
		if y == nil {
			return steps
		}
		steps = append(steps, y)
		if y.Method == "tasks/result" {
			return steps
		}
		if terminal(taskStatus(y.Response)) {
			if r := g.take(of("tasks/result")); r != nil {
				steps = append(steps, r)
			}
			return steps
		}
	}
}

// result is the result object of a response, or nil.
func result(resp json.RawMessage) map[string]json.RawMessage {
	var m struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if json.Unmarshal(resp, &m) != nil {
		return nil
	}
	return m.Result
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// interim is the result of an input_required answer (MRTR), or nil.
func interim(resp json.RawMessage) map[string]json.RawMessage {
	if resp == nil || !bytes.Contains(resp, []byte("input_required")) {
		return nil
	}
	r := result(resp)
	if str(r["resultType"]) != "input_required" {
		return nil
	}
	return r
}

// isRetry reports whether y retries prev (whose answer was input_required): the same
// method naming the same tool, prompt or resource, carrying inputResponses or
// requestState, and echoing prev's requestState when it had one.
func isRetry(prev, y *record.Exchange) bool {
	if y.Method != prev.Method || y.Handshake() {
		return false
	}
	var a, b struct {
		Name           string          `json:"name"`
		URI            string          `json:"uri"`
		InputResponses json.RawMessage `json:"inputResponses"`
		RequestState   json.RawMessage `json:"requestState"`
	}
	_ = json.Unmarshal(prev.Params, &a)
	_ = json.Unmarshal(y.Params, &b)
	if a.Name != b.Name || a.URI != b.URI || (b.InputResponses == nil && b.RequestState == nil) {
		return false
	}
	if st := interim(prev.Response)["requestState"]; st != nil {
		return str(st) == str(b.RequestState)
	}
	return true
}

// createdTask is the taskId of a response that created a task: 2026's resultType
// "task", or 2025-11-25's CreateTaskResult {task:{taskId}}.
func createdTask(resp json.RawMessage) string {
	if !bytes.Contains(resp, []byte("taskId")) {
		return ""
	}
	r := result(resp)
	if str(r["resultType"]) == "task" {
		return str(r["taskId"])
	}
	var t struct {
		TaskID string `json:"taskId"`
	}
	if json.Unmarshal(r["task"], &t) == nil && len(r) > 0 && r["content"] == nil {
		return t.TaskID
	}
	return ""
}

// taskParam is params.taskId.
func taskParam(params json.RawMessage) string {
	var p struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(params, &p)
	return p.TaskID
}

// taskStatus is the status a task answer carries: result.status (tasks/get, 2026's
// task result), or result.task.status (2025's CreateTaskResult); "" for others.
func taskStatus(resp json.RawMessage) string {
	r := result(resp)
	if s := str(r["status"]); s != "" {
		return s
	}
	var t struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(r["task"], &t)
	return t.Status
}

func terminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

// inputMethods lists the methods an input_required result asks for, in key order.
func inputMethods(r map[string]json.RawMessage) string {
	var reqs map[string]struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(r["inputRequests"], &reqs)
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var ms []string
	seen := map[string]bool{}
	for _, k := range keys {
		if m := reqs[k].Method; m != "" && !seen[m] {
			seen[m] = true
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return "input_required"
	}
	return "input_required (" + strings.Join(ms, ", ") + ")"
}

// outcome names how a chain ended: complete, an error, or input_required again.
func outcome(resp json.RawMessage) string {
	if r := interim(resp); r != nil {
		return inputMethods(r)
	}
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(resp, &m) == nil && m.Error != nil {
		return fmt.Sprintf("error %d", m.Error.Code)
	}
	return "complete"
}

// chainName names a recorded operation for reports: "input_required
// (elicitation/create) → complete", or "task: working → completed (3 polls)".
func chainName(x *record.Exchange, steps []*record.Exchange) string {
	if createdTask(x.Response) != "" {
		statuses := []string{taskStatus(x.Response)}
		polls := 0
		for _, s := range steps {
			if s.Method == "tasks/get" {
				polls++
			}
			if st := taskStatus(s.Response); st != "" {
				statuses = append(statuses, st)
			}
		}
		return fmt.Sprintf("task: %s (%s recorded)", strings.Join(distinct(statuses), " → "), plural.Count(polls, "poll"))
	}
	parts := []string{outcome(x.Response)}
	for _, s := range steps {
		parts = append(parts, outcome(s.Response))
	}
	return strings.Join(parts, " → ")
}

// distinct drops the repeats of a sequence (working, working, completed → working,
// completed).
func distinct(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" && (len(out) == 0 || out[len(out)-1] != s) {
			out = append(out, s)
		}
	}
	return out
}

// withParam returns params with member k set to v (nil deletes it).
func withParam(params json.RawMessage, k string, v json.RawMessage) json.RawMessage {
	m := map[string]json.RawMessage{}
	if len(params) > 0 {
		if json.Unmarshal(params, &m) != nil {
			return params
		}
	}
	if v == nil {
		delete(m, k)
	} else {
		m[k] = v
	}
	out, err := json.Marshal(m)
	if err != nil {
		return params
	}
	return out
}

// sender sends one request of an operation and collects what arrived meanwhile.
type sender func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, []json.RawMessage, error)

// stepResult is the comparison of one operation.
type stepResult struct {
	diffs []Where
	err   error  // a step could not be completed
	step  string // which step failed (for err)
}

// compareStep compares one recorded step with its live answer.
type compareStep func(in string, x *record.Exchange, resp json.RawMessage, notes []json.RawMessage, extra ...string) []Where

// replayMRTR replays an input_required chain: each retry is the recorded one (its
// inputResponses are the answers the recording gave) with the requestState of the
// live server's latest answer, since requestState is the server's opaque state and
// must be echoed, never taken from elsewhere. Each interim answer is compared
// (what the server asked: its inputRequests; the requestState is not compared), and
// so is the final result. A live server that stops asking, or asks once more than
// the recording, ends the chain there: the diff shows the resultType.
func replayMRTR(ctx context.Context, send sender, cmp compareStep, x *record.Exchange, steps []*record.Exchange) stepResult {
	var out stepResult
	all := append([]*record.Exchange{x}, steps...)
	var state json.RawMessage
	for i, st := range all {
		params, err := stripModernMeta(st.Params)
		if err != nil {
			return stepResult{diffs: out.diffs, err: fmt.Errorf("its params are not a JSON object"), step: fmt.Sprintf("round %d", i+1)}
		}
		if i > 0 {
			params = withParam(params, "requestState", state)
		}
		resp, notes, err := send(ctx, st.Method, params)
		in := "response"
		if i < len(all)-1 {
			in = fmt.Sprintf("round %d (input_required)", i+1)
		}
		if err != nil {
			return stepResult{diffs: out.diffs, err: err, step: in}
		}
		out.diffs = append(out.diffs, cmp(in, st, resp, notes, "/result/requestState")...)
		live := interim(resp)
		if (live != nil) != (i < len(all)-1) {
			break // the live server ended earlier or asks again: the diff says so
		}
		state = live["requestState"]
	}
	return out
}

// replayTask replays a task: the request that creates it, then tasks/get polls at
// the live server's pollInterval until a terminal status, a recorded tasks/update
// (its inputResponses) when the live task asks for input, and the recorded
// tasks/result if there was one. The number of polls is timing and never compared;
// the statuses are compared loosely (working may repeat or be skipped: the other
// statuses in order); the final status and result exactly.
func replayTask(ctx context.Context, send sender, cmp compareStep, x *record.Exchange, steps []*record.Exchange) stepResult {
	var out stepResult
	params, err := stripModernMeta(x.Params)
	if err != nil {
		return stepResult{err: fmt.Errorf("its params are not a JSON object"), step: "request"}
	}
	resp, notes, err := send(ctx, x.Method, params)
	if err != nil {
		return stepResult{err: err, step: "request"}
	}
	// The ids and clocks of a task are the live server's own.
	taskIgnore := []string{"/result/taskId", "/result/task/taskId", "/result/statusMessage", "/result/task/statusMessage", "/result/status", "/result/task/status"}
	out.diffs = append(out.diffs, cmp("response (task created)", x, resp, notes, taskIgnore...)...)
	id := createdTask(resp)
	if id == "" {
		return out // not a task live: the diff shows what came instead
	}
	rec := []string{taskStatus(x.Response)}
	var lastGet, result *record.Exchange
	var updates []*record.Exchange
	for _, s := range steps {
		if st := taskStatus(s.Response); st != "" {
			rec = append(rec, st)
		}
		switch s.Method {
		case "tasks/get":
			lastGet = s
		case "tasks/update":
			updates = append(updates, s)
		case "tasks/result":
			result = s
		}
	}
	live := []string{taskStatus(resp)}
	interval := pollInterval(resp)
	var final json.RawMessage
	var getNotes []json.RawMessage
	getParams := json.RawMessage(`{}`)
	if lastGet != nil {
		getParams, _ = stripModernMeta(lastGet.Params)
	}
	idRaw, _ := json.Marshal(id)
	for !terminal(live[len(live)-1]) {
		select {
		case <-ctx.Done():
			return stepResult{diffs: out.diffs, err: ctx.Err(), step: "tasks/get"}
		case <-time.After(interval):
		}
		r, n, err := send(ctx, "tasks/get", withParam(getParams, "taskId", idRaw))
		if err != nil {
			return stepResult{diffs: out.diffs, err: err, step: "tasks/get"}
		}
		st := taskStatus(r)
		if st == "" {
			return stepResult{diffs: out.diffs, err: fmt.Errorf("tasks/get answered without a status: %s", clip(r)), step: "tasks/get"}
		}
		live = append(live, st)
		final, getNotes = r, n
		interval = pollInterval(r)
		if st == "input_required" && len(updates) > 0 {
			u := updates[0]
			updates = updates[1:]
			up, _ := stripModernMeta(u.Params)
			ur, un, err := send(ctx, "tasks/update", withParam(up, "taskId", idRaw))
			if err != nil {
				return stepResult{diffs: out.diffs, err: err, step: "tasks/update"}
			}
			out.diffs = append(out.diffs, cmp("tasks/update", u, ur, un)...)
		}
	}
	if a, b := strings.Join(loose(rec), " → "), strings.Join(loose(live), " → "); a != b {
		out.diffs = append(out.diffs, Where{In: "task", Diff: Diff{Path: "(statuses)", Expected: strings.Join(distinct(rec), " → "), Got: strings.Join(distinct(live), " → ")}})
	}
	if lastGet != nil && final != nil {
		out.diffs = append(out.diffs, cmp("final tasks/get", lastGet, final, getNotes, "/result/taskId")...)
	}
	if result != nil {
		rp, _ := stripModernMeta(result.Params)
		r, n, err := send(ctx, "tasks/result", withParam(rp, "taskId", idRaw))
		if err != nil {
			return stepResult{diffs: out.diffs, err: err, step: "tasks/result"}
		}
		out.diffs = append(out.diffs, cmp("tasks/result", result, r, n)...)
	}
	return out
}

// loose is a status sequence compared loosely: without working (which may repeat
// or be skipped, by timing) and without repeats.
func loose(ss []string) []string {
	var out []string
	for _, s := range distinct(ss) {
		if s != "working" && (len(out) == 0 || out[len(out)-1] != s) {
			out = append(out, s)
		}
	}
	return out
}

// pollInterval is the interval a task answer asks for (pollIntervalMs in 2026,
// pollInterval in 2025), kept between 10ms and 5s so that a server's odd value
// neither spins nor stalls the replay.
func pollInterval(resp json.RawMessage) time.Duration {
	r := result(resp)
	var ms float64
	if json.Unmarshal(r["pollIntervalMs"], &ms) != nil || ms == 0 {
		var t struct {
			PollInterval float64 `json:"pollInterval"`
		}
		if json.Unmarshal(r["task"], &t) == nil && t.PollInterval > 0 {
			ms = t.PollInterval
		} else {
			_ = json.Unmarshal(r["pollInterval"], &ms)
		}
	}
	d := time.Duration(ms * float64(time.Millisecond))
	return min(max(d, 10*time.Millisecond), 5*time.Second)
}

func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// taskClock are a task's own ids, clocks and poll interval, which are the live
// server's and timing: never compared.
var taskClock = []string{
	"/result/taskId", "/result/task/taskId",
	"/result/createdAt", "/result/lastUpdatedAt", "/result/task/createdAt", "/result/task/lastUpdatedAt",
	"/result/pollIntervalMs", "/result/pollInterval", "/result/task/pollInterval",
	"**/_meta/io.modelcontextprotocol~1related-task/taskId",
}

// Operation is an operation of several requests in a report (see grouper): where
// it starts, what was recorded, and whether it matched.
type Operation struct {
	Exchange  int    `json:"exchange"` // the first request's number
	Line      int    `json:"line"`
	Request   string `json:"request"`   // the first request, as Failure.Request
	Operation string `json:"operation"` // "input_required (elicitation/create) → complete", "task: working → completed (3 polls recorded)"
	Requests  int    `json:"requests"`  // recorded requests it holds
	Equal     bool   `json:"equal"`
}

// runOperation replays x and its further steps as one exchange and adds it to the
// report. It returns an error when the server is gone.
func runOperation(ctx context.Context, report *Report, s *client.Session, col *collector, m *Matcher, opts Options, n int, x *record.Exchange, steps []*record.Exchange) error {
	octx, cancel := context.WithTimeout(ctx, opts.Timeout) // an operation is one exchange: one bound
	defer cancel()
	send := func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, []json.RawMessage, error) {
		col.start()
		resp, err := s.Raw(ctx, method, params)
		return resp, col.stop(), err
	}
	headScopes := []string{x.Method}
	if name := requestName(x.Params); name != "" {
		headScopes = append(headScopes, name)
	}
	cmp := func(in string, st *record.Exchange, resp json.RawMessage, notes []json.RawMessage, extra ...string) []Where {
		// A step is compared with the ignore paths of its own method and of the
		// operation's request (research:/result/... applies to the task's result).
		scopes := append([]string{st.Method}, headScopes...)
		mm := m.scoped(scopes...)
		if len(extra) > 0 {
			ps, _ := parsePatterns(extra)
			mm.patterns = append(mm.patterns, ps...)
		}
		var out []Where
		for _, d := range mm.Compare(st.Response, resp) {
			out = append(out, Where{In: in, Diff: d})
		}
		return append(out, compareNotifications(mm, scopes, st.Notifications, notes, opts.StrictOrder)...)
	}
	var res stepResult
	if createdTask(x.Response) != "" {
		task := func(in string, st *record.Exchange, resp json.RawMessage, notes []json.RawMessage, extra ...string) []Where {
			return cmp(in, st, resp, notes, append(extra, taskClock...)...)
		}
		res = replayTask(octx, send, task, x, steps)
	} else {
		res = replayMRTR(octx, send, cmp, x, steps)
	}
	op := Operation{Exchange: n, Line: x.Line, Request: describe(x), Operation: chainName(x, steps), Requests: 1 + len(steps)}
	f := Failure{Exchange: n, Line: x.Line, Request: describe(x), Operation: op.Operation, Diffs: res.diffs}
	if res.err != nil {
		msg := res.err.Error()
		if errors.Is(res.err, context.DeadlineExceeded) && ctx.Err() == nil {
			msg = fmt.Sprintf("no answer within %v", opts.Timeout)
		}
		f.Err = res.step + ": " + msg
	}
	op.Equal = len(f.Diffs) == 0 && f.Err == ""
	report.Operations = append(report.Operations, op)
	if op.Equal {
		report.Equal++
	} else {
		report.Failures = append(report.Failures, f)
	}
	if opts.Update && !op.Equal {
		report.Warnings = append(report.Warnings, fmt.Sprintf("--update left exchange %d (%s: %s) as recorded: an operation of several requests is not rewritten", n, op.Request, op.Operation))
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var se *client.ServerError
	if errors.As(res.err, &se) {
		return res.err
	}
	return nil
}
