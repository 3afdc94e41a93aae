package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/plural"
)

// promptsView is the Prompts tab (9): the prompts of every connected server that
// offers them (under a header per server when there are several), a filter, and the
// open prompt: its arguments as a form with completion, and what prompts/get gave.
type promptsView struct {
	lists     map[string]*promptList // by server
	entries   []promptEntry          // every prompt, in the servers' order
	rows      []promptRow            // what the filter shows
	several   bool
	list      // the cursor over rows (list.go)
	filter    string
	filtering bool
	open      *openPrompt
	forms     map[string]*argForm // by server, prompt name: what was typed is kept
	nextID    int
	keys      promptKeys
}

// promptList is one server's prompts/list, as fetched for one connection.
type promptList struct {
	lazyList
	items    []client.Prompt
	problems []string
	err      error
}

type promptEntry struct {
	server string
	p      client.Prompt
}

// promptRow is a visible row: a prompt (entry >= 0) or a server's header.
type promptRow struct {
	entry  int
	header string
	note   string // the header's state: loading, failed
}

// openPrompt is the prompt whose form is shown, and its last prompts/get.
type openPrompt struct {
	entry   promptEntry
	form    *argForm
	id      int
	running bool
	started time.Time
	elapsed time.Duration
	cancel  context.CancelFunc
	res     *client.PromptResult
	err     error
	out     scroller
	outW    int
	outVer  int
	shown   int // outVer of the document in out
	wraps   map[wrapKey]*wrapped
}

// promptKeys are the Prompts tab's own keys.
type promptKeys struct {
	Open, Get, Back, Filter, Refresh, Cancel, Save, Scroll key.Binding
	ScrollUp                                               key.Binding
	NextField, Pick, Take, HidePicks                       key.Binding
	FilterDone, FilterClear                                key.Binding
}

func defaultPromptKeys() promptKeys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return promptKeys{
		Open:        b("enter", "open the prompt's arguments", "enter"),
		Get:         b("enter", "get the prompt (prompts/get)", "enter"),
		Back:        b("esc", "back to the prompts", "esc"),
		Filter:      b("/", "filter prompts", "/"),
		Refresh:     b("r", "refetch prompts", "r"),
		Cancel:      b("ctrl+x", "cancel the running prompts/get", "ctrl+x"),
		Save:        b("ctrl+s", "save the prompt's messages", "ctrl+s"),
		Scroll:      b("pgup/pgdn", "scroll the messages", "pgup", "pgdown"),
		ScrollUp:    b("pgup", "scroll the messages up", "pgup"),
		FilterDone:  b("enter", "keep the filter", "enter"),
		FilterClear: b("esc", "clear the filter", "esc"),
	}
}

// Messages of the Prompts tab.
type (
	promptsMsg struct {
		server string
		gen    int
		list   *client.List[client.Prompt]
		err    error
	}
	promptGotMsg struct {
		id      int
		res     *client.PromptResult
		err     error
		elapsed time.Duration
	}
	promptSavedMsg struct{ text string }
)

func (msg promptsMsg) handle(m *model) tea.Cmd   { return m.onPrompts(msg) }
func (msg promptGotMsg) handle(m *model) tea.Cmd { return m.onPromptGot(msg) }

func (msg promptSavedMsg) handle(m *model) tea.Cmd {
	m.notice = msg.text
	return nil
}

// offersPrompts reports whether a server declared the prompts capability.
func offersPrompts(s *server) bool {
	var caps map[string]json.RawMessage
	if s == nil || json.Unmarshal(s.info().Capabilities, &caps) != nil {
		return false
	}
	v, ok := caps["prompts"]
	return ok && string(v) != "null"
}

// hasPrompts reports whether the Prompts tab has something to show this session.
func (m *model) hasPrompts() bool {
	for _, s := range m.servers {
		if offersPrompts(s) {
			return true
		}
	}
	return false
}

// ensurePrompts fetches the prompts of every connected server that offers them and
// has none for its current connection. It runs when the tab is shown: nothing is
// asked before the user looks.
func (m *model) ensurePrompts() tea.Cmd {
	v := &m.prompts
	if v.lists == nil {
		v.lists = map[string]*promptList{}
		v.keys = defaultPromptKeys()
	}
	return fetchMissing(m.servers, v.lists, offersPrompts, m.fetchPrompts)
}

func (m *model) fetchPrompts(s *server) tea.Cmd {
	if m.wb == nil {
		return nil
	}
	v := &m.prompts
	listFor(v.lists, s)
	v.rebuild(m)
	wb, name, gen := m.wb, s.name, s.reqGen()
	return sessionCmd(wb, name, 60*time.Second, func(ctx context.Context, sess *client.Session) tea.Msg {
		list, err := sess.Prompts(ctx)
		return promptsMsg{server: name, gen: gen, list: list, err: err}
	}, func(err error) tea.Msg {
		return promptsMsg{server: name, gen: gen, err: err}
	})
}

// onPromptsChanged refetches a server's prompts (notifications/prompts/list_changed)
// when the tab has shown them; otherwise they are fetched when it is opened.
func (m *model) onPromptsChanged(s *server) tea.Cmd {
	if s.state() != stateReady || m.prompts.lists == nil || m.prompts.lists[s.name] == nil {
		return nil
	}
	m.notice = "the server's prompts changed; list refreshed"
	if m.several() {
		m.notice = s.name + ": the server's prompts changed; list refreshed"
	}
	return m.fetchPrompts(s)
}

func (m *model) onPrompts(msg promptsMsg) tea.Cmd {
	v := &m.prompts
	l, ok := answerFor(m, v.lists, msg.server, msg.gen)
	if !ok {
		return nil // a restart made it stale
	}
	l.loading = false
	l.err = msg.err
	if msg.list != nil {
		l.items, l.problems = msg.list.Items, msg.list.Problems
		v.evictForms(msg.server, l.items)
	}
	if msg.err == nil {
		m.settleNotice(refetchingPrompts, "prompts refetched")
	}
	v.rebuild(m)
	return nil
}

// promptFormKey is the owner of a prompt's form: its server, its name and its
// arguments as listed (a prompt whose arguments changed gets a fresh form).
func promptFormKey(server string, p client.Prompt) string {
	sig, _ := json.Marshal(p.Arguments)
	return server + "\x00" + p.Name + "\x00" + string(sig)
}

// evictForms drops the forms of a server's prompts it no longer lists as they were
// (gone, or with other arguments), as evictForms (devloop.go) does for tools: a
// prompt that comes back gets a fresh form, and a server whose prompts keep changing
// does not pile forms up for the session's life. The open prompt's form stays while
// it is open.
func (v *promptsView) evictForms(server string, items []client.Prompt) {
	if len(v.forms) == 0 {
		return
	}
	listed := make(map[string]bool, len(items))
	for _, p := range items {
		listed[promptFormKey(server, p)] = true
	}
	prefix := server + "\x00"
	for k, f := range v.forms {
		if strings.HasPrefix(k, prefix) && !listed[k] && (v.open == nil || v.open.form != f) {
			delete(v.forms, k)
		}
	}
}

// rebuild lays out the entries and the rows the filter shows.
func (v *promptsView) rebuild(m *model) {
	v.several = m.several()
	var keep promptEntry
	if e, ok := v.selected(); ok {
		keep = e
	}
	v.entries = v.entries[:0]
	v.rows = v.rows[:0]
	q := strings.ToLower(v.filter)
	for _, s := range m.servers {
		l := v.lists[s.name]
		if l == nil {
			continue
		}
		if v.several {
			note := fmt.Sprintf("%d", len(l.items))
			switch {
			case l.loading:
				note = "loading…"
			case l.err != nil:
				note = "failed"
			}
			v.rows = append(v.rows, promptRow{entry: -1, header: s.name, note: note})
		}
		for _, p := range l.items {
			v.entries = append(v.entries, promptEntry{server: s.name, p: p})
			hay := strings.ToLower(p.Name + " " + p.Title + " " + p.Description)
			if v.several {
				hay = strings.ToLower(s.name) + "/" + hay
			}
			if q != "" && !strings.Contains(hay, q) {
				continue
			}
			v.rows = append(v.rows, promptRow{entry: len(v.entries) - 1})
		}
	}
	v.cursor = min(v.cursor, max(len(v.rows)-1, 0))
	for i, r := range v.rows {
		if r.entry >= 0 && v.entries[r.entry].server == keep.server && v.entries[r.entry].p.Name == keep.p.Name {
			v.cursor = i
		}
	}
	v.skipHeader(1)
}

// skipHeader moves the cursor off a header row (in direction d).
func (v *promptsView) skipHeader(d int) {
	for i := 0; i < len(v.rows) && v.cursor >= 0 && v.cursor < len(v.rows) && v.rows[v.cursor].entry < 0; i++ {
		next := v.cursor + d
		if next < 0 || next >= len(v.rows) {
			d = -d
			next = v.cursor + d
			if next < 0 || next >= len(v.rows) {
				return
			}
		}
		v.cursor = next
	}
}

func (v *promptsView) selected() (promptEntry, bool) {
	if v.cursor < 0 || v.cursor >= len(v.rows) || v.rows[v.cursor].entry < 0 {
		return promptEntry{}, false
	}
	return v.entries[v.rows[v.cursor].entry], true
}

// typing reports whether keys are text for the Prompts tab (the filter, a field).
func (v *promptsView) typing() bool {
	return v.filtering || (v.open != nil && v.open.form != nil && len(v.open.form.fields) > 0)
}

// wantsTab reports whether tab moves between fields (the open prompt has several).
func (v *promptsView) wantsTab() bool {
	return !v.filtering && v.open != nil && len(v.open.form.fields) > 1
}

// promptsKeys is the Prompts tab's table: the filter field, an open prompt's
// arguments, or the list.
func (m *model) promptsKeys() keyTable {
	v, k := &m.prompts, m.keys
	if v.keys.Open.Keys() == nil {
		v.keys = defaultPromptKeys()
	}
	pk := v.keys
	if v.filtering {
		then := func(f func()) func() tea.Cmd { return act(func() { f(); v.rebuild(m) }) }
		return keyTable{
			name: "Prompt filter",
			groups: [][]binding{{
				bind(pk.FilterDone, then(func() { v.filtering = false })),
				bind(pk.FilterClear, then(func() { v.filtering, v.filter = false, "" })),
				bind(k.FilterUp, act(func() { v.move(-1) })),
				bind(k.FilterDown, act(func() { v.move(1) })),
				bind(k.Erase, then(func() {
					if r := []rune(v.filter); len(r) > 0 {
						v.filter = string(r[:len(r)-1])
					}
				})),
			}},
			rest: func(kp tea.KeyPressMsg) tea.Cmd { v.filter += kp.Text; v.rebuild(m); return nil },
		}
	}
	if o := v.open; o != nil {
		return m.openPromptKeys(o)
	}
	return keyTable{name: "Prompts", groups: [][]binding{
		{
			bind(pk.Open, func() tea.Cmd {
				e, ok := v.selected()
				if !ok {
					return nil
				}
				return m.openPromptForm(e)
			}),
			bind(pk.Filter, act(func() { v.filtering, v.filter = true, ""; v.rebuild(m) })),
			bind(pk.Refresh, func() tea.Cmd {
				m.notice = refetchingPrompts
				return fetchAll(m.servers, offersPrompts, m.fetchPrompts)
			}),
		},
		append(k.moves(func(kp tea.KeyPressMsg) tea.Cmd {
			before := v.cursor
			if v.keyMove(kp, k, len(v.rows)) {
				v.skipHeader(cmpDir(v.cursor - before))
			}
			return nil
		}), bind(relabel(pk.FilterClear, "clear the filter"), act(func() { v.filter = ""; v.rebuild(m) })).unless(func() string {
			if v.filter == "" {
				return "no filter to clear"
			}
			return ""
		})),
	}}
}

// openPromptKeys is an open prompt's table: its own keys, then the form's (each key
// the form takes first, as enter on a picked value, goes to it before get and back).
func (m *model) openPromptKeys(o *openPrompt) keyTable {
	v := &m.prompts
	pk := v.keys
	form := func(kp tea.KeyPressMsg) tea.Cmd { cmd, _ := o.form.key(kp); return cmd }
	formFirst := func(do func() tea.Cmd) func(tea.KeyPressMsg) tea.Cmd {
		return func(kp tea.KeyPressMsg) tea.Cmd {
			if cmd, handled := o.form.key(kp); handled {
				return cmd
			}
			return do()
		}
	}
	return keyTable{name: "Prompt arguments", groups: [][]binding{append([]binding{
		bindKey(pk.Get, formFirst(func() tea.Cmd { return m.getPrompt(o) })),
		bindKey(pk.Back, formFirst(act(func() { o.form.close(); v.open = nil }))),
		bind(pk.Cancel, act(func() {
			o.cancel()
			m.notice = "prompts/get cancelled; notifications/cancelled sent"
		})).unless(func() string {
			if !o.running || o.cancel == nil {
				return "prompts/get is not running"
			}
			return ""
		}),
		bind(pk.Save, func() tea.Cmd { return m.savePrompt(o) }),
		bindKey(pk.Scroll, func(kp tea.KeyPressMsg) tea.Cmd {
			d := max(m.height/2, 1)
			if key.Matches(kp, pk.ScrollUp) {
				d = -d
			}
			o.out.scroll(d)
			return nil
		}),
	}, bindAll("the form", argFormKeys.help(), form)...)}, rest: form}
}

// move moves the cursor by d rows, past server headers.
func (v *promptsView) move(d int) {
	v.moveBy(d, len(v.rows))
	v.skipHeader(cmpDir(d))
}

// cmpDir is the direction of a move: 1 down, -1 up.
func cmpDir(d int) int {
	if d < 0 {
		return -1
	}
	return 1
}

// openPromptForm shows a prompt's arguments as a form (the one typed into before,
// when the prompt is unchanged).
func (m *model) openPromptForm(e promptEntry) tea.Cmd {
	v := &m.prompts
	if v.forms == nil {
		v.forms = map[string]*argForm{}
	}
	fk := promptFormKey(e.server, e.p)
	f := v.forms[fk]
	if f == nil {
		var fields []argField
		for _, a := range e.p.Arguments {
			fields = append(fields, argField{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
		}
		f = newArgForm(e.server, client.CompletionRef{Type: "ref/prompt", Name: e.p.Name}, fields, completesOf(m.server(e.server)), "gets the prompt")
		v.forms[fk] = f
	}
	v.open = &openPrompt{entry: e, form: f}
	return f.open()
}

// getPrompt runs prompts/get with the form's values, as a command. The server may
// ask for input while it runs (elicitation): that dialog comes as for a tool call.
func (m *model) getPrompt(o *openPrompt) tea.Cmd {
	if o.running {
		m.notice = "prompts/get is running; ctrl+x cancels it"
		return nil
	}
	if miss := o.form.Missing(); len(miss) > 0 {
		m.notice = "fill in the required " + plural.Noun(len(miss), "argument") + ": " + strings.Join(miss, ", ")
		return nil
	}
	s := m.server(o.entry.server)
	if !s.callable() || m.wb == nil {
		m.notice = m.notConnected(s)
		return nil
	}
	v := &m.prompts
	v.nextID++
	o.id, o.running, o.started = v.nextID, true, time.Now()
	o.res, o.err = nil, nil
	o.out.top()
	o.outVer++
	ctx, cancel := context.WithCancel(context.Background())
	o.cancel = cancel
	m.notice = ""
	wb, server, name, args, id := m.wb, o.entry.server, o.entry.p.Name, o.form.Values(), o.id
	return func() tea.Msg {
		defer cancel()
		start := time.Now()
		return useSession(ctx, wb, server, func(ctx context.Context, sess *client.Session) tea.Msg {
			r, err := sess.GetPrompt(ctx, name, args)
			return promptGotMsg{id: id, res: r, err: err, elapsed: time.Since(start)}
		}, func(err error) tea.Msg {
			return promptGotMsg{id: id, err: err, elapsed: time.Since(start)}
		})
	}
}

func (m *model) onPromptGot(msg promptGotMsg) tea.Cmd {
	o := m.prompts.open
	if o == nil || o.id != msg.id {
		return nil // closed, or another get since
	}
	o.running, o.elapsed = false, msg.elapsed
	o.res, o.err = msg.res, msg.err
	o.outVer++
	return nil
}

// promptDoc renders a prompts/get result: its description, then each message under
// its role, each content block as the Result tab renders tool content.
func promptDoc(st styles, o *openPrompt, width int) *doc {
	if o.wraps == nil {
		o.wraps = map[wrapKey]*wrapped{}
	}
	d := &doc{width: width, wraps: o.wraps}
	if o.err != nil {
		var rpc *client.RPCError
		switch {
		case errors.Is(o.err, context.Canceled):
			d.add(st.warn.Render("Cancelled: notifications/cancelled was sent to the server."))
		case asRPC(o.err, &rpc):
			d.add(st.err.Render(fmt.Sprintf("JSON-RPC error %d", rpc.Code)))
			d.add(wrapText(rpc.Message, width)...)
			if len(rpc.Data) > 0 {
				d.add(st.muted.Render("data:"))
				d.add(jsonLines(st, rpc.Data, width)...)
			}
		default:
			d.add(st.err.Render("prompts/get failed"))
			d.add(wrapText(o.err.Error(), width)...)
		}
		return d
	}
	r := o.res
	if r == nil {
		return d
	}
	for _, p := range r.Problems {
		d.add(st.warn.Render("⚠ " + safe(p)))
	}
	if r.Description != "" {
		d.add(wrapText(r.Description, width)...)
	}
	if len(r.Messages) == 0 {
		d.add(st.muted.Render("(no messages)"))
	}
	for i, msg := range r.Messages {
		role := msg.Role
		if role == "" {
			role = "(no role)"
		}
		for j, c := range msg.Content {
			head := fmt.Sprintf("── [%d] %s ", i+1, safe(role))
			if len(msg.Content) > 1 {
				head = fmt.Sprintf("── [%d.%d] %s ", i+1, j+1, safe(role))
			}
			style := st.accent
			if msg.Role == "assistant" {
				style = st.title
			}
			d.add("", style.Render(head)+st.muted.Render(safe(orType(c.Type))+" ")+annotationNote(st, c))
			promptContent(d, st, c, width)
		}
		if len(msg.Content) == 0 {
			d.add("", st.accent.Render(fmt.Sprintf("── [%d] %s ", i+1, safe(role))), st.warn.Render("⚠ no content block"))
		}
	}
	return d
}

// promptContent adds a block as the Result tab draws it, with the Prompts tab's own
// key hints (ctrl+s saves; a linked resource is read in Resources).
func promptContent(d *doc, st styles, c client.Content, width int) {
	if c.Type == "text" && c.Problem == "" && len(c.Text) >= bigText ||
		c.Type == "resource" && c.Resource != nil && c.Resource.HasText && len(c.Resource.Text) >= bigText {
		addContent(d, st, c, width)
		return
	}
	save, read := st.muted.Render("s saves it to a file"), st.muted.Render("o reads the linked resource")
	for _, l := range contentLines(st, c, width) {
		switch l {
		case save:
			l = st.muted.Render("ctrl+s saves it to a file")
		case read:
			l = st.muted.Render("8 Resources reads it")
		}
		d.add(l)
	}
}

// savePrompt writes the messages' blocks and the raw result to a new directory, in
// a command.
func (m *model) savePrompt(o *openPrompt) tea.Cmd {
	if o.res == nil {
		m.notice = "nothing to save yet: enter gets the prompt"
		return nil
	}
	base := m.opts.SaveDir
	if base == "" {
		base = "."
	}
	res := o.res
	return func() tea.Msg {
		dir, err := os.MkdirTemp(base, "mcpscope-prompt-")
		if err != nil {
			return promptSavedMsg{text: "save failed: " + err.Error()}
		}
		sv := &savedFiles{dir: dir}
		for i, msg := range res.Messages {
			for j, c := range msg.Content {
				data, ext := blockData(c)
				sv.put(writeFile, fmt.Sprintf("%d.%d-%s-%s%s", i+1, j+1, msg.Role, c.Type, ext), data)
			}
		}
		sv.putRaw(writeFile, res.Raw)
		return promptSavedMsg{text: safe(sv.String())}
	}
}

// blockData is what saving a content block writes.
func blockData(c client.Content) ([]byte, string) {
	switch c.Type {
	case "text":
		return []byte(c.Text), ".txt"
	case "image", "audio", "resource":
		if c.Resource != nil && c.Resource.HasText {
			return []byte(c.Resource.Text), ".txt"
		}
		if b, err := c.Bytes(); err == nil {
			return b, extFor(c.MIMEType, c.Resource)
		}
	}
	return c.Raw, ".json"
}

// promptsView draws the tab.
func (m *model) promptsView(width, height int) string {
	v := &m.prompts
	st := m.st
	if !m.hasPrompts() {
		return st.muted.Render("No connected server offers prompts (capabilities.prompts).")
	}
	if o := v.open; o != nil {
		return m.openPromptView(o, width, height)
	}
	hint := "enter opens · / filters · r refetches"
	if v.filtering || v.filter != "" {
		hint = "/" + safe(v.filter)
		if v.filtering {
			hint += "█"
		}
		hint += st.muted.Render("  esc clears · enter opens")
	} else {
		hint = st.muted.Render(hint)
	}
	lines := []string{hint}
	loading, failed := false, []string{}
	for _, s := range m.servers {
		if l := v.lists[s.name]; l != nil {
			loading = loading || l.loading
			if l.err != nil {
				failed = append(failed, s.name+": "+l.err.Error())
			}
			for _, p := range l.problems {
				failed = append(failed, s.name+": "+p)
			}
		}
	}
	if len(v.rows) == 0 {
		switch {
		case loading:
			lines = append(lines, m.spin()+" listing prompts…")
		case v.filter != "":
			lines = append(lines, st.muted.Render("No prompt matches the filter."))
		case len(failed) == 0:
			lines = append(lines, st.muted.Render("The server lists no prompts."))
		}
	}
	for _, f := range failed {
		if !v.several {
			f = f[strings.Index(f, ": ")+2:]
		}
		lines = append(lines, st.warn.Render(truncate("⚠ "+safe(f), width)))
	}
	// The list, then the selected prompt's detail.
	listH := max(min(len(v.rows), (height-len(lines))*3/5), min(len(v.rows), 3))
	lines = append(lines, v.draw(len(v.rows), listH, func(i int, selected bool) string {
		return v.rowLine(st, i, selected, width)
	})...)
	if e, ok := v.selected(); ok && height-len(lines) > 2 {
		lines = append(lines, "")
		lines = append(lines, promptDetail(st, e.p, width)...)
	}
	if len(lines) > height {
		lines = lines[:max(height, 0)]
	}
	return strings.Join(lines, "\n")
}

// rowLine draws row i of the list.
func (v *promptsView) rowLine(st styles, i int, selected bool, width int) string {
	r := v.rows[i]
	if r.entry < 0 {
		return st.accent.Render(truncate("▾ "+safe(r.header), width-12)) + st.muted.Render("  "+r.note)
	}
	p := v.entries[r.entry].p
	name := safe(p.Name)
	if p.Title != "" && p.Title != p.Name {
		name += st.muted.Render("  " + safe(p.Title))
	}
	args := ""
	if n := len(p.Arguments); n > 0 {
		args = st.muted.Render(fmt.Sprintf("  %d arg", n))
		if n > 1 {
			args += st.muted.Render("s")
		}
	}
	if selected {
		return st.selected.Render("›") + " " + truncate(name+args, width-2)
	}
	return "  " + truncate(name+args, width-2)
}

// promptDetail is a prompt's description and arguments.
func promptDetail(st styles, p client.Prompt, width int) []string {
	out := []string{st.title.Render(safe(p.DisplayName()))}
	if p.Description != "" {
		out = append(out, wrapText(p.Description, width)...)
	}
	if len(p.Arguments) == 0 {
		return append(out, st.muted.Render("no arguments"))
	}
	out = append(out, st.accent.Render("arguments")+st.muted.Render("  (* required)"))
	for _, a := range p.Arguments {
		line := "  " + safe(a.Name)
		if a.Required {
			line += st.err.Render("*")
		}
		if a.Title != "" && a.Title != a.Name {
			line += st.muted.Render("  " + safe(a.Title))
		}
		out = append(out, truncate(line, width))
		if a.Description != "" {
			for _, d := range wrapText(a.Description, max(width-4, 10)) {
				out = append(out, "    "+st.muted.Render(d))
			}
		}
	}
	for _, pr := range p.Problems {
		out = append(out, st.warn.Render(truncate("⚠ "+safe(pr), width)))
	}
	return out
}

// openPromptView is the open prompt: its heading, the form, and the messages.
func (m *model) openPromptView(o *openPrompt, width, height int) string {
	st := m.st
	p := o.entry.p
	name := p.Name
	if m.several() {
		name = o.entry.server + "/" + name
	}
	head := st.title.Render(safe(name))
	if p.Title != "" && p.Title != p.Name {
		head += st.muted.Render("  " + safe(p.Title))
	}
	lines := []string{head}
	if p.Description != "" {
		d := wrapText(p.Description, width)
		lines = append(lines, d[:min(len(d), 2)]...)
	}
	hint := "enter gets the prompt · esc back"
	if len(o.form.fields) > 1 {
		hint = "enter gets the prompt · tab moves · esc back"
	}
	if !o.form.complete && len(o.form.fields) > 0 {
		hint += " · (the server offers no completion)"
	}
	lines = append(lines, st.accent.Render("Arguments")+st.muted.Render("  "+hint))
	formH := max(height-len(lines)-4, 2)
	if o.res != nil || o.err != nil || o.running {
		formH = max(min(formH, (height-len(lines))/2), 2)
	}
	lines = append(lines, o.form.view(st, width, formH, true)...)
	switch {
	case o.running:
		lines = append(lines, "", m.spin()+" prompts/get "+safe(p.Name)+" running "+
			time.Since(o.started).Round(100*time.Millisecond).String()+st.muted.Render("  ctrl+x cancels"))
	case o.res != nil || o.err != nil:
		status := st.ok.Render("messages")
		if o.err != nil {
			status = st.err.Render("failed")
		}
		lines = append(lines, "", st.accent.Render("── prompts/get ")+status+st.muted.Render("  "+o.elapsed.Round(time.Millisecond).String()+" · pgup/pgdn scroll · ctrl+s saves"))
		if o.outW != width || o.shown != o.outVer {
			o.out.setSource(promptDoc(st, o, width))
			o.outW, o.shown = width, o.outVer
		}
		if room := height - len(lines); room > 0 {
			lines = append(lines, o.out.view(room))
		}
	}
	out := strings.Join(lines, "\n")
	return clampLines(out, height, width)
}
