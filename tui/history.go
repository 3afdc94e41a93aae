package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/history"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/validate"
)

// The History view (6) on the lasting store (package history): this session's calls
// first, then those of earlier sessions of the same servers, newest first. / searches
// them (tool, arguments, result, error), enter re-runs an entry (its own tool on its
// own server, asking first before a destructive tool as a fresh call does), e loads
// it into the form, → shows its result, m marks it and S saves the marked entries as
// a named collection: a recording that `mcpscope replay` runs. Every read and write
// of the store runs as a command.

// histState is the History view's state.
type histState struct {
	logs  map[string]*history.Log // by server
	past  []pastCall              // earlier sessions' calls, oldest first
	saved map[*outcome]history.Entry
	// The search: query typed in the field, and the rows it kept (nil: all).
	typing  bool
	query   string
	shown   []histRef
	seq     int // the search in flight; older answers are dropped
	naming  bool
	name    string // the collection's name, while typed
	list           // the window over the rows, newest first
	warning string
}

// pastCall is a call of an earlier session, as the store keeps it.
type pastCall struct {
	server string
	entry  history.Entry
}

// histRef is one row: a call of this session, or of an earlier one.
type histRef struct {
	o    *outcome
	past int // index into past when o is nil
}

// Messages of the store (commands send them back).
type (
	histOpenedMsg struct {
		server string
		log    *history.Log
		err    error
	}
	histSavedMsg struct {
		o     *outcome
		entry history.Entry
		err   error
	}
	histSearchMsg struct {
		seq   int
		shown []histRef
	}
	histMarkedMsg struct {
		server string
		id     string
		marked bool
		err    error
	}
	histCollectionMsg struct {
		text string
	}
	histResultMsg struct {
		o *outcome
	}
)

// openHistory opens the lasting history of a server (in a command).
func (m *model) openHistory(name string, target target.Target) tea.Cmd {
	if m.opts.History == nil || m.opts.Browse != nil {
		return nil
	}
	opts := *m.opts.History
	return func() tea.Msg {
		l, err := history.Open(history.Server{Name: name, Target: target}, opts)
		return histOpenedMsg{server: name, log: l, err: err}
	}
}

// openHistories opens the history of every server the session starts with.
func (m *model) openHistories() tea.Cmd {
	var cmds []tea.Cmd
	for _, sp := range m.specs() {
		cmds = append(cmds, m.openHistory(sp.Name, sp.Target))
	}
	return tea.Batch(cmds...)
}

func (m *model) onHistOpened(msg histOpenedMsg) tea.Cmd {
	h := &m.hist
	if msg.err != nil {
		h.warning = "history: " + msg.err.Error() + " (calls are not kept after this session)"
		m.notice = h.warning
		return nil
	}
	if h.logs == nil {
		h.logs = map[string]*history.Log{}
	}
	if h.logs[msg.server] != nil {
		return nil
	}
	h.logs[msg.server] = msg.log
	if len(msg.log.Warnings) > 0 {
		h.warning = strings.Join(msg.log.Warnings, "; ")
		m.notice = safe(h.warning)
	}
	for _, e := range msg.log.Entries() {
		h.past = append(h.past, pastCall{server: msg.server, entry: e})
	}
	sort.SliceStable(h.past, func(i, j int) bool { return h.past[i].entry.Time.Before(h.past[j].entry.Time) })
	return m.research()
}

// storeCall keeps a finished call in its server's history (in a command).
func (m *model) storeCall(o *outcome) tea.Cmd {
	l := m.hist.logs[o.server]
	if l == nil || o.recorded || o.mocked || o.running {
		return nil
	}
	e := history.Entry{Time: o.started, Tool: o.tool.Name, Arguments: o.args, DurationMS: float64(o.elapsed) / float64(time.Millisecond)}
	if o.result != nil {
		e.Result, e.IsError = o.result.Raw, o.result.IsError
	}
	switch {
	case o.status() == "cancelled":
		e.Cancelled = true // its error is the cancel itself ("context canceled")
	case o.err != nil:
		e.Error = o.err.Error()
	}
	return func() tea.Msg {
		saved, err := l.Add(e)
		return histSavedMsg{o: o, entry: saved, err: err}
	}
}

func (m *model) onHistSaved(msg histSavedMsg) tea.Cmd {
	if msg.err != nil {
		m.notice = "history: " + msg.err.Error()
		return nil
	}
	if m.hist.saved == nil {
		m.hist.saved = map[*outcome]history.Entry{}
	}
	m.hist.saved[msg.o] = msg.entry
	return nil
}

// rows are the History view's rows, newest first: this session's calls, then the
// earlier ones, as the search keeps them.
func (m *model) histRows() []histRef {
	if m.hist.shown != nil {
		return m.hist.shown
	}
	return m.allHistRows()
}

func (m *model) allHistRows() []histRef {
	out := make([]histRef, 0, len(m.calls)+len(m.hist.past))
	for i := len(m.calls) - 1; i >= 0; i-- {
		out = append(out, histRef{o: m.calls[i]})
	}
	for i := len(m.hist.past) - 1; i >= 0; i-- {
		out = append(out, histRef{past: i})
	}
	return out
}

// research runs the search again (new rows arrived) when one is set.
func (m *model) research() tea.Cmd {
	if strings.TrimSpace(m.hist.query) == "" {
		m.hist.shown = nil
		return nil
	}
	m.hist.seq++
	seq := m.hist.seq
	words := strings.Fields(strings.ToLower(m.hist.query))
	rows := m.allHistRows()
	// What the search reads is taken here; the matching runs in the command.
	hay := make([][4]string, len(rows))
	for i, r := range rows {
		hay[i] = m.histText(r)
	}
	return func() tea.Msg {
		shown := []histRef{}
		for i, h := range hay {
			all := strings.ToLower(h[0] + "\n" + h[1] + "\n" + h[2] + "\n" + h[3])
			ok := true
			for _, w := range words {
				if !strings.Contains(all, w) {
					ok = false
					break
				}
			}
			if ok {
				shown = append(shown, rows[i])
			}
		}
		return histSearchMsg{seq: seq, shown: shown}
	}
}

// histText is what a search looks in: the tool (server/tool), the arguments, the
// result and the error.
func (m *model) histText(r histRef) [4]string {
	if r.o != nil {
		var res, errText string
		if r.o.result != nil {
			res = string(r.o.result.Raw)
		}
		if r.o.err != nil {
			errText = r.o.err.Error()
		}
		return [4]string{r.o.server + "/" + r.o.tool.Name, string(r.o.args), res, errText}
	}
	p := m.hist.past[r.past]
	return [4]string{p.server + "/" + p.entry.Tool, string(p.entry.Arguments), string(p.entry.Result), p.entry.Error}
}

// histCall is what a row calls: its server, tool name and arguments.
func (m *model) histCall(r histRef) (server, tool string, args json.RawMessage) {
	if r.o != nil {
		return r.o.server, r.o.tool.Name, r.o.args
	}
	p := m.hist.past[r.past]
	return p.server, p.entry.Tool, p.entry.Arguments
}

// histEntry is the stored entry of a row (ok false: not stored, or not yet).
func (m *model) histEntry(r histRef) (string, history.Entry, bool) {
	if r.o != nil {
		e, ok := m.hist.saved[r.o]
		return r.o.server, e, ok
	}
	p := m.hist.past[r.past]
	return p.server, p.entry, true
}

func (m *model) histMarked(r histRef) bool {
	_, e, ok := m.histEntry(r)
	return ok && e.Marked
}

func (m *model) histScroll(delta int) {
	m.hist.moveBy(delta, len(m.histRows()))
}

func (m *model) histTyping() bool { return m.hist.typing || m.hist.naming }

// historyKeys is History's table: the search field or the collection's name while
// typed (onHistField), else the calls. A key on a call acts on the selected row's
// own server and tool, whatever the tool list shows.
func (m *model) historyKeys() keyTable {
	k, h := m.keys, &m.hist
	field := func(kp tea.KeyPressMsg) tea.Cmd { return m.onHistField(kp) }
	switch {
	case h.naming:
		return keyTable{name: "Collection name", groups: [][]binding{bindAll("the name", []key.Binding{
			relabel(k.SearchDone, "save the marked calls"), relabel(k.SearchClear, "do not save"), k.Erase}, field)}, rest: field}
	case h.typing:
		return keyTable{name: "History search", groups: [][]binding{bindAll("the search", []key.Binding{k.SearchDone, k.SearchClear, k.Erase}, field)}, rest: field}
	}
	// onRow runs do on the selected row. Whether there is one is found when the key
	// comes, not for every frame's hint (the rows are every call of every session).
	onRow := func(do func(r histRef) tea.Cmd) func() tea.Cmd {
		return func() tea.Cmd {
			rows := m.histRows()
			if len(rows) == 0 {
				m.notice = "no call in the history yet"
				return nil
			}
			h.cursor = min(h.cursor, len(rows)-1)
			return do(rows[h.cursor])
		}
	}
	return keyTable{name: "History", groups: [][]binding{
		{
			bind(k.Rerun, onRow(m.rerunHistory)),
			bind(k.LoadArgs, onRow(m.loadHistoryArgs)),
			bind(k.ShowResult, onRow(m.showHistoryResult)),
			bind(relabel(k.Filter, "search (tool, arguments, result)"), act(func() {
				h.typing, h.query = true, ""
				h.shown, h.cursor = nil, 0
			})),
			bind(k.MarkEntry, onRow(m.markHistory)),
			bind(k.SaveMarked, func() tea.Cmd {
				if len(m.markedEntries()) == 0 {
					m.notice = "no entry is marked: m marks the selected one"
					return nil
				}
				h.naming, h.name = true, ""
				return nil
			}),
		},
		append(k.moves(func(kp tea.KeyPressMsg) tea.Cmd {
			h.keyMove(kp, k, len(m.histRows()))
			return nil
		}), bind(relabel(k.ClearFilter, "clear the search"), act(func() { h.query, h.shown, h.cursor = "", nil, 0 })).unless(func() string {
			if h.query == "" {
				return "no search to clear"
			}
			return ""
		})),
	}}
}

// rerunHistory is enter on a call: the entry's own tool on its own server, whatever
// the list shows or has selected; a destructive one asks first (requestCall).
func (m *model) rerunHistory(r histRef) tea.Cmd {
	if r.o != nil && r.o.isTapped() {
		return m.retryTapped(r.o) // never sent to the tapped session (attach.go)
	}
	server, tool, args := m.histCall(r)
	t, ok := m.toolByName(server, tool)
	if !ok {
		m.notice = tool + " is not in the server's tool list any more; nothing was called"
		return nil
	}
	// The arguments are checked against the tool's input schema as listed now, as
	// enter in the form checks them: the schema may have changed since the call (an
	// edit, a list_changed, a restart). Checking is unbounded work: a command.
	return func() tea.Msg {
		v, err := validate.Check(t.InputSchema, args)
		return rerunCheckedMsg{server: server, tool: t, args: args, violations: v, err: err}
	}
}

// rerunCheckedMsg is a History re-run's arguments checked against the tool's schema.
type rerunCheckedMsg struct {
	server     string
	tool       client.Tool
	args       json.RawMessage
	violations []validate.Violation
	err        error // the schema could not be checked: the call goes as the form's would
}

func (msg rerunCheckedMsg) handle(m *model) tea.Cmd {
	name := m.toolLabel(msg.server, msg.tool.Name)
	if why, ok := m.listedAs(msg.server, msg.tool); !ok {
		m.notice = why // the tool changed again while its arguments were checked
		return nil
	}
	if len(msg.violations) > 0 {
		var what []string
		for _, v := range msg.violations {
			what = append(what, v.String())
		}
		m.notice = name + "'s input schema no longer takes this call's arguments (" + safe(strings.Join(what, "; ")) +
			"); nothing was sent. e loads them into the form (alt+enter there sends anyway)"
		return nil
	}
	cmd := m.requestCall(msg.server, msg.tool, msg.args)
	if msg.err != nil {
		m.noteBeside("arguments not validated: " + safe(msg.err.Error()))
	}
	return cmd
}

// loadHistoryArgs is e on a call: its tool selected, its arguments in the form.
func (m *model) loadHistoryArgs(r histRef) tea.Cmd {
	if r.o != nil && r.o.isTapped() {
		return m.retryTapped(r.o) // on mcpscope's own session (attach.go)
	}
	server, tool, args := m.histCall(r)
	if _, ok := m.toolByName(server, tool); !ok {
		m.notice = tool + " is not in the server's tool list any more; its form cannot be opened"
		return nil
	}
	if !m.selectTool(server, tool) {
		m.list.setFilter("") // the filter hides it: show every tool
		m.selectTool(server, tool)
	}
	if m.form != nil {
		if err := m.form.SetValue(args); err != nil {
			m.notice = "could not load the arguments into the form: " + err.Error()
		}
	}
	m.tab = tabTool
	return nil
}

// markHistory is m on a call: marked for a collection (S), or no longer.
func (m *model) markHistory(r histRef) tea.Cmd {
	srv, e, ok := m.histEntry(r)
	if !ok {
		m.notice = "this call is not in the lasting history (yet); it cannot be marked"
		return nil
	}
	l := m.hist.logs[srv]
	if l == nil {
		return nil
	}
	marked := !e.Marked
	m.setMarked(srv, e.ID, marked)
	return func() tea.Msg {
		return histMarkedMsg{server: srv, id: e.ID, marked: marked, err: l.Mark(marked, e.ID)}
	}

}

// showHistoryResult is →/l on a call: its result in the Result tab (an earlier
// session's read back in a command).
func (m *model) showHistoryResult(r histRef) tea.Cmd {
	if r.o != nil {
		m.showOutcome(r.o)
		return nil
	}
	p := m.hist.past[r.past]
	return func() tea.Msg { return histResultMsg{o: outcomeOf(p)} }
}

func (m *model) showOutcome(o *outcome) {
	m.current = o
	m.toResult()
	m.result.top()
	m.resultVer++
}

// outcomeOf makes an earlier session's call showable in the Result tab.
func outcomeOf(p pastCall) *outcome {
	o := &outcome{server: p.server, tool: client.Tool{Name: p.entry.Tool}, args: p.entry.Arguments, started: p.entry.Time,
		elapsed: time.Duration(p.entry.DurationMS * float64(time.Millisecond)), recorded: true}
	switch {
	case p.entry.Cancelled && len(p.entry.Result) == 0:
		o.cancelled = true
	case len(p.entry.Result) > 0:
		resp, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": p.entry.Result})
		o.result, o.err = client.ParseCallResponse(resp)
	case p.entry.Error != "":
		o.err = errors.New(p.entry.Error)
	case p.entry.ResultSize > 0:
		o.err = fmt.Errorf("the result (%d bytes) was too big to keep in the history", p.entry.ResultSize)
	}
	return o
}

// setMarked changes the mark on screen at once (the store follows in a command).
func (m *model) setMarked(server, id string, marked bool) {
	for i := range m.hist.past {
		if m.hist.past[i].server == server && m.hist.past[i].entry.ID == id {
			m.hist.past[i].entry.Marked = marked
		}
	}
	for o, e := range m.hist.saved {
		if o.server == server && e.ID == id {
			e.Marked = marked
			m.hist.saved[o] = e
		}
	}
}

// markedEntries are the marked entries by server, oldest first.
func (m *model) markedEntries() map[string][]history.Entry {
	out := map[string][]history.Entry{}
	rows := m.allHistRows()
	for i := len(rows) - 1; i >= 0; i-- {
		if srv, e, ok := m.histEntry(rows[i]); ok && e.Marked {
			out[srv] = append(out[srv], e)
		}
	}
	for k, v := range out {
		if len(v) == 0 {
			delete(out, k)
		}
	}
	return out
}

// onHistField types into the search field or the collection's name.
func (m *model) onHistField(k tea.KeyPressMsg) tea.Cmd {
	h := &m.hist
	text := &h.query
	if h.naming {
		text = &h.name
	}
	switch {
	case key.Matches(k, m.keys.SearchClear):
		if h.naming {
			h.naming = false
			m.notice = "not saved"
			return nil
		}
		h.typing, h.query, h.shown = false, "", nil
		return nil
	case key.Matches(k, m.keys.SearchDone):
		if h.naming {
			h.naming = false
			return m.saveCollection(strings.TrimSpace(h.name))
		}
		h.typing = false
		return nil
	case key.Matches(k, m.keys.Erase):
		if r := []rune(*text); len(r) > 0 {
			*text = string(r[:len(r)-1])
		}
	default:
		*text += k.Text
	}
	if h.typing {
		h.cursor = 0
		return m.research()
	}
	return nil
}

// saveCollection writes the marked entries as a recording named name (in the save
// directory): one file for one server, NAME-SERVER.jsonl for each of several.
func (m *model) saveCollection(name string) tea.Cmd {
	if name == "" {
		m.notice = "a collection needs a name; S again to save"
		return nil
	}
	if strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		m.notice = "the collection's name is a file name in " + m.saveDir() + ": no / in it"
		return nil
	}
	marked := m.markedEntries()
	dir := m.saveDir()
	type job struct {
		log     *history.Log
		path    string
		entries []history.Entry
		tools   []client.Tool // the server's, as listed now: the collection's surface
	}
	var jobs []job
	servers := make([]string, 0, len(marked))
	for s := range marked {
		servers = append(servers, s)
	}
	sort.Strings(servers)
	base := strings.TrimSuffix(name, ".jsonl")
	for _, s := range servers {
		l := m.hist.logs[s]
		if l == nil {
			continue
		}
		file := base + ".jsonl"
		if len(servers) > 1 {
			file = base + "-" + s + ".jsonl"
		}
		var tools []client.Tool
		if srv := m.server(s); srv != nil {
			tools = srv.tools()
		}
		jobs = append(jobs, job{log: l, path: filepath.Join(dir, file), entries: marked[s], tools: tools})
	}
	m.notice = "saving the collection…"
	return func() tea.Msg {
		var said []string
		for _, j := range jobs {
			if _, err := os.Lstat(j.path); err == nil {
				said = append(said, j.path+" exists already; pick another name")
				continue
			}
			names, skipped, err := j.log.SaveCollection(j.path, j.entries, toolsSurface(j.tools))
			if err != nil {
				said = append(said, j.path+": "+err.Error())
				continue
			}
			s := fmt.Sprintf("saved %s to %s (mcpscope replay %s; --only %s)", plural.Count(len(names), "call"), j.path, j.path, strings.Join(names, ","))
			if len(skipped) > 0 {
				s += "; left out: " + strings.Join(skipped, ", ")
			}
			said = append(said, s)
		}
		return histCollectionMsg{text: strings.Join(said, "; ")}
	}
}

// toolsSurface is the surface a collection carries: the server's tools as it listed
// them, so that `mcpscope diff COLLECTION -- SERVER` can say whether they changed
// (nil when they are not known: a server that never listed its tools).
func toolsSurface(tools []client.Tool) *record.Surface {
	if len(tools) == 0 {
		return nil
	}
	raws := make([]json.RawMessage, len(tools))
	for i, t := range tools {
		raws[i] = t.Raw
	}
	b, err := json.Marshal(raws)
	if err != nil {
		return nil
	}
	return &record.Surface{Tools: b}
}

func (m *model) saveDir() string {
	if m.opts.SaveDir != "" {
		return m.opts.SaveDir
	}
	return "."
}

// The store's answers (each read and write of it is a command).

func (msg histOpenedMsg) handle(m *model) tea.Cmd { return m.onHistOpened(msg) }
func (msg histSavedMsg) handle(m *model) tea.Cmd  { return m.onHistSaved(msg) }

func (msg histSearchMsg) handle(m *model) tea.Cmd {
	if msg.seq == m.hist.seq && strings.TrimSpace(m.hist.query) != "" {
		m.hist.shown = msg.shown
		m.hist.cursor = min(m.hist.cursor, max(len(msg.shown)-1, 0))
	}
	return nil
}

func (msg histMarkedMsg) handle(m *model) tea.Cmd {
	if msg.err != nil {
		m.setMarked(msg.server, msg.id, !msg.marked)
		m.notice = "history: " + msg.err.Error()
	}
	return nil
}

func (msg histCollectionMsg) handle(m *model) tea.Cmd {
	m.notice = msg.text
	return nil
}

func (msg histResultMsg) handle(m *model) tea.Cmd {
	m.showOutcome(msg.o)
	return nil
}

// historyView draws the History tab: only the rows on screen.
func (m *model) historyView(width, height int) string {
	h := &m.hist
	st := m.st
	head := "enter re-runs · e loads the form · → result · / search · m marks · S saves"
	if m.opts.Browse != nil {
		head += " · ▶ from the recording"
	}
	lines := []string{st.muted.Render(truncate(head, width))}
	switch {
	case h.naming:
		lines = append(lines, st.accent.Render("collection name: ")+safe(h.name)+st.accent.Render("▏")+st.muted.Render("  enter saves · esc cancels"))
	case h.typing:
		lines = append(lines, st.accent.Render("/")+safe(h.query)+st.accent.Render("▏"))
	case h.query != "":
		lines = append(lines, st.muted.Render("/"+safe(h.query)+"  (esc clears)"))
	}
	rows := m.histRows()
	if len(rows) == 0 {
		if h.query != "" {
			return strings.Join(append(lines, st.muted.Render("no call matches")), "\n")
		}
		return strings.Join(append(lines, st.muted.Render("No calls yet.")), "\n")
	}
	room := max(height-len(lines), 1)
	lines = append(lines, h.draw(len(rows), room, func(i int, selected bool) string {
		return m.histRow(rows[i], selected, width)
	})...)
	return strings.Join(lines, "\n")
}

func (m *model) histRow(r histRef, selected bool, width int) string {
	st := m.st
	var when time.Time
	var status, name, args, mark string
	size := -1 // the result's bytes: what it put into the model's context (cost.go)
	if r.o != nil {
		o := r.o
		when, status, name, args = o.started, o.status(), o.tool.Name, string(o.args)
		if o.result != nil && !o.running {
			size = len(o.result.Raw)
		}
		if o.recorded || o.mocked {
			mark = "▶ "
		}
		if o.isTapped() {
			mark = "⇄ " // the host's, through a tap
		}
		if (m.several() || o.isTapped()) && o.server != "" {
			name = o.server + "/" + name
		}
	} else {
		p := m.hist.past[r.past]
		when, name, args = p.entry.Time, p.entry.Tool, string(p.entry.Arguments)
		if len(p.entry.Result) > 0 {
			size = len(p.entry.Result)
		}
		switch {
		case p.entry.Cancelled:
			status = "cancelled"
		case p.entry.Error != "":
			status = "failed"
		case p.entry.IsError:
			status = "tool error"
		default:
			status = "ok"
		}
		if m.several() {
			name = p.server + "/" + name
		}
		mark = "◷ " // an earlier session
	}
	stamp := when.Format("15:04:05")
	if r.o == nil && !sameDay(when, time.Now()) {
		stamp = when.Format("01-02 15:04")
	}
	row := safe(fmt.Sprintf("%s  %s%-10s %-12s %s", stamp, mark, status, name, oneLine(args, 200)))
	if m.histMarked(r) {
		row = "★ " + row
	}
	row = truncate(row, width-2)
	row = withSize(row, size, width-2) // cost.go
	switch status {
	case "failed", "interrupted":
		row = st.err.Render(row)
	case "tool error":
		row = st.toolErr.Render(row)
	}
	if selected {
		return st.selected.Render("›") + " " + row
	}
	return "  " + row
}

func sameDay(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}

// onServerAdded opens the history of a server added while the session runs.
func (m *model) onServerAdded(name string) tea.Cmd {
	return m.openHistory(name, m.targetOf(name))
}
