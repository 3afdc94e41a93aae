package tui

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/sahilm/fuzzy"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/savefile"
)

// The Resources tab (8): every connected server's resources and resource templates,
// grouped by server when there are several. Enter reads a resource (resources/read,
// in a command) and shows its contents by MIME type; on a template it opens a form
// of the URI template's variables whose fields ask completion/complete as the user
// types. Nothing is listed before the tab is first opened.
type resourcesView struct {
	list      list
	filter    string
	filtering bool
	lists     map[string]*serverResources // by server name
	rows      []resRow                    // the rows shown (filtered), rebuilt when data changes
	dirty     bool                        // rows must be rebuilt

	open    *resRead // the read shown (nil: the list)
	body    scroller
	bodyKey struct {
		r          *resRead
		width, ver int
	}
	tpl *tplForm // the template form (nil: none)

	subs    map[resKey]bool // subscribed resources
	updates map[resKey]int  // notifications/resources/updated received, by resource
	nextID  int
}

type resKey struct{ server, uri string }

// serverResources is what one server listed, for its connection generation.
type serverResources struct {
	lazyList
	err       error
	resources []client.Resource
	templates []client.ResourceTemplate
	problems  []string
}

type resRowKind int

const (
	resRowServer  resRowKind = iota // a server's header (several servers)
	resRowNote                      // loading, an error, "no resources"
	resRowSection                   // "Templates"
	resRowResource
	resRowTemplate
)

type resRow struct {
	kind   resRowKind
	server string
	idx    int // into resources or templates
	text   string
}

// resRead is one resources/read and what came of it.
type resRead struct {
	id       int
	server   string
	uri      string
	title    string
	running  bool
	cancel   context.CancelFunc
	result   *client.ReadResult
	err      error
	elapsed  time.Duration
	updates  int // notifications/resources/updated received while open
	updated  time.Time
	pictures map[int]*inlineImage
	wraps    map[wrapKey]*wrapped
	ver      int
}

// tplForm is a template's variables as a form: an argForm (complete.go), the same
// completion engine, keys and pick list as a prompt's arguments.
type tplForm struct {
	server string
	t      client.ResourceTemplate
	form   *argForm // nil when the template does not parse
	err    string   // the template does not parse
}

// Messages of the Resources tab; each carries its server.
type (
	resListMsg struct {
		server    string
		gen       int
		resources *client.List[client.Resource]
		templates *client.List[client.ResourceTemplate]
		rerr      error
		terr      error
	}
	resReadMsg struct {
		id       int
		result   *client.ReadResult
		err      error
		elapsed  time.Duration
		pictures map[int]*inlineImage
	}
	resSubMsg struct {
		server, uri string
		on          bool
		err         error
	}
)

func (v *resourcesView) typing() bool {
	return v.filtering || v.tpl != nil
}

// hasResources reports whether some server offers resources (the tab is on the bar).
func (m *model) hasResources() bool {
	for _, s := range m.servers {
		if s.callable() && declares(s.info(), "resources") {
			return true
		}
	}
	return false
}

// declares reports whether the handshake's server capabilities name cap.
func declares(info client.Info, cap string) bool {
	var caps map[string]json.RawMessage
	if json.Unmarshal(info.Capabilities, &caps) != nil {
		return false
	}
	v, ok := caps[cap]
	return ok && string(v) != "null"
}

// enterResources lists what is not listed yet for this connection (the tab opened).
func (m *model) enterResources() tea.Cmd {
	v := &m.res
	if v.lists == nil {
		v.lists = map[string]*serverResources{}
	}
	v.dirty = true
	return fetchMissing(m.servers, v.lists, offersResources, m.fetchResources)
}

// offersResources reports whether a connected server declared resources.
func offersResources(s *server) bool { return declares(s.info(), "resources") }

// fetchResources lists one server's resources and templates (every page of both).
func (m *model) fetchResources(s *server) tea.Cmd {
	if m.wb == nil {
		return nil
	}
	v := &m.res
	if v.lists == nil {
		v.lists = map[string]*serverResources{}
	}
	listFor(v.lists, s)
	v.dirty = true
	wb, name, gen := m.wb, s.name, s.reqGen()
	return sessionCmd(wb, name, 60*time.Second, func(ctx context.Context, sess *client.Session) tea.Msg {
		msg := resListMsg{server: name, gen: gen}
		msg.resources, msg.rerr = sess.Resources(ctx)
		msg.templates, msg.terr = sess.ResourceTemplates(ctx)
		return msg
	}, func(err error) tea.Msg {
		return resListMsg{server: name, gen: gen, rerr: err}
	})
}

// resListMsg is a server's resources and templates as listed.
func (msg resListMsg) handle(m *model) tea.Cmd {
	v := &m.res
	l, ok := answerFor(m, v.lists, msg.server, msg.gen)
	if !ok {
		return nil // a restart made it stale
	}
	l.loading, l.err, l.problems = false, msg.rerr, nil
	l.resources, l.templates = nil, nil
	if msg.resources != nil {
		l.resources = msg.resources.Items
		l.problems = append(l.problems, msg.resources.Problems...)
	}
	if msg.templates != nil {
		l.templates = msg.templates.Items
		l.problems = append(l.problems, msg.templates.Problems...)
	} else if msg.terr != nil {
		var rpc *client.RPCError
		if !asRPC(msg.terr, &rpc) || rpc.Code != -32601 { // a server without templates says "method not found"
			l.problems = append(l.problems, "resources/templates/list: "+msg.terr.Error())
		}
	}
	v.dirty = true
	return nil
}

// resReadMsg is the open resource's content, read.
func (msg resReadMsg) handle(m *model) tea.Cmd {
	r := m.res.open
	if r == nil || r.id != msg.id {
		return nil
	}
	r.running, r.cancel = false, nil
	r.result, r.err, r.elapsed = msg.result, msg.err, msg.elapsed
	r.pictures = msg.pictures
	r.ver++
	var seqs []string
	for _, p := range msg.pictures {
		seqs = append(seqs, p.seq)
	}
	if len(seqs) > 0 {
		sort.Strings(seqs)
		return tea.Raw(strings.Join(seqs, ""))
	}
	return nil
}

// resSubMsg is a subscription's answer.
func (msg resSubMsg) handle(m *model) tea.Cmd {
	v := &m.res
	k := resKey{msg.server, msg.uri}
	switch {
	case msg.err != nil:
		m.notice = "subscribe " + safe(msg.uri) + ": " + safe(msg.err.Error())
	case msg.on:
		v.subs[k] = true
		m.notice = "subscribed to " + safe(msg.uri) + ": updates re-read it"
	default:
		delete(v.subs, k)
		m.notice = "unsubscribed from " + safe(msg.uri)
	}
	v.dirty = true
	if v.open != nil {
		v.open.ver++
	}
	return nil
}

// onResourceEvent follows the workbench's resource notifications.
func (m *model) onResourceEvent(s *server, kind, uri string) tea.Cmd {
	v := &m.res
	switch kind {
	case "updated":
		if v.updates == nil {
			v.updates = map[resKey]int{}
		}
		v.updates[resKey{s.name, uri}]++
		r := v.open
		if r == nil || r.server != s.name || r.uri != uri || r.running {
			return nil
		}
		r.updates++
		r.updated = time.Now()
		return m.startRead(s.name, uri, r.title, true)
	case "list":
		if l := v.lists[s.name]; l != nil && s.state() == stateReady {
			m.notice = prefixed(m, s.name, "the server's resources changed; list refreshed")
			return m.fetchResources(s)
		}
	}
	return nil
}

// rebuild lays the rows out from the lists and the filter.
func (v *resourcesView) rebuild(m *model) {
	v.dirty = false
	var rows []resRow
	several := m.several()
	q := strings.ToLower(v.filter)
	match := func(texts ...string) bool {
		if q == "" {
			return true
		}
		for _, t := range texts {
			if len(fuzzy.Find(q, []string{strings.ToLower(t)})) > 0 {
				return true
			}
		}
		return false
	}
	for _, s := range m.servers {
		l := v.lists[s.name]
		if l == nil {
			continue
		}
		head := len(rows)
		if several {
			rows = append(rows, resRow{kind: resRowServer, server: s.name, text: s.name})
		}
		switch {
		case l.loading && len(l.resources) == 0 && len(l.templates) == 0:
			rows = append(rows, resRow{kind: resRowNote, server: s.name, text: "listing resources…"})
		case l.err != nil:
			rows = append(rows, resRow{kind: resRowNote, server: s.name, text: "resources/list failed: " + oneLine(l.err.Error(), 300)})
		}
		n := 0
		for i, r := range l.resources {
			if match(r.Name, r.Title, r.URI) {
				rows = append(rows, resRow{kind: resRowResource, server: s.name, idx: i})
				n++
			}
		}
		if n == 0 && !l.loading && l.err == nil && q == "" {
			rows = append(rows, resRow{kind: resRowNote, server: s.name, text: "no resources"})
		}
		first := true
		for i, t := range l.templates {
			if !match(t.Name, t.Title, t.URITemplate) {
				continue
			}
			if first {
				rows = append(rows, resRow{kind: resRowSection, server: s.name, text: "Templates"})
				first = false
			}
			rows = append(rows, resRow{kind: resRowTemplate, server: s.name, idx: i})
		}
		if q != "" && len(rows) == head+btoi(several) {
			rows = rows[:head] // a server with no match shows nothing
		}
	}
	v.rows = rows
	v.list.clamp(len(rows))
	v.settle(1)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (v *resourcesView) selected() (resRow, bool) {
	if v.list.cursor < 0 || v.list.cursor >= len(v.rows) {
		return resRow{}, false
	}
	return v.rows[v.list.cursor], true
}

func (v *resourcesView) resource(r resRow) client.Resource {
	return v.lists[r.server].resources[r.idx]
}

func (v *resourcesView) template(r resRow) client.ResourceTemplate {
	return v.lists[r.server].templates[r.idx]
}

// resourcesKeys is the Resources tab's table: a template's form, the filter field,
// a read shown, or the list.
func (m *model) resourcesKeys() keyTable {
	k, v := m.keys, &m.res
	if v.dirty {
		v.rebuild(m)
	}
	switch {
	case v.tpl != nil:
		// The form's keys are the prompt form's (argFormKeys): one way to pick a value.
		// The form has each key first (enter on a picked value, esc on the pick list):
		// onTemplateKey.
		tpl := func(kp tea.KeyPressMsg) tea.Cmd { return m.onTemplateKey(kp) }
		return keyTable{name: "Resource template", groups: [][]binding{append(bindAll("the template form", []key.Binding{
			relabel(k.Open, "read the expanded URI"), relabel(k.Back, "back to the list")}, tpl),
			bindAll("the template form", argFormKeys.help(), tpl)...)}, rest: tpl}
	case v.filtering:
		then := func(f func()) func() tea.Cmd {
			return act(func() { f(); v.list.cursor = 0; v.rebuild(m); v.settle(1) })
		}
		return keyTable{
			name: "Resource filter",
			groups: [][]binding{{
				bind(k.FilterDone, then(func() { v.filtering = false })),
				bind(relabel(k.ClearFilter, "clear the filter"), then(func() { v.filtering, v.filter = false, "" })),
				bind(k.Erase, then(func() {
					if r := []rune(v.filter); len(r) > 0 {
						v.filter = string(r[:len(r)-1])
					}
				})),
			}},
			rest: func(kp tea.KeyPressMsg) tea.Cmd {
				if kp.Text != "" && kp.Mod&(tea.ModCtrl|tea.ModAlt) == 0 {
					return then(func() { v.filter += kp.Text })()
				}
				return then(func() {})()
			},
		}
	case v.open != nil:
		r := v.open
		return keyTable{name: "Resource", groups: [][]binding{
			{
				bind(relabel(k.Back, "back to the list"), act(func() {
					if r.cancel != nil {
						r.cancel()
					}
					v.open = nil
				})),
				bind(relabel(k.SaveResult, "save the contents to files"), func() tea.Cmd { return m.saveResource(r) }),
				bind(k.Subscribe, func() tea.Cmd { return m.toggleSubscription(r.server, r.uri) }),
				bind(relabel(k.Refetch, "read it again"), func() tea.Cmd { return m.startRead(r.server, r.uri, r.title, true) }).unless(func() string {
					if r.running {
						return "the read is still running"
					}
					return ""
				}),
				bind(relabel(k.ShowRaw, "raw result"), act(func() { m.showRaw = !m.showRaw; r.ver++ })),
			},
			k.moves(m.onScrollKey),
		}}
	}
	return keyTable{name: "Resources", groups: [][]binding{
		{
			bind(relabel(k.Open, "read the resource, fill the template"), m.openResourceRow),
			bind(k.Subscribe, func() tea.Cmd {
				if r, ok := v.selected(); ok && r.kind == resRowResource {
					return m.toggleSubscription(r.server, v.resource(r).URI)
				}
				return nil
			}).unless(func() string {
				if r, ok := v.selected(); !ok || r.kind != resRowResource {
					return "a resource is subscribed to, not a template"
				}
				return ""
			}),
			bind(k.Filter, act(func() { v.filtering = true })),
			bind(k.ClearFilter, act(func() { v.filter = ""; v.rebuild(m) })).unless(func() string {
				if v.filter == "" {
					return "no filter to clear"
				}
				return ""
			}),
			bind(relabel(k.Refetch, "list again"), func() tea.Cmd { return fetchAll(m.servers, offersResources, m.fetchResources) }),
		},
		k.moves(func(kp tea.KeyPressMsg) tea.Cmd {
			before := v.list.cursor
			v.list.keyMove(kp, k, len(v.rows))
			dir := 1
			if v.list.cursor < before {
				dir = -1
			}
			v.settle(dir)
			return nil
		}),
	}}
}

// openResourceRow is enter on the list: a resource is read, a template's form opens.
func (m *model) openResourceRow() tea.Cmd {
	v := &m.res
	r, ok := v.selected()
	if !ok {
		return nil
	}
	switch r.kind {
	case resRowResource:
		res := v.resource(r)
		return m.startRead(r.server, res.URI, res.DisplayName(), false)
	case resRowTemplate:
		return m.openTemplate(r.server, v.template(r))
	}
	return nil
}

// settle moves the cursor off a header or a note onto the next item in direction
// dir (or back the other way when there is none).
func (v *resourcesView) settle(dir int) {
	item := func(i int) bool {
		return i >= 0 && i < len(v.rows) && (v.rows[i].kind == resRowResource || v.rows[i].kind == resRowTemplate)
	}
	if item(v.list.cursor) {
		return
	}
	for _, d := range []int{dir, -dir} {
		for i := v.list.cursor + d; i >= 0 && i < len(v.rows); i += d {
			if item(i) {
				v.list.cursor = i
				return
			}
		}
	}
}

// startRead reads a resource in a command; again keeps the place in the text (an
// update, a re-read).
func (m *model) startRead(server, uri, title string, again bool) tea.Cmd {
	v := &m.res
	if m.wb == nil {
		return nil
	}
	v.nextID++
	r := &resRead{id: v.nextID, server: server, uri: uri, title: title, running: true, wraps: map[wrapKey]*wrapped{}}
	if again && v.open != nil && v.open.uri == uri && v.open.server == server {
		r.updates, r.updated = v.open.updates, v.open.updated
	} else {
		v.body.top()
	}
	if v.open != nil && v.open.cancel != nil {
		v.open.cancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	v.open = r
	wb, id := m.wb, r.id
	inline, cols := m.inline, max(m.width*2/3-4, 8)
	imageBase := m.nextImage
	m.nextImage += 16 // ids for this read's pictures
	return func() tea.Msg {
		defer cancel()
		start := time.Now()
		return useSession(ctx, wb, server, func(ctx context.Context, sess *client.Session) tea.Msg {
			res, err := sess.Read(ctx, uri)
			msg := resReadMsg{id: id, result: res, err: err, elapsed: time.Since(start)}
			if inline && res != nil {
				msg.pictures = readPictures(res, imageBase, cols) // here, off the Update path
			}
			return msg
		}, func(err error) tea.Msg {
			return resReadMsg{id: id, err: err}
		})
	}
}

// readPictures decodes the pictures among a read's first 16 contents for inline
// display (ids from imageBase+1), by content index; nil when there are none.
func readPictures(res *client.ReadResult, imageBase, cols int) map[int]*inlineImage {
	var pictures map[int]*inlineImage
	for i, c := range res.Contents {
		if !c.HasBlob || !strings.HasPrefix(c.MIMEType, "image/") || i >= 16 {
			continue
		}
		data, err := decodeBlob(c.Blob)
		if err != nil {
			continue
		}
		if pic, err := newInlineImage(data, imageBase+i+1, cols); err == nil {
			if pictures == nil {
				pictures = map[int]*inlineImage{}
			}
			pictures[i] = pic
		}
	}
	return pictures
}

// toggleSubscription subscribes to a resource, or ends the subscription.
func (m *model) toggleSubscription(server, uri string) tea.Cmd {
	v := &m.res
	if v.subs == nil {
		v.subs = map[resKey]bool{}
	}
	if m.wb == nil {
		return nil
	}
	on := !v.subs[resKey{server, uri}]
	wb := m.wb
	if on {
		m.notice = "subscribing to " + safe(uri) + "…"
	} else {
		m.notice = "unsubscribing from " + safe(uri) + "…"
	}
	return sessionCmd(wb, server, 30*time.Second, func(ctx context.Context, sess *client.Session) tea.Msg {
		var err error
		if on {
			err = sess.Subscribe(ctx, uri)
		} else {
			err = sess.Unsubscribe(ctx, uri)
		}
		return resSubMsg{server: server, uri: uri, on: on, err: err}
	}, func(err error) tea.Msg {
		return resSubMsg{server: server, uri: uri, on: on, err: err}
	})
}

// saveResource writes each content of the read to a file of its own (in a command;
// savefile refuses to follow a symlink).
func (m *model) saveResource(r *resRead) tea.Cmd {
	if r == nil || r.result == nil {
		m.notice = "nothing to save yet"
		return nil
	}
	base := m.opts.SaveDir
	if base == "" {
		base = "."
	}
	res := r.result
	return func() tea.Msg {
		dir, err := os.MkdirTemp(base, "mcpscope-resource-")
		if err != nil {
			return noticeMsg{text: "save failed: " + err.Error()}
		}
		var saved []string
		var problems []string
		for i, c := range res.Contents {
			var data []byte
			ext := extForName(c.URI, c.MIMEType)
			switch {
			case c.HasText:
				data = []byte(c.Text)
			case c.HasBlob:
				b, err := decodeBlob(c.Blob)
				if err != nil {
					problems = append(problems, fmt.Sprintf("contents %d: %v", i+1, err))
					continue
				}
				data = b
			default:
				data, ext = c.Raw, ".json"
			}
			p, err := savefile.Write(dir, fmt.Sprintf("%d-%s%s", i+1, savefile.Name(path.Base(strings.TrimSuffix(c.URI, "/"))), ext), data, 0o644)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			saved = append(saved, p)
		}
		text := fmt.Sprintf("saved %s to %s", plural.Count(len(saved), "file"), dir)
		if len(saved) == 1 {
			text = "saved " + saved[0]
		}
		if len(problems) > 0 {
			text += "; " + strings.Join(problems, "; ")
		}
		return noticeMsg{text: safe(text)}
	}
}

// extForName picks a file extension: the URI's own when it has one, else the MIME
// type's.
func extForName(uri, mime string) string {
	if e := path.Ext(uri); e != "" && len(e) <= 6 && !strings.ContainsAny(e, "/?#") {
		return ""
	}
	switch {
	case mime == "application/json" || strings.HasSuffix(mime, "+json"):
		return ".json"
	case mime == "text/markdown":
		return ".md"
	case strings.HasPrefix(mime, "text/"):
		return ".txt"
	}
	return extFor(mime, nil)
}

// decodeBlob decodes base64 as servers send it (padded, unpadded or URL-safe).
func decodeBlob(s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err == nil {
		return b, nil
	}
	if b2, err2 := base64.RawStdEncoding.DecodeString(s); err2 == nil {
		return b2, nil
	}
	if b2, err2 := base64.URLEncoding.DecodeString(s); err2 == nil {
		return b2, nil
	}
	return nil, fmt.Errorf("the blob is not valid base64: %v", err)
}

// --- templates ---

// openTemplate shows a template's variables as a form: one string field per
// variable, completed as the user types by the argForm engine (complete.go) that
// prompt arguments use, with ref/resource and the URI template as the reference.
func (m *model) openTemplate(server string, t client.ResourceTemplate) tea.Cmd {
	tf := &tplForm{server: server, t: t}
	m.res.tpl = tf
	vars, err := t.Variables()
	if err != nil {
		tf.err = err.Error()
		return nil
	}
	fields := make([]argField, 0, len(vars))
	for _, name := range vars {
		fields = append(fields, argField{Name: name})
	}
	ref := client.CompletionRef{Type: "ref/resource", URI: t.URITemplate}
	tf.form = newArgForm(server, ref, fields, completesOf(m.server(server)), "reads the URI")
	return tf.form.open() // what the first field may hold, before typing
}

// closeTemplate closes the template form; its completion in flight is cancelled.
func (m *model) closeTemplate() {
	if tf := m.res.tpl; tf != nil && tf.form != nil {
		tf.form.close()
	}
	m.res.tpl = nil
}

// onTemplateKey handles keys in a template's form: the form's own first (typing,
// tab, the pick list's ↓/↑, enter on a picked value, esc on the pick list), then
// enter reads the expanded URI and esc goes back to the list.
func (m *model) onTemplateKey(k tea.KeyPressMsg) tea.Cmd {
	tf := m.res.tpl
	if tf.form != nil {
		if cmd, handled := tf.form.key(k); handled {
			return cmd
		}
	}
	switch {
	case key.Matches(k, m.keys.Back):
		m.closeTemplate()
	case tf.form != nil && key.Matches(k, m.keys.Open):
		uri, err := tf.t.Expand(tf.form.Values())
		if err != nil {
			m.notice = safe(err.Error())
			return nil
		}
		m.closeTemplate()
		return m.startRead(tf.server, uri, tf.t.DisplayName(), false)
	}
	return nil
}

// --- drawing ---

// resourcesView draws the tab: the template form, the read shown, or the list.
func (m *model) resourcesView(width, height int) string {
	v := &m.res
	if v.dirty {
		v.rebuild(m)
	}
	switch {
	case v.tpl != nil:
		return m.templateView(width, height)
	case v.open != nil:
		return m.readView(width, height)
	}
	if len(v.rows) == 0 && !v.filtering {
		if !m.hasResources() {
			return m.st.muted.Render("No connected server offers resources (capabilities.resources).")
		}
		if v.filter != "" {
			return m.st.muted.Render("Nothing matches the filter " + safe(v.filter) + " · esc clears it")
		}
		return m.st.muted.Render("listing resources…")
	}
	var head []string
	if v.filtering || v.filter != "" {
		line := "/" + safe(v.filter)
		if v.filtering {
			line += "▏"
		}
		head = append(head, m.st.accent.Render(line))
	}
	for _, s := range m.servers {
		if l := v.lists[s.name]; l != nil {
			for _, p := range l.problems {
				head = append(head, m.st.warn.Render("⚠ "+oneLine(safe(prefixed(m, s.name, p)), width*2)))
			}
		}
	}
	if len(head) > height/3 {
		head = append(head[:height/3], m.st.muted.Render(fmt.Sprintf("… and %d more problems", len(head)-height/3)))
	}
	detail := m.resDetail(width)
	listH := max(height-len(head)-len(detail)-2, 3)
	rows := v.list.draw(len(v.rows), listH, func(i int, sel bool) string {
		return m.resRowLine(v.rows[i], sel, width)
	})
	out := append(head, rows...)
	for len(out) < len(head)+listH {
		out = append(out, "")
	}
	out = append(out, m.st.muted.Render(strings.Repeat("─", max(width, 1))))
	out = append(out, detail...)
	sub := "u subscribe"
	if r, ok := v.selected(); ok && r.kind == resRowResource && v.subs[resKey{r.server, v.resource(r).URI}] {
		sub = "u unsubscribe" // u toggles: say what it does now
	}
	out = append(out, m.st.muted.Render("enter reads · "+sub+" · / filter · r refresh"))
	if len(out) > height {
		out = out[:max(height, 0)]
	}
	return strings.Join(out, "\n")
}

func prefixed(m *model, server, s string) string {
	if m.several() {
		return server + ": " + s
	}
	return s
}

func (m *model) resRowLine(r resRow, sel bool, width int) string {
	v := &m.res
	var line string
	switch r.kind {
	case resRowServer:
		line = m.st.accent.Render("▾ " + safe(r.text))
		return truncate(line, width)
	case resRowNote:
		line = m.st.muted.Render("  " + safe(r.text))
		return truncate(line, width)
	case resRowSection:
		return truncate(m.st.accent.Render("  "+r.text), width)
	case resRowResource:
		res := v.resource(r)
		meta := orNone(res.MIMEType)
		if res.Size != nil {
			meta += ", " + wire.HumanBytes(*res.Size)
		}
		line = cursorMark(sel) + safe(res.DisplayName()) + "  " + m.st.muted.Render(safe(res.URI)+"  "+safe(meta))
		if v.subs[resKey{r.server, res.URI}] {
			line += m.st.ok.Render("  ● subscribed")
		}
		if n := v.updates[resKey{r.server, res.URI}]; n > 0 {
			line += m.st.warn.Render(fmt.Sprintf("  ↻ updated ×%d", n))
		}
	case resRowTemplate:
		t := v.template(r)
		line = cursorMark(sel) + safe(t.DisplayName()) + "  " + m.st.muted.Render(safe(t.URITemplate))
	}
	if sel {
		line = m.st.selected.Render(truncate(line, width))
	}
	return truncate(line, width)
}

// resDetail describes the selected row: name, title, URI, MIME type, size,
// annotations, description.
func (m *model) resDetail(width int) []string {
	v := &m.res
	r, ok := v.selected()
	if !ok {
		return nil
	}
	var lines []string
	field := func(k, val string) {
		if val != "" {
			lines = append(lines, m.st.muted.Render(k+" ")+safe(val))
		}
	}
	var desc string
	switch r.kind {
	case resRowResource:
		res := v.resource(r)
		field("name", res.Name)
		field("title", res.Title)
		field("uri", res.URI)
		field("mime", res.MIMEType)
		if res.Size != nil {
			field("size", fmt.Sprintf("%s (%d bytes)", wire.HumanBytes(*res.Size), *res.Size))
		}
		field("annotations", annotationsText(res.Annotations))
		if v.subs[resKey{r.server, res.URI}] {
			lines = append(lines, m.st.ok.Render("● subscribed: updates re-read it while it is open"))
		}
		if n := v.updates[resKey{r.server, res.URI}]; n > 0 {
			lines = append(lines, m.st.warn.Render(fmt.Sprintf("↻ updated %s (notifications/resources/updated)", plural.Count(n, "time"))))
		}
		desc = res.Description
		for _, p := range res.Problems {
			lines = append(lines, m.st.warn.Render("⚠ "+safe(p)))
		}
	case resRowTemplate:
		t := v.template(r)
		field("name", t.Name)
		field("title", t.Title)
		field("template", t.URITemplate)
		field("mime", t.MIMEType)
		field("annotations", annotationsText(t.Annotations))
		if vars, err := t.Variables(); err == nil {
			field("variables", strings.Join(vars, ", "))
		}
		desc = t.Description
		for _, p := range t.Problems {
			lines = append(lines, m.st.warn.Render("⚠ "+safe(p)))
		}
	default:
		return nil
	}
	if desc != "" {
		d := wrapText(desc, width)
		if len(d) > 3 {
			d = append(d[:3], "…")
		}
		lines = append(lines, d...)
	}
	for i := range lines {
		lines[i] = truncate(lines[i], width)
	}
	return lines
}

// annotationsText shows resource annotations: audience, priority, lastModified, and
// anything else as JSON.
func annotationsText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return string(raw)
	}
	var parts []string
	var a struct {
		Audience     []string `json:"audience"`
		Priority     *float64 `json:"priority"`
		LastModified string   `json:"lastModified"`
	}
	_ = json.Unmarshal(raw, &a)
	if len(a.Audience) > 0 {
		parts = append(parts, "audience "+strings.Join(a.Audience, ","))
	}
	if a.Priority != nil {
		parts = append(parts, fmt.Sprintf("priority %g", *a.Priority))
	}
	if a.LastModified != "" {
		parts = append(parts, "modified "+a.LastModified)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		switch k {
		case "audience", "priority", "lastModified":
		default:
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k+" "+oneLine(string(m[k]), 60))
	}
	return strings.Join(parts, " · ")
}

// readView shows the read: a head line, then each content by MIME type.
func (m *model) readView(width, height int) string {
	v := &m.res
	r := v.open
	if v.bodyKey.r != r || v.bodyKey.width != width || v.bodyKey.ver != r.ver {
		v.bodyKey.r, v.bodyKey.width, v.bodyKey.ver = r, width, r.ver
		v.body.setSource(m.readDoc(r, width))
	}
	sub := "u subscribe"
	if v.subs[resKey{r.server, r.uri}] {
		sub = "u unsubscribe" // u toggles: say what it does now
	}
	hint := m.st.muted.Render("esc back · s save · " + sub + " · r re-read · v raw")
	return v.body.view(max(height-1, 1)) + "\n" + hint
}

// readDoc renders a read; big texts are wrapped only as far as they are shown.
func (m *model) readDoc(r *resRead, width int) *doc {
	st := m.st
	d := &doc{width: width, wraps: r.wraps}
	head := st.title.Render(safe(r.title))
	if r.title != r.uri {
		head += "  " + st.muted.Render(safe(r.uri))
	}
	if m.several() {
		head = st.muted.Render(safe(r.server)+"/") + head
	}
	if r.elapsed > 0 {
		head += st.muted.Render("  " + r.elapsed.Round(time.Millisecond).String())
	}
	if m.res.subs[resKey{r.server, r.uri}] {
		head += st.ok.Render("  ● subscribed")
	}
	d.add(head)
	if r.updates > 0 {
		d.add(st.warn.Render(fmt.Sprintf("↻ updated (%s, last at %s): re-read", plural.Count(r.updates, "notification"), r.updated.Format("15:04:05"))))
	}
	switch {
	case r.running:
		d.add(st.muted.Render("reading…"))
		return d
	case r.err != nil:
		var rpc *client.RPCError
		if asRPC(r.err, &rpc) {
			d.add(st.err.Render(fmt.Sprintf("JSON-RPC error %d: the server could not read it", rpc.Code)))
			d.add(wrapText(rpc.Message, width)...)
			if len(rpc.Data) > 0 {
				d.add(jsonLines(st, rpc.Data, width)...)
			}
		} else {
			d.add(st.err.Render("The read failed"))
			d.add(wrapText(r.err.Error(), width)...)
		}
		return d
	}
	res := r.result
	for _, p := range res.Problems {
		d.add(st.warn.Render("⚠ " + safe(p)))
	}
	if m.showRaw {
		d.add("", st.accent.Render("── raw result "))
		d.addJSON(st, res.Raw)
		return d
	}
	if len(res.Contents) == 0 {
		d.add(st.muted.Render("(no contents)"))
	}
	for i, c := range res.Contents {
		if len(res.Contents) > 1 || c.URI != r.uri {
			d.add("", st.accent.Render(fmt.Sprintf("── [%d/%d] ", i+1, len(res.Contents)))+st.muted.Render(safe(c.URI)+"  "+safe(orNone(c.MIMEType))))
		} else {
			d.add(st.muted.Render(safe(orNone(c.MIMEType))))
		}
		switch {
		case c.HasText:
			addTextByMIME(d, st, c.MIMEType, c.URI, c.Text, width)
		case c.HasBlob:
			d.add(blobLines(st, c)...)
			if pic := r.pictures[i]; pic != nil {
				d.add(pic.lines()...)
			}
		default:
			d.add(st.warn.Render("⚠ " + safe(orDefault(c.Problem, "contents of an unknown shape")) + " (shown raw)"))
			d.add(jsonLines(st, c.Raw, width)...)
		}
	}
	return d
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// addTextByMIME shows a text by its MIME type: JSON highlighted, Markdown laid out
// for reading, anything else as text. Big texts are shown as they are, wrapped on
// demand.
func addTextByMIME(d *doc, st styles, mime, uri, text string, width int) {
	if len(text) >= bigText {
		d.addText(st, text)
		return
	}
	base := strings.TrimSpace(strings.SplitN(mime, ";", 2)[0])
	switch {
	case base == "application/json" || strings.HasSuffix(base, "+json") || (base == "" && strings.HasSuffix(uri, ".json")):
		if json.Valid([]byte(text)) {
			d.add(jsonLines(st, json.RawMessage(strings.TrimSpace(text)), width)...)
			return
		}
		d.add(st.warn.Render("⚠ declared JSON, but it does not parse; shown as text"))
		d.add(wrapHard(safeText(text), width)...)
	case base == "text/markdown" || base == "text/x-markdown" || (base == "" && strings.HasSuffix(uri, ".md")):
		d.add(markdownLines(st, text, width)...)
	default:
		d.add(wrapWords(safeText(text), width)...)
	}
}

// markdownLines lays Markdown out for reading in a terminal: headings stand out,
// list bullets become •, code blocks are indented, the rest wraps at words.
func markdownLines(st styles, text string, width int) []string {
	var out []string
	inCode := false
	for _, line := range strings.Split(safeText(text), "\n") {
		line = strings.TrimRight(line, "\r")
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inCode = !inCode
			continue
		}
		if inCode {
			for _, l := range wrapHard(line, max(width-4, 1)) {
				out = append(out, st.muted.Render("  │ ")+l)
			}
			continue
		}
		switch {
		case strings.HasPrefix(t, "#"):
			level := len(t) - len(strings.TrimLeft(t, "#"))
			h := strings.TrimSpace(t[level:])
			if level == 1 {
				out = append(out, st.title.Render(h))
				out = append(out, st.accent.Render(strings.Repeat("═", min(width, max(len([]rune(h)), 1)))))
			} else {
				out = append(out, st.accent.Render(h))
			}
		case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "+ "):
			indent := len(line) - len(strings.TrimLeft(line, " "))
			for i, w := range wrapWords(t[2:], max(width-indent-2, 8)) {
				lead := strings.Repeat(" ", indent) + "• "
				if i > 0 {
					lead = strings.Repeat(" ", indent+2)
				}
				out = append(out, lead+w)
			}
		case t == "---" || t == "***":
			out = append(out, st.muted.Render(strings.Repeat("─", max(min(width, 40), 1))))
		default:
			out = append(out, wrapWords(line, width)...)
		}
	}
	return out
}

// blobLines describe a blob: its size, its MIME type, an image's dimensions.
func blobLines(st styles, c client.ResourceContents) []string {
	data, err := decodeBlob(c.Blob)
	if err != nil {
		return []string{st.warn.Render(safe(err.Error())), st.muted.Render(fmt.Sprintf("%s of base64", wire.HumanBytes(int64(len(c.Blob)))))}
	}
	desc := fmt.Sprintf("binary, %s, %s", safe(orNone(c.MIMEType)), wire.HumanBytes(int64(len(data))))
	if strings.HasPrefix(c.MIMEType, "image/") || c.MIMEType == "" {
		if cfg, format, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
			desc += fmt.Sprintf(", %d×%d %s", cfg.Width, cfg.Height, format)
		}
	}
	return []string{desc, st.muted.Render("s saves it to a file")}
}

// templateView draws a template's form (with the focused field's pick list, as a
// prompt's form draws it) and the URI it expands to.
func (m *model) templateView(width, height int) string {
	tf := m.res.tpl
	st := m.st
	lines := []string{st.title.Render(safe(tf.t.DisplayName())) + "  " + st.muted.Render(safe(tf.t.URITemplate))}
	if tf.err != "" {
		lines = append(lines, "", st.err.Render("This template cannot be used"))
		lines = append(lines, wrapText(tf.err, width)...)
		lines = append(lines, "", st.muted.Render("esc back"))
		return strings.Join(lines, "\n")
	}
	if tf.t.Description != "" {
		lines = append(lines, wrapText(tf.t.Description, width)...)
	}
	if uri, err := tf.t.Expand(tf.form.Values()); err == nil {
		lines = append(lines, st.muted.Render("reads ")+safe(uri))
	}
	lines = append(lines, "")
	hint := "enter reads · esc back"
	if len(tf.form.fields) > 1 {
		hint = "enter reads · tab moves · esc back"
	}
	if !tf.form.complete && len(tf.form.fields) > 0 {
		hint += " · (the server offers no completion)"
	}
	formH := max(height-len(lines)-2, 2)
	lines = append(lines, tf.form.view(st, width, formH, m.focus == paneRight)...)
	lines = append(lines, "", st.muted.Render(hint))
	return clampLines(strings.Join(lines, "\n"), height, width)
}

// scroll moves the list, or the read shown.
func (v *resourcesView) scroll(delta int) {
	if v.open != nil {
		v.body.scroll(delta)
		return
	}
	v.list.moveBy(delta, len(v.rows))
	v.settle(max(min(delta, 1), -1))
}

// resourcesOnStatus lists a server that (re)connected while the tab is open.
func (m *model) resourcesOnStatus() tea.Cmd {
	if m.tab != tabResources || m.res.lists == nil {
		return nil
	}
	return m.enterResources()
}

// cursorMark marks the selected row, as the tool list does.
func cursorMark(sel bool) string {
	if sel {
		return "• "
	}
	return "  "
}
