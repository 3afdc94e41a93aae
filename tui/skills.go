package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
)

// skillsView is the Skills tab (no digit: ]/[ and :skills reach it): the skills of
// every server that declares the skills extension, with their frontmatter. Opening a
// skill reads its SKILL.md and lists its files; opening a file reads it. Every read
// is checked against the size and digest of the listing, and a file that fails is
// shown as an error, its content unused. Nothing is read before the user opens it.
type skillsView struct {
	lists  map[string]*skillList // by server
	rows   []skillRow
	list                         // the cursor over rows (list.go)
	opened map[string]*skillOpen // by server and skill URI
	shown  *skillShown           // what the lower part shows
	out    scroller
	outKey struct {
		s     *skillShown
		width int
	}
	keys skillKeys
}

type skillList struct {
	lazyList
	items    []client.Skill
	problems []string
	err      error
}

// skillRow is a server's header (skill < 0), a skill (file < 0) or one of its files.
type skillRow struct {
	server string
	skill  int
	file   int
}

// skillOpen is a skill whose SKILL.md was asked for. A skill listed as "dynamic"
// has its files found when it is opened (resources/directory/read), kept here.
type skillOpen struct {
	loading  bool
	expanded bool
	md       *client.SkillFileContent
	err      error
	found    []client.SkillFile // a dynamic skill's files (SKILL.md among them)
	dirNote  string             // why a dynamic skill's files are not all there
}

// skillShown is a file read (SKILL.md or another), shown below the list.
type skillShown struct {
	server  string
	file    client.SkillFile
	loading bool
	text    string
	err     error
}

type skillKeys struct {
	Open, Back, Refresh, Scroll, ScrollUp key.Binding
}

func defaultSkillKeys() skillKeys {
	return skillKeys{
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open the skill (SKILL.md) or the file")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close the file shown")),
		Refresh:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "refetch skills")),
		Scroll:   key.NewBinding(key.WithKeys("pgup", "pgdown"), key.WithHelp("pgup/pgdn", "scroll the file shown")),
		ScrollUp: key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "scroll the file up")),
	}
}

type (
	skillsMsg struct {
		server string
		gen    int
		list   *client.List[client.Skill]
		err    error
	}
	skillReadMsg struct {
		shown *skillShown
		open  *skillOpen // set when the file is the skill's SKILL.md
		c     client.SkillFileContent
		err   error
		// A dynamic skill opened: the files its directories hold, and why they may
		// not all be there (a walk's problems, a failed read, no directoryRead).
		found   []client.SkillFile
		dirNote string
	}
)

func (msg skillsMsg) handle(m *model) tea.Cmd    { return m.onSkills(msg) }
func (msg skillReadMsg) handle(m *model) tea.Cmd { return m.onSkillRead(msg) }

// declaresSkills reports whether a connected server declared the skills extension.
func declaresSkills(s *server) bool {
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if s == nil || json.Unmarshal(s.info().Capabilities, &caps) != nil {
		return false
	}
	v, ok := caps.Extensions[client.SkillsExtension]
	return ok && string(v) != "null"
}

// hasSkills reports whether the Skills tab has something to show this session.
func (m *model) hasSkills() bool {
	for _, s := range m.servers {
		if s.callable() && declaresSkills(s) {
			return true
		}
	}
	return false
}

// ensureSkills lists the skills (skills/list only) of the servers that declare the
// extension and have no list for their current connection; it runs when the tab is
// shown.
func (m *model) ensureSkills() tea.Cmd {
	v := &m.skills
	if v.lists == nil {
		v.lists, v.opened = map[string]*skillList{}, map[string]*skillOpen{}
		v.keys = defaultSkillKeys()
	}
	return fetchMissing(m.servers, v.lists, declaresSkills, m.fetchSkills)
}

func (m *model) fetchSkills(s *server) tea.Cmd {
	if m.wb == nil {
		return nil
	}
	v := &m.skills
	// Each fetch starts afresh, on the same connection too (the user's refetch).
	v.lists[s.name] = &skillList{lazyList: lazyList{gen: s.reqGen(), loading: true}}
	for k := range v.opened {
		if strings.HasPrefix(k, s.name+"\x00") {
			delete(v.opened, k) // a new connection: what was read is read again
		}
	}
	if v.shown != nil && v.shown.server == s.name {
		v.shown = nil
	}
	v.rebuild(m)
	wb, name, gen := m.wb, s.name, s.reqGen()
	return sessionCmd(wb, name, 60*time.Second, func(ctx context.Context, sess *client.Session) tea.Msg {
		list, err := sess.Skills(ctx)
		return skillsMsg{server: name, gen: gen, list: list, err: err}
	}, func(err error) tea.Msg {
		return skillsMsg{server: name, gen: gen, err: err}
	})
}

func (m *model) onSkills(msg skillsMsg) tea.Cmd {
	v := &m.skills
	l, ok := answerFor(m, v.lists, msg.server, msg.gen)
	if !ok {
		return nil
	}
	l.loading, l.err = false, msg.err
	if msg.list != nil {
		l.items, l.problems = msg.list.Items, msg.list.Problems
	}
	if msg.err == nil {
		m.settleNotice(refetchingSkills, "skills refetched")
	}
	v.rebuild(m)
	return nil
}

func openKey(server, uri string) string { return server + "\x00" + uri }

// rebuild lays out the rows: servers (when several), skills, and the files of the
// skills opened.
func (v *skillsView) rebuild(m *model) {
	keep := skillRow{skill: -2}
	if v.cursor < len(v.rows) {
		keep = v.rows[v.cursor]
	}
	v.rows = v.rows[:0]
	for _, s := range m.servers {
		l := v.lists[s.name]
		if l == nil {
			continue
		}
		if m.several() {
			v.rows = append(v.rows, skillRow{server: s.name, skill: -1, file: -1})
		}
		for i, k := range l.items {
			v.rows = append(v.rows, skillRow{server: s.name, skill: i, file: -1})
			if o := v.opened[openKey(s.name, k.URI)]; o != nil && o.expanded {
				for j, f := range v.filesOf(s.name, k) {
					if f.URI != k.URI {
						v.rows = append(v.rows, skillRow{server: s.name, skill: i, file: j})
					}
				}
			}
		}
	}
	for i, r := range v.rows {
		if r == keep {
			v.cursor = i
		}
	}
	v.cursor = min(v.cursor, max(len(v.rows)-1, 0))
	if v.cursor < len(v.rows) && v.rows[v.cursor].skill < 0 && v.cursor+1 < len(v.rows) {
		v.cursor++
	}
}

// filesOf is a skill's files: the listing's, or, for a dynamic skill, those found
// in its directories when it was opened.
func (v *skillsView) filesOf(server string, k client.Skill) []client.SkillFile {
	if !k.Dynamic {
		return k.Files
	}
	if o := v.opened[openKey(server, k.URI)]; o != nil {
		return o.found
	}
	return nil
}

func (v *skillsView) skillAt(r skillRow) (client.Skill, bool) {
	l := v.lists[r.server]
	if l == nil || r.skill < 0 || r.skill >= len(l.items) {
		return client.Skill{}, false
	}
	return l.items[r.skill], true
}

// skillsKeys is the Skills tab's table. pgup/pgdn scroll the file shown, so the list
// moves with the other keys (ctrl+u/ctrl+d still page it).
func (m *model) skillsKeys() keyTable {
	v, k := &m.skills, m.keys
	if v.keys.Open.Keys() == nil {
		v.keys = defaultSkillKeys()
	}
	sk := v.keys
	move := func(kp tea.KeyPressMsg) tea.Cmd {
		before := v.cursor
		if v.keyMove(kp, k, len(v.rows)) && v.cursor < len(v.rows) && v.rows[v.cursor].skill < 0 {
			// A server's header: step past it.
			if v.cursor < before && v.cursor > 0 {
				v.cursor--
			} else if v.cursor+1 < len(v.rows) {
				v.cursor++
			}
		}
		return nil
	}
	return keyTable{
		name: "Skills",
		groups: [][]binding{
			{
				bind(sk.Open, func() tea.Cmd {
					if v.cursor >= len(v.rows) {
						return nil
					}
					return m.openSkillRow(v.rows[v.cursor])
				}),
				bind(sk.Back, act(func() { v.shown = nil })),
				bind(sk.Refresh, func() tea.Cmd {
					m.notice = refetchingSkills
					return fetchAll(m.servers, declaresSkills, m.fetchSkills)
				}),
				bindKey(sk.Scroll, func(kp tea.KeyPressMsg) tea.Cmd {
					d := max(m.height/2, 1)
					if key.Matches(kp, sk.ScrollUp) {
						d = -d
					}
					v.out.scroll(d)
					return nil
				}),
			},
			bindAll("", []key.Binding{k.Up, k.Down, k.Home, k.End}, move),
		},
		// ctrl+u and ctrl+d, the other keys of pgup and pgdn, page the list.
		rest: move,
	}
}

// openSkillRow opens a skill (reads SKILL.md, lists its files) or a file.
func (m *model) openSkillRow(r skillRow) tea.Cmd {
	v := &m.skills
	k, ok := v.skillAt(r)
	if !ok || m.wb == nil {
		return nil
	}
	s := m.server(r.server)
	if !s.callable() {
		m.notice = m.notConnected(s)
		return nil
	}
	wb, server := m.wb, r.server
	if r.file >= 0 {
		f := v.filesOf(server, k)[r.file]
		sh := &skillShown{server: server, file: f, loading: true}
		v.shown = sh
		return sessionCmd(wb, server, 60*time.Second, func(ctx context.Context, sess *client.Session) tea.Msg {
			c, err := sess.ReadSkillFile(ctx, f)
			return skillReadMsg{shown: sh, c: c, err: err}
		}, func(err error) tea.Msg {
			return skillReadMsg{shown: sh, err: err}
		})
	}
	o := v.opened[openKey(server, k.URI)]
	if o != nil && !o.loading && o.err == nil {
		// Opened before: enter folds or unfolds its files, and shows SKILL.md again.
		o.expanded = !o.expanded
		v.shown = &skillShown{server: server, file: mdEntry(k), text: o.md.Text}
		v.rebuild(m)
		return nil
	}
	o = &skillOpen{loading: true}
	v.opened[openKey(server, k.URI)] = o
	sh := &skillShown{server: server, file: mdEntry(k), loading: true}
	v.shown = sh
	return sessionCmd(wb, server, 60*time.Second, func(ctx context.Context, sess *client.Session) tea.Msg {
		c, err := sess.OpenSkill(ctx, k)
		msg := skillReadMsg{shown: sh, open: o, c: c, err: err}
		if err == nil && k.Dynamic {
			msg.found, msg.dirNote = dynamicFiles(ctx, sess, k)
		}
		return msg
	}, func(err error) tea.Msg {
		return skillReadMsg{shown: sh, open: o, err: err}
	})
}

// dynamicFiles finds a dynamic skill's files (in the command that opens it), and
// says why some may be missing.
func dynamicFiles(ctx context.Context, sess *client.Session, k client.Skill) ([]client.SkillFile, string) {
	if !sess.HasDirectoryRead() {
		return nil, "the server lists this skill's files as \"dynamic\" and does not declare directoryRead: only SKILL.md can be read"
	}
	files, problems, err := sess.SkillFiles(ctx, k)
	if err != nil {
		problems = append(problems, err.Error())
	}
	return files, strings.Join(problems, "; ")
}

// mdEntry is the listing's entry for the skill's SKILL.md (its URI alone when the
// listing has none).
func mdEntry(k client.Skill) client.SkillFile {
	for _, f := range k.Files {
		if f.URI == k.URI {
			return f
		}
	}
	return client.SkillFile{URI: k.URI, Size: -1}
}

func (m *model) onSkillRead(msg skillReadMsg) tea.Cmd {
	v := &m.skills
	sh := msg.shown
	sh.loading, sh.err = false, msg.err
	if msg.err == nil {
		sh.text = msg.c.Text
	}
	if o := msg.open; o != nil {
		o.loading, o.err = false, msg.err
		if msg.err == nil {
			c := msg.c
			o.md, o.expanded = &c, true
			o.found, o.dirNote = msg.found, msg.dirNote
			if o.dirNote != "" && v.shown == sh {
				m.notice = safe(o.dirNote)
			}
		}
		v.rebuild(m)
	}
	var ve *client.VerifyError
	if errors.As(msg.err, &ve) && v.shown == sh {
		m.notice = "a skill file failed its check against the listing; its content is not shown"
	}
	return nil
}

// skillsView draws the tab: the rows, then the file shown or the selected skill's
// frontmatter and files.
func (m *model) skillsView(width, height int) string {
	v := &m.skills
	st := m.st
	if !m.hasSkills() {
		return st.muted.Render("No connected server declares the skills extension (" + client.SkillsExtension + ").")
	}
	lines := []string{st.muted.Render("enter opens a skill (reads SKILL.md) or a file · esc closes the file · r refetches")}
	for _, s := range m.servers {
		l := v.lists[s.name]
		if l == nil {
			continue
		}
		prefix := ""
		if m.several() {
			prefix = s.name + ": "
		}
		if l.loading {
			lines = append(lines, m.spin()+" "+safe(prefix)+"listing skills…")
		}
		if l.err != nil {
			lines = append(lines, st.err.Render(truncate(safe(prefix+"skills/list failed: "+l.err.Error()), width)))
		}
		if !l.loading && l.err == nil && len(l.items) == 0 {
			lines = append(lines, st.muted.Render(safe(prefix)+"the server lists no skills"))
		}
	}
	listH := min(len(v.rows), max((height-len(lines))/2, 3))
	lines = append(lines, v.draw(len(v.rows), listH, func(i int, selected bool) string {
		return v.rowLine(st, v.rows[i], selected, width)
	})...)
	room := height - len(lines) - 1
	if room <= 0 {
		return clampLines(strings.Join(lines, "\n"), height, width)
	}
	lines = append(lines, "")
	if sh := v.shown; sh != nil {
		lines = append(lines, m.shownView(sh, width, room))
	} else if v.cursor < len(v.rows) {
		if k, ok := v.skillAt(v.rows[v.cursor]); ok {
			d := skillDetail(st, k, v.opened[openKey(v.rows[v.cursor].server, k.URI)], width)
			lines = append(lines, d[:min(len(d), room)]...)
		}
	}
	return clampLines(strings.Join(lines, "\n"), height, width)
}

func (v *skillsView) rowLine(st styles, r skillRow, selected bool, width int) string {
	if r.skill < 0 {
		return st.accent.Render(truncate("▾ "+safe(r.server), width))
	}
	k, _ := v.skillAt(r)
	var line string
	if r.file >= 0 {
		f := v.filesOf(r.server, k)[r.file]
		rel := strings.TrimPrefix(f.URI, strings.TrimSuffix(k.URI, "SKILL.md"))
		line = "    " + safe(rel) + st.muted.Render("  "+sizeWord(f.Size))
	} else {
		mark := "▸ "
		o := v.opened[openKey(r.server, k.URI)]
		switch {
		case o != nil && o.loading:
			mark = "… "
		case o != nil && o.err != nil:
			mark = st.err.Render("✗ ")
		case o != nil && o.expanded:
			mark = "▾ "
		}
		name := k.Name
		if name == "" {
			name = k.URI
		}
		line = mark + safe(name)
		if d := k.Description(); d != "" {
			line += st.muted.Render("  " + safe(oneLine(d, 200)))
		}
		if len(k.Problems) > 0 {
			line += st.warn.Render(fmt.Sprintf("  ⚠ %d", len(k.Problems)))
		}
	}
	if selected {
		return st.selected.Render("›") + " " + truncate(line, width-2)
	}
	return "  " + truncate(line, width-2)
}

func sizeWord(n int64) string {
	if n < 0 {
		return "size not listed"
	}
	return wire.HumanBytes(n)
}

// skillDetail is a skill as listed: its URI, its frontmatter, its files and what
// is wrong with the entry. Nothing here was read from the skill itself.
func skillDetail(st styles, k client.Skill, o *skillOpen, width int) []string {
	out := []string{st.title.Render(safe(k.Name)) + st.muted.Render("  "+safe(k.URI))}
	out = append(out, st.accent.Render("frontmatter"))
	var fm map[string]json.RawMessage
	if json.Unmarshal(k.Frontmatter, &fm) == nil && len(fm) > 0 {
		keys := make([]string, 0, len(fm))
		for key := range fm {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			var s string
			val := string(fm[key])
			if json.Unmarshal(fm[key], &s) == nil {
				val = s
			}
			out = append(out, wrapText(key+": "+val, width)...)
		}
	} else {
		out = append(out, st.muted.Render("(none)"))
	}
	if k.Dynamic {
		switch {
		case o == nil || o.md == nil:
			out = append(out, st.accent.Render("files")+st.muted.Render("  dynamic: the server lists none; enter reads SKILL.md and finds them (resources/directory/read)"))
		default:
			out = append(out, st.accent.Render(fmt.Sprintf("files (%d)", len(o.found)))+st.muted.Render("  dynamic: found by resources/directory/read, no digest to check"))
			for _, f := range o.found {
				out = append(out, truncate("  "+safe(f.URI)+st.muted.Render("  "+sizeWord(f.Size)), width))
			}
		}
		if o != nil && o.dirNote != "" {
			out = append(out, st.warn.Render(truncate("⚠ "+safe(o.dirNote), width)))
		}
	} else {
		out = append(out, st.accent.Render(fmt.Sprintf("files (%d)", len(k.Files)))+st.muted.Render("  enter reads SKILL.md and lists them"))
		for _, f := range k.Files {
			d := f.Digest
			if len(d) > 19 {
				d = d[:19] + "…"
			}
			out = append(out, truncate("  "+safe(f.URI)+st.muted.Render("  "+sizeWord(f.Size)+"  "+safe(d)), width))
		}
	}
	for _, p := range k.Problems {
		out = append(out, st.warn.Render(truncate("⚠ "+safe(p), width)))
	}
	return out
}

// shownView is a file read: its text, or why it was refused.
func (m *model) shownView(sh *skillShown, width, height int) string {
	st := m.st
	head := st.accent.Render("── "+safe(sh.file.URI)+" ") + st.muted.Render(sizeWord(sh.file.Size))
	switch {
	case sh.loading:
		return head + "\n" + m.spin() + " reading…"
	case sh.err != nil:
		var ve *client.VerifyError
		lines := []string{head}
		if errors.As(sh.err, &ve) {
			lines = append(lines, st.err.Render("✗ verification failed: the file does not match the listing"))
			lines = append(lines, wrapText(ve.Reason, width)...)
			lines = append(lines, st.muted.Render("its content is not shown: a file that fails its digest or size must not be used"))
		} else {
			lines = append(lines, st.err.Render("✗ reading failed"))
			lines = append(lines, wrapText(sh.err.Error(), width)...)
		}
		return strings.Join(lines, "\n")
	}
	v := &m.skills
	if v.outKey.s != sh || v.outKey.width != width {
		d := &doc{width: width}
		ok := "✓ size and digest match the listing"
		if sh.file.Digest == "" {
			ok = "(the listing gave no digest to check)"
			if sh.file.Unlisted {
				ok = "(dynamic: no digest to check)"
			}
		}
		d.add(head+"  "+st.ok.Render(ok), "")
		d.addText(st, sh.text)
		v.out.setSource(d)
		v.out.top()
		v.outKey.s, v.outKey.width = sh, width
	}
	return v.out.view(height)
}
