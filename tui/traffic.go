package tui

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/spool"
)

// trafficEntry is one wire event, summarized once when it arrives.
type trafficEntry struct {
	e       wire.Event
	summary string
	// srv is the event's server, an index into trafficView.names (0: none). It is
	// part of the record, counted and spilled with it, not a list of every event
	// beside the spool (issue 23, target 3); the direction is the event's own.
	srv uint16
}

// summarize names what a frame is: its method, or which request it answers.
func summarize(e wire.Event) string {
	if e.Stray {
		return "stray " + summarizeEvent(e) + " (answers no request in flight)"
	}
	return summarizeEvent(e) + traceBadge(e)
}

// traceW3C is a version-00 W3C traceparent; its second field is the trace id.
// Compiled on first use, not at start: every command links this package (issue 23).
var traceW3C = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^00-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$`) })

// traceBadge names the trace a server's message carries (params._meta.traceparent,
// SEP-414, read by the wire layer into the head): its trace id, which is what a
// tracing backend is searched by. What mcpscope sends (--traceparent) is not badged:
// every sent request would carry it. The value is the server's: only a well-formed
// one is shown; the frame's detail has it whatever it is.
func traceBadge(e wire.Event) string {
	if e.Dir != wire.Recv || e.TraceParent == "" {
		return ""
	}
	if m := traceW3C().FindStringSubmatch(e.TraceParent); m != nil {
		return "  ⌁ trace " + m[1]
	}
	return "  ⌁ traceparent (not W3C)"
}

func summarizeEvent(e wire.Event) string {
	switch e.Kind {
	case wire.KindMessage:
		// From what the wire layer read of the frame when it crossed (wire.Head): a
		// 100 MiB result is named like any other frame, and never decoded here.
		switch e.Shape {
		case wire.ShapeRequest:
			s := e.Method + " #" + e.ID
			if e.Name != "" {
				s += " " + e.Name
			}
			return s
		case wire.ShapeNotification:
			return e.Method
		case wire.ShapeError:
			return fmt.Sprintf("error %d for #%s", e.ErrorCode, e.ID)
		case wire.ShapeResult:
			return "result for #" + e.ID
		case wire.ShapeBatch:
			return "batch (" + wire.HumanBytes(int64(e.Size)) + ")"
		}
		return "unreadable message (" + wire.HumanBytes(int64(e.Size)) + ")"
	case wire.KindNoise:
		return "noise: " + oneLine(string(e.Data), 60)
	case wire.KindStderr:
		return "stderr: " + oneLine(string(e.Data), 60)
	default:
		return string(e.Kind) + ": " + oneLine(e.Text, 70)
	}
}

func oneLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// trafficView is the Traffic tab: every wire event in order, filterable by direction,
// with the selected one pretty-printed on enter.
//
// The events live in a spool (the newest within the memory window, older ones in its
// spill file); the rows that pass the filter are kept as a list that grows with each
// event and is rebuilt only when the filter changes, so drawing a frame costs the rows
// on screen, whatever the length of the session.
type trafficView struct {
	entries  *spool.Buffer[trafficEntry]
	keep     int64   // the spool's memory window (0: the default)
	vis      []int32 // the events that pass the filter, when there is one
	filtered bool    // vis is in use (a direction or a query is set)

	// With several servers: names holds the servers' names (an entry's srv is an
	// index into it, 0 for none), server is the server filter ("" all), nameW the
	// server column's width.
	names  []string
	server string
	nameW  int

	dirIndex int    // 0 all, 1 sent, 2 received, 3 other
	query    string // only entries whose summary contains this (method, tool, id)
	typing   bool   // the query has the keyboard
	list            // the window over the filtered rows (cursor: an index into them)
	follow   bool   // stick to the newest entry
	open     bool   // show one entry in full
	openIdx  int    // the event shown while open: it stays until closed
	detail   scroller
	// detailFor and detailWidth say what detail holds, so that a 50 MB frame is
	// formatted once, not on every frame drawn.
	detailFor, detailWidth int
	start                  time.Time

	// A filter over events older than the memory window is matched by scanTraffic in
	// a command (the spill file is never read in Update): scanning says it runs,
	// scanned how many older events it covers, gen which filter it is for (bumped by
	// every refilter; the scan stops early and its answer is dropped once it differs).
	gen      atomic.Int64
	scanning bool
	scanned  int
	scanErr  string // the last scan could not read the spill file
}

// trafficScanMsg is a scan's answer: the older events that pass filter gen.
type trafficScanMsg struct {
	gen int64
	vis []int32
	err error
}

func (msg trafficScanMsg) handle(m *model) tea.Cmd {
	m.traffic.onScan(msg)
	return nil
}

// trafficFilter is what matches needs, copied so that a scan can use it off the UI
// goroutine.
type trafficFilter struct {
	dir    int
	server string
	names  []string
	query  string // lower case
}

func (v *trafficView) filter() trafficFilter {
	return trafficFilter{dir: v.dirIndex, server: v.server, names: append([]string(nil), v.names...), query: strings.ToLower(v.query)}
}

const (
	dirSent uint8 = iota + 1
	dirRecv
	dirOther
)

var dirFilters = []string{"all", "sent", "received", "stderr/noise/other"}

func (v *trafficView) buffer() *spool.Buffer[trafficEntry] {
	if v.entries == nil {
		v.entries = spool.New(v.keep, trafficCodec)
	}
	return v.entries
}

func classOf(e wire.Event) uint8 {
	switch {
	case e.Kind != wire.KindMessage:
		return dirOther
	case e.Dir == wire.Send:
		return dirSent
	case e.Dir == wire.Recv:
		return dirRecv
	}
	return 0
}

func (v *trafficView) add(es []wire.Event) { v.addFrom(es, nil) }

// addFrom adds events of several servers: servers[i] names event i's server, shown in
// a column of its own (S filters by it; / matches it too: "/gh │ tools").
func (v *trafficView) addFrom(es []wire.Event, servers []string) {
	b := v.buffer()
	q := strings.ToLower(v.query)
	for i, e := range es {
		if v.start.IsZero() {
			v.start = e.Time
		}
		en := trafficEntry{e: e, summary: safe(summarize(e))}
		if i < len(servers) && servers[i] != "" {
			en.srv = v.serverIndex(servers[i])
		}
		i := b.Len()
		b.Append(en)
		if v.filtered && v.matches(classOf(e), en.srv, en.summary, q) {
			v.vis = append(v.vis, int32(i))
		}
	}
	if v.follow && !v.open {
		v.cursor = max(v.rows()-1, 0)
	}
}

// serverIndex is the index of a server's name in names (added when new).
func (v *trafficView) serverIndex(name string) uint16 {
	if len(v.names) == 0 {
		v.names = []string{""}
	}
	for i, n := range v.names {
		if n == name {
			return uint16(i)
		}
	}
	if len(v.names) >= 1<<16-1 {
		return 0
	}
	v.names = append(v.names, name)
	v.nameW = min(max(v.nameW, len(safe(name))), 16)
	return uint16(len(v.names) - 1)
}

// serverOf is the name of event i's server ("" when it has none).
func (v *trafficView) serverOf(i int) string {
	if srv := v.buffer().At(i).srv; int(srv) < len(v.names) {
		return v.names[srv]
	}
	return ""
}

func (v *trafficView) matches(c uint8, srv uint16, summary, lowerQuery string) bool {
	return trafficFilter{dir: v.dirIndex, server: v.server, names: v.names, query: lowerQuery}.matches(c, srv, summary)
}

func (f trafficFilter) matches(c uint8, srv uint16, summary string) bool {
	if f.server != "" && (int(srv) >= len(f.names) || f.names[srv] != f.server) {
		return false
	}
	if f.query != "" {
		text := summary
		if srv != 0 && int(srv) < len(f.names) {
			text = f.names[srv] + " │ " + summary
		}
		if !strings.Contains(strings.ToLower(text), f.query) {
			return false
		}
	}
	switch f.dir {
	case 1:
		return c == dirSent
	case 2:
		return c == dirRecv
	case 3:
		return c == dirOther
	}
	return true
}

// refilter rebuilds the filtered rows after the filter changed, and shows the newest.
// The events in memory are matched here; those older than the memory window are
// matched by the command it returns (scanning the spill file off the UI goroutine),
// merged by onScan.
func (v *trafficView) refilter() tea.Cmd {
	b := v.buffer()
	gen := v.gen.Add(1) // a scan still running stops
	v.scanning, v.scanned, v.scanErr = false, 0, ""
	v.filtered = v.dirIndex != 0 || v.query != "" || v.server != ""
	v.vis = v.vis[:0]
	var cmd tea.Cmd
	if v.filtered {
		f := v.filter()
		from := b.InMemory()
		if from > 0 {
			v.scanning, v.scanned = true, from
			cmd = scanTraffic(&v.gen, gen, b.Spilled(), f)
		}
		for i := from; i < b.Len(); i++ {
			en := b.At(i)
			if f.matches(classOf(en.e), en.srv, en.summary) {
				v.vis = append(v.vis, int32(i))
			}
		}
	}
	v.cursor = max(v.rows()-1, 0)
	v.follow = true
	v.offset = 0 // clamped to the list when drawn: the newest rows fill the screen
	return cmd
}

// scanTraffic matches the spilled events against f on its own goroutine, reading
// them through a snapshot of the spool; it stops as soon as the filter changes.
func scanTraffic(cur *atomic.Int64, gen int64, sp *spool.Spilled[trafficEntry], f trafficFilter) tea.Cmd {
	return func() tea.Msg {
		vis, err := scanSpilled(cur, gen, sp, func(_ int, en trafficEntry) bool { return f.matches(classOf(en.e), en.srv, en.summary) })
		if errors.Is(err, errStale) {
			return nil // a newer refilter runs its own scan
		}
		return trafficScanMsg{gen: gen, vis: vis, err: err}
	}
}

// onScan merges a scan's matches before the in-memory ones (they are older), unless
// the filter changed since the scan began.
func (v *trafficView) onScan(msg trafficScanMsg) {
	if msg.gen != v.gen.Load() || !v.scanning {
		return
	}
	v.scanning = false
	if msg.err != nil {
		v.scanErr = msg.err.Error()
	}
	if len(msg.vis) == 0 {
		return
	}
	v.vis = append(msg.vis[:len(msg.vis):len(msg.vis)], v.vis...)
	if v.follow {
		v.cursor = max(v.rows()-1, 0)
		return
	}
	v.cursor += len(msg.vis) // the row selected stays selected
	v.offset += len(msg.vis)
}

// rows is the number of rows that pass the filter.
func (v *trafficView) rows() int {
	if v.filtered {
		return len(v.vis)
	}
	if v.entries == nil {
		return 0
	}
	return v.entries.Len()
}

// index is the event of filtered row k.
func (v *trafficView) index(k int) int {
	if v.filtered {
		return int(v.vis[k])
	}
	return k
}

func (v *trafficView) move(delta int) {
	n := v.rows()
	v.moveBy(delta, n)
	v.follow = v.cursor == n-1
}

// toggleOpen opens the selected event, or closes the open one.
func (v *trafficView) toggleOpen() {
	if v.open {
		v.closeOpen()
		return
	}
	if v.cursor < 0 || v.cursor >= v.rows() {
		return
	}
	v.open, v.openIdx = true, v.index(v.cursor)
	v.detail.offset, v.detail.follow = 0, false
}

// closeOpen returns to the list; when it follows the newest event, the cursor
// catches up with what arrived meanwhile.
func (v *trafficView) closeOpen() {
	v.open = false
	if v.follow {
		v.cursor = max(v.rows()-1, 0)
	}
}

// size is the number of events held (in memory and spilled).
func (v *trafficView) size() int {
	if v.entries == nil {
		return 0
	}
	return v.entries.Len()
}

func (v *trafficView) close() {
	if v.entries != nil {
		_ = v.entries.Close()
	}
}

func (v *trafficView) view(st styles, width, height int) string {
	header := st.muted.Render(fmt.Sprintf("%d events · showing %s (d cycles) · / filters by method · enter opens", v.size(), dirFilters[v.dirIndex]))
	if v.nameW > 0 {
		// Several servers: the server filter, and a column naming each row's server.
		header = st.muted.Render(fmt.Sprintf("%d events · showing %s (d cycles) · server ", v.size(), dirFilters[v.dirIndex])) +
			serverFilterLabel(st, v.server) + st.muted.Render(" (S cycles) · / filters · enter opens")
	}
	switch {
	case v.typing:
		header = st.accent.Render("/") + safe(v.query) + st.accent.Render("▏") + st.muted.Render("  enter keeps, esc clears")
	case v.query != "":
		// First: a header cut to the pane's width loses its hints, never what
		// filters the rows.
		header = st.muted.Render("matching ") + st.accent.Render(safe(v.query)) + st.muted.Render(" · ") + header
	}
	switch {
	case v.scanning && v.typing:
		header += st.muted.Render(fmt.Sprintf(" · searching %d older frames…", v.scanned))
	case v.scanning && v.query != "": // first, where the width does not cut it off
		header = st.muted.Render(fmt.Sprintf("%d events · searching %d older frames… · matching ", v.size(), v.scanned)) + safe(v.query)
	case v.scanning: // a direction or server filter: the spilled frames are read back too
		header = st.muted.Render(fmt.Sprintf("%d events · searching %d older frames… · ", v.size(), v.scanned)) + header
	case v.scanErr != "":
		header = st.warn.Render("older frames unreadable: "+safe(v.scanErr)) + " · " + header
	}
	if v.open && v.openIdx < v.size() {
		en := v.buffer().At(v.openIdx)
		title := en.summary
		if name := v.serverOf(v.openIdx); name != "" {
			title = safe(name) + " │ " + title
		}
		lines := []string{header, st.accent.Render(title) + st.muted.Render("  "+wire.HumanBytes(int64(en.e.Size))+" · esc closes")}
		if idx := v.openIdx; idx != v.detailFor-1 || width != v.detailWidth {
			v.detailFor, v.detailWidth = idx+1, width
			// A big frame is wrapped only as far as it is read.
			d := &doc{width: width}
			if en.e.Kind == wire.KindMessage || (en.e.Kind == wire.KindSynthetic && len(en.e.Data) > 0) || en.e.Kind == wire.KindRepair {
				d.addJSON(st, en.e.Data)
			} else if s := string(en.e.Data) + en.e.Text; len(s) >= bigText {
				d.parts = append(d.parts, newWrapped(s, width))
			} else {
				d.add(wrapWords(safeText(s), width)...)
			}
			v.detail.setSource(d)
		}
		return strings.Join(lines, "\n") + "\n" + v.detail.view(height-2)
	}
	var b strings.Builder
	b.WriteString(header)
	buf := v.buffer()
	// Whatever changed (the filter, the height, the number of rows), the rows shown
	// fill the screen: no blank space above the newest row while older ones exist.
	for _, line := range v.draw(v.rows(), max(height-1, 1), func(i int, selected bool) string {
		en := buf.At(v.index(i))
		arrow, style := "  ", st.muted
		switch {
		case en.e.Kind == wire.KindMessage && en.e.Dir == wire.Send:
			arrow, style = "→ ", st.send
		case en.e.Kind == wire.KindMessage:
			arrow, style = "← ", st.recv
		case en.e.Kind == wire.KindRepair || en.e.Kind == wire.KindSynthetic:
			arrow, style = "* ", st.warn
		case en.e.Kind == wire.KindClosed:
			arrow, style = "✕ ", st.err
		}
		t := en.e.Time.Sub(v.start).Seconds()
		summary := en.summary
		if v.nameW > 0 {
			summary = padName(v.serverOf(v.index(i)), v.nameW) + " │ " + summary
		}
		line := fmt.Sprintf("%8.3fs %s%-9s %s", t, arrow, wire.HumanBytes(int64(en.e.Size)), summary)
		line = truncate(line, width-2)
		if selected {
			return st.selected.Render("›") + " " + style.Render(line)
		}
		return "  " + style.Render(line)
	}) {
		b.WriteString("\n" + line)
	}
	return b.String()
}

// padName is a server's name for a column of width w (cut with … when longer).
func padName(name string, w int) string {
	name = ansi.Truncate(safe(name), w, "…")
	return name + strings.Repeat(" ", max(w-ansi.StringWidth(name), 0))
}

// serverFilterLabel names a view's server filter for its header.
func serverFilterLabel(st styles, server string) string {
	if server == "" {
		return st.muted.Render("all")
	}
	return st.accent.Render(safe(server))
}

// nextServer is the server filter after S: all, then each server in order, then all.
func nextServer(cur string, names []string) string {
	if cur == "" {
		if len(names) > 0 {
			return names[0]
		}
		return ""
	}
	for i, n := range names {
		if n == cur && i+1 < len(names) {
			return names[i+1]
		}
	}
	return ""
}

// scroller shows a window of lines from a source (lines made at once, or a document
// whose big texts are wrapped only as far as they are shown).
type scroller struct {
	src    lineSource
	offset int
	height int
	follow bool // keep the last line in view as lines are added (logs, stderr)
}

func (s *scroller) setLines(lines []string) { s.setSource(sliceSource(lines)) }

func (s *scroller) setSource(src lineSource) {
	s.src = src
	if n := s.count(s.offset + 1); n <= s.offset {
		s.offset = max(n-1, 0)
	}
}

// total is the number of lines (for small documents: it reads them all).
func (s *scroller) total() int { return s.count(math.MaxInt) }

func (s *scroller) count(limit int) int {
	if s.src == nil {
		return 0
	}
	return s.src.Count(limit)
}

func (s *scroller) scroll(delta int) {
	// Count only as far as the move needs (the end only for a jump to it).
	limit := s.offset + max(delta, 0) + s.height
	if limit < 0 { // overflow of a jump to the end
		limit = math.MaxInt
	}
	last := max(s.count(limit)-s.height, 0)
	s.offset = min(max(s.offset+delta, 0), last)
	atEnd := s.count(s.offset+s.height+1) <= s.offset+s.height
	s.follow = atEnd && delta > 0
}

// top shows the first line (a new result opens at its top).
func (s *scroller) top() { s.offset, s.follow = 0, false }

func (s *scroller) view(height int) string {
	s.height = height
	if s.follow {
		s.offset = max(s.count(math.MaxInt)-height, 0)
	}
	if height <= 0 || s.src == nil {
		return ""
	}
	return strings.Join(s.src.Lines(s.offset, s.offset+height), "\n")
}

// trafficKeys is the Traffic tab's table: the search field while it is typed, the
// frame opened, or the list of frames.
func (m *model) trafficKeys() keyTable {
	k, t := m.keys, &m.traffic
	if t.typing {
		then := func(f func()) func() tea.Cmd { return func() tea.Cmd { f(); return t.refilter() } }
		return keyTable{
			name: "Traffic search",
			groups: [][]binding{{
				bind(k.SearchDone, then(func() { t.typing = false })),
				bind(k.SearchClear, then(func() { t.typing, t.query = false, "" })),
				bind(k.Erase, then(func() {
					if r := []rune(t.query); len(r) > 0 {
						t.query = string(r[:len(r)-1])
					}
				})),
			}},
			rest: func(kp tea.KeyPressMsg) tea.Cmd { t.query += kp.Text; return t.refilter() },
		}
	}
	filters := []binding{
		bind(relabel(k.Filter, "search (method, tool, id)"), func() tea.Cmd {
			t.typing, t.query, t.open = true, "", false
			return t.refilter()
		}),
		bind(k.TrafficDir, func() tea.Cmd {
			t.dirIndex = (t.dirIndex + 1) % len(dirFilters)
			return t.refilter()
		}),
		bind(k.ServerFilter, m.onServerFilterKey).hide(!m.several()),
	}
	open := bind(k.OpenFrame, act(t.toggleOpen))
	if t.open {
		return keyTable{name: "Traffic frame", groups: [][]binding{
			{bind(k.CloseFrame, act(t.closeOpen)), open},
			k.moves(m.onScrollKey),
			filters,
		}}
	}
	return keyTable{name: "Traffic", groups: [][]binding{append([]binding{open}, filters...), k.moves(m.onScrollKey)}}
}
