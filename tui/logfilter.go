package tui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpscope/mcpscope/client"
)

// The Logs tab's level and logger filters, and the key that sets a server's level
// (logging/setLevel in the 2025 era, each request's _meta logLevel in 2026-07-28).
//
// The lines stay in the Logs lineView, each with its level and logger (heldLine): the
// spool counts them in --keep and spills them with the line. Changing a filter
// matches the lines in memory at once and the spilled ones in a command
// (scanSpilled); until it is back, the header says the older lines are searched.

// levelUnknown marks a line whose level was not a known one (always shown).
const levelUnknown = math.MaxUint8

type logFilter struct {
	names []string // logger names seen ("" first): a line's logger is an index into it
	ids   map[string]uint32

	min       int     // shown: level index ≥ min (0 shows all)
	logger    string  // shown: logger contains this, case-insensitively ("" all)
	typing    bool    // the logger filter is being typed
	rows      []int32 // the lines shown while a filter is on
	view      scroller
	forServer string // the server filter the rows were found with
	// The scan of the spilled lines for the filter in force (gen; bumped by every
	// refilter, an older scan stops and its answer is dropped).
	gen      atomic.Int64
	scanning bool
	picking  bool // the level picker for the server is open
	pick     int  // its choice
}

// maxLoggers bounds the logger names kept; later new ones share one slot.
const maxLoggers = 4096

func (f *logFilter) active() bool { return f.min > 0 || f.logger != "" }

// takesKeys reports whether the Logs tab's keys are its own now, not commands: the
// logger field is typed, or the level picker is open (its keys until enter or esc;
// q, the digits and ]/[ do not act behind it).
func (f *logFilter) takesKeys() bool { return f.typing || f.picking }

func levelIndex(level string) uint8 {
	for i, l := range client.LogLevels {
		if strings.EqualFold(l, level) {
			return uint8(i)
		}
	}
	return levelUnknown
}

func (f *logFilter) loggerID(name string) uint32 {
	if f.ids == nil {
		f.ids = map[string]uint32{"": 0}
		f.names = []string{""}
	}
	if id, ok := f.ids[name]; ok {
		return id
	}
	if len(f.names) >= maxLoggers {
		name = "(other loggers)"
		if id, ok := f.ids[name]; ok {
			return id
		}
	}
	id := uint32(len(f.names))
	f.names = append(f.names, name)
	f.ids[name] = id
	return id
}

// logMatch is the filter in force (with the server filter), copied so that a scan
// can use it off the UI goroutine.
type logMatch struct {
	min     int
	logger  string // lower case
	names   []string
	server  string // "" all
	servers []string
}

func (f *logFilter) match(v *lineView) logMatch {
	return logMatch{min: f.min, logger: strings.ToLower(f.logger), names: f.names[:len(f.names):len(f.names)],
		server: v.server, servers: v.names[:len(v.names):len(v.names)]}
}

func (k logMatch) pass(l heldLine) bool {
	if lv := l.level; lv != levelUnknown && int(lv) < k.min {
		return false
	}
	if k.logger != "" && (int(l.logger) >= len(k.names) || !strings.Contains(strings.ToLower(k.names[l.logger]), k.logger)) {
		return false
	}
	return k.server == "" || (int(l.srv) < len(k.servers) && k.servers[l.srv] == k.server)
}

// refilter finds the lines shown, with v's server filter too: those in memory now,
// the spilled ones by the command it returns (merged by logsScanMsg).
func (f *logFilter) refilter(v *lineView) tea.Cmd {
	gen := f.gen.Add(1) // a scan still running stops
	f.rows, f.scanning = f.rows[:0], false
	f.forServer = v.server
	if !f.active() || v.buf == nil {
		return nil
	}
	f.view.follow = true
	b, k := v.buf, f.match(v)
	for i := b.InMemory(); i < b.Len(); i++ {
		if k.pass(b.At(i)) {
			f.rows = append(f.rows, int32(i))
		}
	}
	if b.InMemory() == 0 {
		return nil
	}
	f.scanning = true
	sp := b.Spilled()
	return func() tea.Msg {
		rows, err := scanSpilled(&f.gen, gen, sp, func(_ int, l heldLine) bool { return k.pass(l) })
		return logsScanMsg{gen: gen, rows: rows, err: err}
	}
}

// logsScanMsg is the Logs filter's scan of the spilled lines.
type logsScanMsg struct {
	gen  int64
	rows []int32
	err  error
}

func (msg logsScanMsg) handle(m *model) tea.Cmd {
	f := &m.logFilter
	if msg.gen != f.gen.Load() || !f.scanning {
		return nil
	}
	f.scanning = false
	if msg.err != nil && !errors.Is(msg.err, errStale) {
		m.notice = "reading older log lines back: " + msg.err.Error()
	}
	if len(msg.rows) > 0 {
		f.rows = append(msg.rows[:len(msg.rows):len(msg.rows)], f.rows...)
		if !f.view.follow {
			f.view.offset += len(msg.rows) // the lines in view stay in view
		}
	}
	return nil
}

// addLog puts a log line in the Logs tab with its level and logger.
func (m *model) addLog(level, logger, line string) { m.addLogFrom(level, logger, line, "") }

// addLogFrom is addLog for a line of one of several servers.
func (m *model) addLogFrom(level, logger, line, server string) {
	f := &m.logFilter
	l := heldLine{text: line, level: levelIndex(level), logger: f.loggerID(logger)}
	i := m.logs.addHeld(l, server)
	if f.active() && f.match(&m.logs).pass(m.logs.buf.At(i)) {
		f.rows = append(f.rows, int32(i))
	}
}

// filteredLogs is the filtered lines as a source for the scroller.
type filteredLogs struct {
	m *model
}

func (s filteredLogs) Count(limit int) int { return min(len(s.m.logFilter.rows), limit) }

func (s filteredLogs) Lines(from, to int) []string {
	rows := s.m.logFilter.rows
	to = min(to, len(rows))
	var out []string
	for i := from; i < to; i++ {
		out = append(out, s.m.logs.raw(int(rows[i])))
	}
	return out
}

// logsServer is the server whose level l sets: the one the screen is about.
func (m *model) logsServer() *server { return m.srv }

// logsKeys is the Logs tab's table: the logger field while it is typed (f is text
// there), the level picker while it is open (l), or the filters and the level.
func (m *model) logsKeys() keyTable {
	k, f := m.keys, &m.logFilter
	refilter := func(g func()) func() tea.Cmd { return func() tea.Cmd { g(); return f.refilter(&m.logs) } }
	if f.typing {
		return keyTable{
			name: "Logger filter",
			groups: [][]binding{{
				bind(relabel(k.SearchDone, "keep the logger filter"), refilter(func() { f.typing = false })),
				bind(relabel(k.SearchClear, "clear the logger filter"), refilter(func() { f.typing, f.logger = false, "" })),
				bind(k.Erase, refilter(func() {
					if r := []rune(f.logger); len(r) > 0 {
						f.logger = string(r[:len(r)-1])
					}
				})),
			}},
			rest: func(kp tea.KeyPressMsg) tea.Cmd { f.logger += kp.Text; return f.refilter(&m.logs) },
		}
	}
	if f.picking {
		return keyTable{name: "Log level", groups: [][]binding{{
			bind(relabel(k.Confirm, "set this level"), func() tea.Cmd {
				f.picking = false
				return m.setServerLevel(m.logsServer(), client.LogLevels[f.pick])
			}),
			bind(k.PickPrev, act(func() { f.pick = max(f.pick-1, 0) })),
			bind(k.PickNext, act(func() { f.pick = min(f.pick+1, len(client.LogLevels)-1) })),
			bind(relabel(k.Leave, "keep the level"), act(func() { f.picking = false })),
		}}}
	}
	n := len(client.LogLevels)
	return keyTable{name: "Logs", groups: [][]binding{
		{
			bind(k.LogLevelShown, refilter(func() { f.min = (f.min + 1) % n })),
			bind(k.LogLevelShownDown, refilter(func() { f.min = (f.min + n - 1) % n })),
			bind(k.SetLogLevel, act(m.pickLogLevel)),
			bind(k.ServerFilter, m.onServerFilterKey).hide(!m.several()),
		},
		{
			bind(relabel(k.Filter, "filter by logger"), refilter(func() { f.typing, f.logger = true, "" })),
			bind(relabel(k.Leave, "clear the filters"), refilter(func() { f.min, f.logger = 0, "" })),
		},
		k.moves(func(kp tea.KeyPressMsg) tea.Cmd {
			if f.active() {
				f.view.scroll(scrollDelta(kp, k, m.height))
				return nil
			}
			return m.onScrollKey(kp)
		}),
	}}
}

// pickLogLevel opens the level picker (l) on the level the server was last set to.
func (m *model) pickLogLevel() {
	s, f := m.logsServer(), &m.logFilter
	if s == nil || s.name == "" {
		return
	}
	f.picking, f.pick = true, 0
	if lvl := m.asks.levelFor(s.name); lvl != "" {
		f.pick = int(levelIndex(lvl))
	}
}

type levelSetMsg struct {
	server, level, era string
	err                error
}

func (msg levelSetMsg) handle(m *model) tea.Cmd {
	m.onLevelSet(msg)
	return nil
}

// setServerLevel asks the server for messages at level and above; the level is kept
// for the server's next connections too.
func (m *model) setServerLevel(s *server, level string) tea.Cmd {
	if s == nil || m.wb == nil {
		return nil
	}
	m.asks.setLevel(s.name, level)
	wb, name := m.wb, s.name
	m.notice = "setting the log level of " + name + " to " + level + "…"
	return sessionCmd(wb, name, 30*time.Second, func(ctx context.Context, sess *client.Session) tea.Msg {
		return levelSetMsg{server: name, level: level, era: sess.Info().Era, err: sess.SetLogLevel(ctx, level)}
	}, func(err error) tea.Msg {
		return levelSetMsg{server: name, level: level, err: err}
	})
}

func (m *model) onLevelSet(msg levelSetMsg) {
	switch {
	case msg.err != nil:
		m.notice = "log level of " + msg.server + ": " + msg.err.Error()
	case msg.era == client.EraModern:
		m.notice = fmt.Sprintf("%s: each request now asks for log messages at %s and above (_meta logLevel)", msg.server, msg.level)
	default:
		m.notice = fmt.Sprintf("%s: logging/setLevel %s sent", msg.server, msg.level)
	}
}

// logsTabView draws the Logs tab: a line on the filters, then the lines shown.
func (m *model) logsTabView(width, height int) string {
	f := &m.logFilter
	st := m.st
	var head string
	switch {
	case f.picking:
		var opts []string
		for i, l := range client.LogLevels {
			if i == f.pick {
				opts = append(opts, st.selected.Render(l))
			} else {
				opts = append(opts, l)
			}
		}
		name := ""
		if s := m.logsServer(); s != nil && m.several() {
			name = " of " + s.name
		}
		head = st.accent.Render("set the log level"+name+": ") + strings.Join(opts, " ") + st.muted.Render("  ←/→ · enter sets · esc")
	case f.typing:
		head = st.accent.Render("logger: ") + safe(f.logger) + "▏" + st.muted.Render("  enter keeps · esc clears")
	default:
		parts := []string{"f level≥" + client.LogLevels[f.min]}
		if f.logger != "" {
			parts = append(parts, "/ logger ~ "+safe(f.logger))
		} else {
			parts = append(parts, "/ logger")
		}
		parts = append(parts, "l sets the level")
		if f.active() {
			parts = append(parts, fmt.Sprintf("%d of %d lines", len(f.rows), m.logs.len()))
			if f.scanning {
				parts = append(parts, "searching older lines…")
			}
			parts = append(parts, "esc clears")
			if m.logs.server != "" {
				parts = append(parts, "server "+safe(m.logs.server))
			}
		}
		head = st.muted.Render(strings.Join(parts, " · "))
	}
	headH := 1
	if f.picking && ansi.StringWidth(head) > width {
		// The picker wraps: cut, it hid the last levels (the one chosen, perhaps)
		// and its keys, which the status bar has no room for either.
		head = ansi.Wrap(head, width, " ")
		headH = strings.Count(head, "\n") + 1
	} else {
		head = truncate(head, width)
	}
	bodyH := max(height-headH, 1)
	if !f.active() {
		return head + "\n" + m.linesView(&m.logs, "No log messages (notifications/message) yet.", width, bodyH)
	}
	if len(f.rows) == 0 && f.scanning {
		return head + "\n" + st.muted.Render("Searching the older lines…")
	}
	if len(f.rows) == 0 {
		return head + "\n" + st.muted.Render("No line passes the filter (esc clears it).")
	}
	f.view.setSource(filteredLogs{m: m})
	// A log line often carries a JSON payload longer than the pane: wrapped, as
	// Stderr's lines are, so that its end can be read (there is no line to open).
	return head + "\n" + f.view.wrapView(bodyH, width)
}
