package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
)

// The Tasks tab (0): every task this session started, on every server, followed to
// its end. A task is created by a tools/call augmented in the server's dialect
// (2025-11-25 params.task, or the 2026-07-28 tasks extension); the model then polls
// tasks/get with tea.Tick at the task's pollInterval (a notifications/tasks/status
// frame applies at once), and once the task is terminal asks for its result
// (tasks/result, or the result tasks/get carried). Each request is a command with
// its own deadline; only one poll per task is ever in flight, so a task that never
// ends costs one small request per interval and stays cancellable (x).

// taskItem is one task and what is known of it.
type taskItem struct {
	id      int // local, for messages
	server  string
	tool    client.Tool
	args    json.RawMessage
	dialect string
	started time.Time

	task    client.Task // as last reported
	created bool        // the server has created it (task.ID is known)
	notes   []taskNote  // status changes, oldest first (bounded)
	dropped int         // notes dropped from the front

	polling    bool // a tick or a tasks/get is pending
	fetching   bool // tasks/result (or the 2026 result) is being fetched
	answering  bool // a 2026-07-28 tasks/update with the user's input is being sent
	cancelling bool // tasks/cancel is in flight
	stopFetch  context.CancelFunc
	// poll is the client's one task-poll policy (client.TaskPoll), the one `call`
	// ticks too: the wait before the next tasks/get, the backoff after many
	// unchanged polls and on failures, when to stop, resume (r).
	poll client.TaskPoll
	done bool

	out *outcome // the result (or the failure), rendered as the Result tab does
	err error    // creating or following the task failed
}

// taskNote is one status the task went through.
type taskNote struct {
	at      time.Time
	status  string
	message string
}

// maxTaskNotes bounds the status history kept per task; maxTasks the tasks kept.
const (
	maxTaskNotes = 200
	maxTasks     = 500
)

// taskRequestTimeout bounds each task request. How often a task is polled, and when
// polling stops, is client.TaskPoll's to say.
const taskRequestTimeout = 30 * time.Second

type tasksView struct {
	items  []*taskItem // oldest first; shown newest first
	list               // the rows (cursor 0: the newest)
	detail scroller
	key    struct {
		it    *taskItem
		width int
		ver   int
	}
	ver int // bumped on every change that the detail shows
}

// Messages of the task driver.
type (
	taskStartedMsg struct {
		id      int
		dialect string
		direct  *client.CallResult
		task    *client.Task
		err     error
		elapsed time.Duration
	}
	taskPollMsg struct{ id int } // the poll interval has passed
	taskGotMsg  struct {
		id   int
		task *client.Task
		err  error
	}
	taskResultMsg struct {
		id     int
		result *client.CallResult
		err    error
	}
	taskCancelledMsg struct {
		id   int
		task *client.Task
		err  error
	}
	taskAnsweredMsg struct {
		id  int
		err error
	}
)

func (msg taskStartedMsg) handle(m *model) tea.Cmd   { return m.onTaskStarted(msg) }
func (msg taskPollMsg) handle(m *model) tea.Cmd      { return m.onTaskPoll(msg) }
func (msg taskGotMsg) handle(m *model) tea.Cmd       { return m.onTaskGot(msg) }
func (msg taskResultMsg) handle(m *model) tea.Cmd    { return m.onTaskResult(msg) }
func (msg taskCancelledMsg) handle(m *model) tea.Cmd { return m.onTaskCancelled(msg) }
func (msg taskAnsweredMsg) handle(m *model) tea.Cmd  { return m.onTaskAnswered(msg) }

func (v *tasksView) byID(id int) *taskItem {
	for _, it := range v.items {
		if it.id == id {
			return it
		}
	}
	return nil
}

// selected is the task under the cursor (the list shows the newest first).
func (v *tasksView) selected() *taskItem {
	if len(v.items) == 0 {
		return nil
	}
	v.cursor = min(max(v.cursor, 0), len(v.items)-1)
	return v.items[len(v.items)-1-v.cursor]
}

func (it *taskItem) note(status, message string) {
	if n := len(it.notes); n > 0 && it.notes[n-1].status == status && it.notes[n-1].message == message {
		return
	}
	it.notes = append(it.notes, taskNote{at: time.Now(), status: status, message: message})
	if len(it.notes) > maxTaskNotes {
		drop := len(it.notes) - maxTaskNotes
		it.notes = append(it.notes[:0:0], it.notes[drop:]...)
		it.dropped += drop
	}
}

// state is the task's status word on screen.
func (it *taskItem) state() string {
	switch {
	case it.err != nil && !it.created:
		return "failed"
	case !it.created && !it.done:
		return "creating"
	case it.done && it.task.Status == "":
		return "done" // the server answered without a task
	}
	return it.task.Status
}

// startTask calls a tool as a task (the form's ctrl+g, or a tool whose taskSupport
// is required) and opens the Tasks tab on it.
func (m *model) startTask(server string, t client.Tool, args json.RawMessage) tea.Cmd {
	if m.wb == nil || m.server(server) == nil {
		return nil
	}
	m.nextID++
	it := &taskItem{id: m.nextID, server: server, tool: t, args: args, started: time.Now()}
	m.tasks.items = append(m.tasks.items, it)
	if len(m.tasks.items) > maxTasks {
		// The oldest finished one goes first; running ones stay.
		for i, old := range m.tasks.items {
			if old.done {
				m.tasks.items = append(m.tasks.items[:i:i], m.tasks.items[i+1:]...)
				break
			}
		}
	}
	m.tasks.cursor = 0
	m.tasks.detail.top()
	m.tasks.ver++
	m.notice = ""
	m.tab, m.focus = tabTasks, paneRight
	wb, id := m.wb, it.id
	return func() tea.Msg {
		start := time.Now() // the elapsed time counts the wait for the session
		ctx, cancel := context.WithTimeout(context.Background(), 2*taskRequestTimeout)
		defer cancel()
		return useSession(ctx, wb, server, func(ctx context.Context, sess *client.Session) tea.Msg {
			direct, task, err := sess.StartTask(ctx, t.Name, args, 0)
			return taskStartedMsg{id: id, dialect: sess.TaskDialect(), direct: direct, task: task, err: err, elapsed: time.Since(start)}
		}, func(err error) tea.Msg {
			return taskStartedMsg{id: id, err: err}
		})
	}
}

func (m *model) onTaskStarted(msg taskStartedMsg) tea.Cmd {
	it := m.tasks.byID(msg.id)
	if it == nil {
		return nil
	}
	m.tasks.ver++
	it.dialect = msg.dialect
	switch {
	case msg.err != nil:
		it.err, it.done = msg.err, true
		it.out = &outcome{id: it.id, server: it.server, tool: it.tool, args: it.args, started: it.started, elapsed: msg.elapsed, err: msg.err}
		return nil
	case msg.direct != nil:
		// The server ran it as a plain call.
		it.done = true
		it.note("", "the server answered without creating a task")
		it.out = &outcome{id: it.id, server: it.server, tool: it.tool, args: it.args, started: it.started, elapsed: msg.elapsed, result: msg.direct}
		return it.out.checkCmd()
	}
	it.created = true
	it.task = *msg.task
	it.poll.Seen(it.task)
	it.note(it.task.Status, it.task.StatusMessage)
	return m.followTask(it)
}

// followTask decides the next step for a task just updated: its result once it is
// terminal, the user's input when it asks for it, else the next poll.
func (m *model) followTask(it *taskItem) tea.Cmd {
	if it.done {
		return nil
	}
	var cmds []tea.Cmd
	switch {
	case it.task.Terminal():
		return m.fetchTaskResult(it)
	case it.task.Status == "input_required":
		if it.dialect == client.Tasks2025 {
			// The server sends its requests while tasks/result waits; it returns at the end.
			cmds = append(cmds, m.fetchTaskResult(it))
		} else if !it.answering {
			cmds = append(cmds, m.answerTaskInput(it))
		}
	}
	cmds = append(cmds, m.schedulePoll(it))
	return tea.Batch(cmds...)
}

// pollWait is how long to wait before the next tasks/get (client.TaskPoll).
func (it *taskItem) pollWait() time.Duration { return it.poll.Wait() }

func (m *model) schedulePoll(it *taskItem) tea.Cmd {
	if it.polling || it.done {
		return nil
	}
	it.polling = true
	id := it.id
	return tea.Tick(it.pollWait(), func(time.Time) tea.Msg { return taskPollMsg{id: id} })
}

// onTaskPoll sends the tasks/get the tick was for.
func (m *model) onTaskPoll(msg taskPollMsg) tea.Cmd {
	it := m.tasks.byID(msg.id)
	if it == nil || it.done || m.wb == nil {
		if it != nil {
			it.polling = false
		}
		return nil
	}
	wb, server, taskID, id := m.wb, it.server, it.task.ID, it.id
	return sessionCmd(wb, server, taskRequestTimeout, func(ctx context.Context, sess *client.Session) tea.Msg {
		t, err := sess.GetTask(ctx, taskID)
		return taskGotMsg{id: id, task: t, err: err}
	}, func(err error) tea.Msg {
		return taskGotMsg{id: id, err: err}
	})
}

func (m *model) onTaskGot(msg taskGotMsg) tea.Cmd {
	it := m.tasks.byID(msg.id)
	if it == nil {
		return nil
	}
	it.polling = false
	if it.done {
		return nil
	}
	m.tasks.ver++
	if msg.err != nil {
		if it.poll.Failed() {
			it.err = fmt.Errorf("tasks/get failed %d times in a row, the last: %w", it.poll.Failures(), msg.err)
			it.note("?", "polling stopped: "+msg.err.Error()+" (r polls again)")
			return nil
		}
		return m.schedulePoll(it)
	}
	it.err = nil
	m.applyTask(it, *msg.task)
	return m.followTask(it)
}

// applyTask takes a newer state of the task (a tasks/get answer or a status
// notification).
func (m *model) applyTask(it *taskItem, t client.Task) {
	if t.ID != it.task.ID {
		return
	}
	if it.task.Terminal() && !t.Terminal() {
		// A terminal status is final: a poll answered before the cancel was is stale.
		return
	}
	it.poll.Seen(t)
	if t.PollInterval == nil {
		t.PollInterval = it.task.PollInterval
	}
	it.task = t
	it.note(t.Status, t.StatusMessage)
	m.tasks.ver++
}

// fetchTaskResult gets a terminal task's result (2025-11-25: tasks/result, which
// also serves a task in input_required until it ends).
func (m *model) fetchTaskResult(it *taskItem) tea.Cmd {
	if it.fetching || m.wb == nil {
		return nil
	}
	it.fetching = true
	ctx, cancel := context.WithCancel(context.Background())
	it.stopFetch = cancel
	wb, server, task, id := m.wb, it.server, it.task, it.id
	return func() tea.Msg {
		defer cancel()
		if task.Terminal() {
			var c context.CancelFunc
			ctx, c = context.WithTimeout(ctx, taskRequestTimeout)
			defer c()
		}
		return useSession(ctx, wb, server, func(ctx context.Context, sess *client.Session) tea.Msg {
			r, err := sess.TaskResult(ctx, task)
			return taskResultMsg{id: id, result: r, err: err}
		}, func(err error) tea.Msg {
			return taskResultMsg{id: id, err: err}
		})
	}
}

func (m *model) onTaskResult(msg taskResultMsg) tea.Cmd {
	it := m.tasks.byID(msg.id)
	if it == nil {
		return nil
	}
	it.fetching, it.stopFetch = false, nil
	if it.done {
		return nil
	}
	m.tasks.ver++
	if !it.task.Terminal() && msg.err != nil {
		// tasks/result for a task in input_required gave up (cancelled, timed out):
		// polling goes on and says when it ends.
		if !errors.Is(msg.err, context.Canceled) {
			it.note(it.task.Status, "tasks/result: "+msg.err.Error())
		}
		return m.schedulePoll(it)
	}
	it.done = true
	it.out = &outcome{id: it.id, server: it.server, tool: it.tool, args: it.args, started: it.started,
		elapsed: time.Since(it.started), result: msg.result, err: msg.err}
	if !it.task.Terminal() {
		// 2025-11-25: tasks/result answered, so the task has ended; a last poll says how.
		it.done = false
		cmd := tea.Batch(it.out.checkCmd(), m.finalPoll(it))
		return cmd
	}
	m.notice = fmt.Sprintf("task %s of %s: %s", shortID(it.task.ID), it.tool.Name, it.task.Status)
	return it.out.checkCmd()
}

// finalPoll asks tasks/get once after tasks/result answered a task that was last
// seen running; whatever it says, the task is done.
func (m *model) finalPoll(it *taskItem) tea.Cmd {
	it.fetching = true // no second tasks/result
	wb, server, taskID, id := m.wb, it.server, it.task.ID, it.id
	return sessionCmd(wb, server, taskRequestTimeout, func(ctx context.Context, sess *client.Session) tea.Msg {
		t, err := sess.GetTask(ctx, taskID)
		return taskFinalMsg{id: id, task: t, err: err}
	}, func(err error) tea.Msg {
		return taskFinalMsg{id: id, err: err}
	})
}

type taskFinalMsg taskGotMsg

func (msg taskFinalMsg) handle(m *model) tea.Cmd { return m.onTaskFinal(msg) }

func (m *model) onTaskFinal(msg taskFinalMsg) tea.Cmd {
	it := m.tasks.byID(msg.id)
	if it == nil {
		return nil
	}
	if msg.err == nil && msg.task != nil {
		m.applyTask(it, *msg.task)
	}
	it.done, it.fetching = true, false
	m.tasks.ver++
	return nil
}

// answerTaskInput answers a 2026-07-28 task's inputRequests (the dialogs ask the
// user) and sends them with tasks/update.
func (m *model) answerTaskInput(it *taskItem) tea.Cmd {
	it.answering = true
	wb, server, task, id := m.wb, it.server, it.task, it.id
	// A person answers the dialogs, so the deadline is long.
	return sessionCmd(wb, server, 30*time.Minute, func(ctx context.Context, sess *client.Session) tea.Msg {
		return taskAnsweredMsg{id: id, err: sess.AnswerTaskInput(ctx, task)}
	}, func(err error) tea.Msg {
		return taskAnsweredMsg{id: id, err: err}
	})
}

func (m *model) onTaskAnswered(msg taskAnsweredMsg) tea.Cmd {
	it := m.tasks.byID(msg.id)
	if it == nil {
		return nil
	}
	it.answering = false
	if msg.err != nil {
		it.note(it.task.Status, "answering the task's input failed: "+msg.err.Error())
		m.tasks.ver++
	}
	return nil
}

// cancelTask asks first, then sends tasks/cancel.
func (m *model) cancelTask() tea.Cmd {
	it := m.tasks.selected()
	switch {
	case it == nil:
		m.notice = "no task to cancel"
		return nil
	case !it.created || it.done || it.task.Terminal():
		m.notice = "this task is not running"
		return nil
	case it.cancelling:
		m.notice = "tasks/cancel already sent; waiting for the answer"
		return nil
	}
	name := it.tool.Name
	if m.several() {
		name = it.server + "/" + name
	}
	m.askQuestion(&question{
		subject: safe(name),
		text:    fmt.Sprintf("Cancel task %s (%s, %s)? The server stops its work. y/n", shortID(it.task.ID), name, it.task.Status),
		yes:     func() tea.Cmd { return m.sendTaskCancel(it) },
		no:      "the task goes on",
	})
	return nil
}

func (m *model) sendTaskCancel(it *taskItem) tea.Cmd {
	if m.wb == nil {
		return nil
	}
	it.cancelling = true
	m.notice = "tasks/cancel sent for " + shortID(it.task.ID)
	wb, server, taskID, id := m.wb, it.server, it.task.ID, it.id
	return sessionCmd(wb, server, taskRequestTimeout, func(ctx context.Context, sess *client.Session) tea.Msg {
		t, err := sess.CancelTask(ctx, taskID)
		return taskCancelledMsg{id: id, task: t, err: err}
	}, func(err error) tea.Msg {
		return taskCancelledMsg{id: id, err: err}
	})
}

func (m *model) onTaskCancelled(msg taskCancelledMsg) tea.Cmd {
	it := m.tasks.byID(msg.id)
	if it == nil {
		return nil
	}
	it.cancelling = false
	m.tasks.ver++
	if msg.err != nil {
		m.notice = "tasks/cancel: " + msg.err.Error()
		it.note(it.task.Status, "tasks/cancel failed: "+msg.err.Error())
		return nil
	}
	m.notice = "task " + shortID(it.task.ID) + " cancelled"
	if it.stopFetch != nil && msg.task != nil && msg.task.Terminal() {
		it.stopFetch()
	}
	if msg.task != nil && msg.task.ID == it.task.ID {
		m.applyTask(it, *msg.task)
	}
	return m.followTask(it)
}

// onTaskStatus applies a task status notification (notifications/tasks/status in
// 2025-11-25, the extension's notifications/tasks in 2026-07-28), which the client
// decoded and the workbench tagged with its server, to the task it names, ahead of
// the next poll.
func (m *model) onTaskStatus(server string, t client.Task) tea.Cmd {
	var cmds []tea.Cmd
	for _, it := range m.tasks.items {
		if it.created && !it.done && it.task.ID == t.ID && (it.server == server || !m.several()) {
			m.applyTask(it, t)
			if t.Terminal() || t.Status == "input_required" {
				cmds = append(cmds, m.followTask(it))
			}
		}
	}
	return tea.Batch(cmds...)
}

// resumeTask polls a task again after polling gave up.
func (m *model) resumeTask() tea.Cmd {
	it := m.tasks.selected()
	if it == nil || !it.created || it.done {
		return nil
	}
	it.poll.Resume()
	it.err = nil
	m.notice = "polling task " + shortID(it.task.ID) + " again"
	return m.schedulePoll(it)
}

// tasksKeys is the Tasks tab's table: ↑/↓ select a task, pgup/pgdn scroll its detail.
func (m *model) tasksKeys() keyTable {
	k, v := m.keys, &m.tasks
	move := func(kp tea.KeyPressMsg) tea.Cmd {
		v.keyMove(kp, k, len(v.items))
		v.detail.top()
		return nil
	}
	page := func(d func() int) func() tea.Cmd { return act(func() { v.detail.scroll(d()) }) }
	return keyTable{name: "Tasks", groups: [][]binding{
		{
			bind(k.CancelTask, m.cancelTask).unless(func() string {
				if it := v.selected(); it != nil && (it.done || it.task.Terminal()) {
					return "task ended" // short: the help shows it after "cancel a task"
				}
				return ""
			}),
			bind(k.TaskResult, act(func() { m.showOutcome(v.selected().out) })).unless(func() string {
				switch it := v.selected(); {
				case it == nil:
					return "no task selected"
				case it.out == nil:
					return "the task has no result yet"
				}
				return ""
			}),
			bind(k.PollTask, m.resumeTask).unless(func() string {
				switch it := v.selected(); {
				case it == nil:
					return "no task selected"
				case it.done:
					return "the task has ended: it is polled no more"
				case !it.created:
					return "the task is not created yet"
				}
				return ""
			}),
		},
		{
			bindKey(k.Up, move), bindKey(k.Down, move),
			bind(k.PageUp, page(func() int { return -(m.height / 2) })),
			bind(k.PageDown, page(func() int { return m.height / 2 })),
			bindKey(k.Home, move), bindKey(k.End, move),
		},
	}}
}

func shortID(id string) string {
	id = safe(id)
	if len(id) > 12 {
		return id[:12] + "…"
	}
	return id
}

func taskAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	case d < time.Hour:
		return d.Round(time.Second).String()
	}
	return d.Round(time.Minute).String()
}

func (m *model) taskBadge(it *taskItem) string {
	s := it.state()
	switch s {
	case "completed", "done":
		return m.st.ok.Render(s)
	case "failed", "cancelled":
		return m.st.err.Render(s)
	case "input_required":
		return m.st.warn.Render("input required")
	}
	return m.st.warn.Render(s)
}

// tasksTabView draws the Tasks tab: the tasks (newest first, only the rows that
// fit) and the selected one's detail.
func (m *model) tasksTabView(width, height int) string {
	v := &m.tasks
	if len(v.items) == 0 {
		return m.st.muted.Render("No tasks yet. A tool whose execution.taskSupport is required runs as a task from its form (enter); an optional one with ctrl+g.")
	}
	lines := []string{m.st.muted.Render(truncate("↑/↓ selects · x cancels the task · enter opens its result in 2 · r polls again · pgup/pgdn scroll", width))}
	rows := min(len(v.items), max(height/3, 3))
	sel := v.selected()
	lines = append(lines, v.draw(len(v.items), rows, func(i int, selected bool) string {
		it := v.items[len(v.items)-1-i]
		name := it.tool.Name
		if m.several() {
			name = it.server + "/" + name
		}
		age := time.Since(it.started)
		if it.out != nil && it.done {
			age = it.out.elapsed
		}
		row := fmt.Sprintf("%s  %-14s %s  %s", safe(truncate(name, 28)), m.taskBadge(it), m.st.muted.Render(shortID(it.task.ID)), taskAge(age))
		if msg := it.task.StatusMessage; msg != "" {
			row += "  " + safe(oneLine(msg, 200))
		}
		mark := "  "
		if selected {
			mark = m.st.selected.Render("›") + " "
		}
		return truncate(mark+row, width)
	})...)
	if len(v.items) > rows {
		lines = append(lines, m.st.muted.Render(fmt.Sprintf("  task %d of %d (↑/↓, home/end)", v.cursor+1, len(v.items))))
	}
	lines = append(lines, "")
	if v.key.it != sel || v.key.width != width || v.key.ver != v.ver+m.resultVer {
		v.detail.setSource(m.taskDetail(sel, width))
		v.key.it, v.key.width, v.key.ver = sel, width, v.ver+m.resultVer
	}
	lines = append(lines, v.detail.view(max(height-len(lines), 1)))
	return strings.Join(lines, "\n")
}

// taskDetail is one task: what it is, its status history, and its result rendered
// as the Result tab renders a call.
func (m *model) taskDetail(it *taskItem, width int) lineSource {
	st := m.st
	d := &doc{width: width}
	name := it.tool.Name
	if m.several() {
		name = it.server + "/" + name
	}
	d.add(st.title.Render(safe(name)) + "  " + m.taskBadge(it))
	if it.task.ID != "" {
		d.add("task        " + safe(it.task.ID))
	}
	dialect := it.dialect
	switch dialect {
	case client.Tasks2025:
		dialect += " (experimental tasks)"
	case client.Tasks2026:
		dialect += " (tasks extension)"
	}
	if dialect != "" {
		d.add("dialect     " + dialect)
	}
	d.add("arguments   " + safe(oneLine(string(it.args), 300)))
	if it.task.CreatedAt != "" {
		d.add("created     " + safe(it.task.CreatedAt))
	}
	if it.task.LastUpdatedAt != "" {
		d.add("updated     " + safe(it.task.LastUpdatedAt))
	}
	if p := it.task.PollInterval; p != nil {
		poll := fmt.Sprintf("poll        every %d ms", *p)
		if !it.done && !it.task.Terminal() { // an ended task is polled no more
			poll += fmt.Sprintf(" (next in %s)", it.pollWait().Round(time.Millisecond))
		}
		d.add(poll)
	}
	if t := it.task.TTL; t != nil {
		d.add(fmt.Sprintf("ttl         %d ms", *t))
	}
	switch {
	case it.cancelling:
		d.add(st.warn.Render("tasks/cancel sent…"))
	case it.fetching && it.task.Terminal():
		d.add(st.muted.Render("fetching the result…"))
	case it.fetching:
		d.add(st.muted.Render("tasks/result is waiting for the task (the server may ask for input)…"))
	}
	if it.err != nil {
		d.add("")
		for _, l := range wrapText(it.err.Error(), width) {
			d.add(st.err.Render(l))
		}
	}
	d.add("", st.accent.Render("status"))
	if it.dropped > 0 {
		d.add(st.muted.Render(fmt.Sprintf("  … %d earlier changes", it.dropped)))
	}
	for _, n := range it.notes {
		line := n.at.Format("15:04:05") + "  " + fmt.Sprintf("%-15s", safe(n.status))
		if n.message != "" {
			line += " " + safe(n.message)
		}
		d.add(wrapText(line, width)...)
	}
	if it.out != nil && it.done {
		d.add("", st.accent.Render("result"))
		rd := resultDoc(st, it.out, width)
		d.parts = append(d.parts, rd.parts...)
	}
	return d
}
