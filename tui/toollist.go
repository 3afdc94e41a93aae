package tui

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/sahilm/fuzzy"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/cost"
	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// toolList is the left pane: every tool, a fuzzy filter, and the selection. It renders
// only the rows that fit, so 10,000 tools cost what 30 do.
type toolList struct {
	tools   []client.Tool
	servers []string // the server of each tool
	// several: the session has more than one server, so tools are shown as
	// server/tool under a header per server (collapsible).
	several   bool
	collapsed map[string]bool
	haystack  []string // name and titles, per tool: matched fuzzily
	descs     []string // lower-cased descriptions: matched as substrings
	// prev and prevFilter let a longer filter search only what the shorter one matched.
	prev       []int
	prevFilter string
	lower      []string // lower-cased names, for ranking exact matches first
	filter     string
	filtering  bool // the filter field has the keyboard
	moved      bool // the user has moved the cursor
	rows       []row
	list       // the window over rows: cursor is an index into rows
	// last is the selection kept while the list is empty (a server restarting), so
	// that the same tool is selected when its tools are back.
	lastServer, lastName string
	// marks say which tools an edit or a list_changed added or changed (by
	// server\x00name), and removed which it took away, until the user looks
	// (marks.go).
	marks   map[string]toolMark
	removed []string
	// down is the state word of each server whose tools are listed but cannot be
	// called now (exited, failed, restarting): its tools stay in the list, dimmed, so
	// that the selection (and the open form) stays on them instead of falling onto
	// another server's tool.
	down map[string]string
	// bare are the servers, in the session's order, that cannot take a call and have
	// no tool listed (one that failed before listing), each with why (safe, one line):
	// with several servers each still gets its header, so that the list says what
	// became of it instead of leaving it out. order is every server's place.
	bare  []bareServer
	order map[string]int
	// ghost is the index in tools of the selected tool that its server no longer
	// lists (when hasGhost). It stays, drawn as gone, until the user moves away: the
	// selection says the tool is gone rather than silently landing on another one.
	ghost    int
	hasGhost bool
	// costs are each tool's cost by server\x00name while the cost column is on
	// (:cost, cost.go), tokens when costTokens; nil: no column.
	costs      map[string]cost.Cost
	costTokens bool
}

// row is one visible tool with the byte offsets of its shown name that matched the
// filter, or (tool < 0) the header of a server's group.
type row struct {
	tool    int
	matched []int
	header  string
	count   int // the header's number of tools
}

// bareServer is a server without tools in the list: its name and why.
type bareServer struct{ name, why string }

// listTool is a tool of one server.
type listTool struct {
	server string
	tool   client.Tool
	gone   bool // the selected tool its server no longer lists (toolList.ghost)
}

// subset is the part of the haystack a search looks at.
type subset struct {
	all []string
	idx []int
}

func (s subset) String(i int) string { return s.all[s.idx[i]] }
func (s subset) Len() int            { return len(s.idx) }

// setTools replaces the tools of the one server, keeping the selected tool selected
// when it still exists.
func (l *toolList) setTools(tools []client.Tool) {
	entries := make([]listTool, len(tools))
	for i, t := range tools {
		entries[i] = listTool{tool: t}
	}
	l.setEntries(entries, false)
}

// setEntries replaces the tools (of every server); several shows them as server/tool
// under server headers. The selection is an identity (server, tool name), not a row:
// it stays on the same tool wherever that tool's row is now; when the tool is no
// longer listed it stays as a ghost row (gone) until the user moves.
func (l *toolList) setEntries(entries []listTool, several bool) {
	keepServer, keep := l.selectedKey()
	var keepTool client.Tool
	if t, ok := l.selected(); ok {
		keepTool = t
	}
	if keep == "" && len(l.tools) == 0 {
		keepServer, keep = l.lastServer, l.lastName
	} else {
		l.lastServer, l.lastName = keepServer, keep
	}
	if keep != "" && keepTool.Name != "" && l.moved && !slices.ContainsFunc(entries, func(e listTool) bool {
		return e.server == keepServer && e.tool.Name == keep
	}) {
		// The user's tool is gone: keep it, as gone, beside its server's tools.
		at := len(entries)
		for i, e := range entries {
			if e.server == keepServer {
				at = i + 1
			}
		}
		entries = slices.Insert(slices.Clone(entries), at, listTool{server: keepServer, tool: keepTool, gone: true})
	}
	l.several = several
	l.ghost, l.hasGhost = 0, false
	l.tools = make([]client.Tool, len(entries))
	l.servers = make([]string, len(entries))
	l.haystack = make([]string, len(entries))
	l.lower = make([]string, len(entries))
	l.descs = make([]string, 0, len(entries))
	l.prev, l.prevFilter = nil, ""
	for i, e := range entries {
		t := e.tool
		l.tools[i], l.servers[i] = t, e.server
		if e.gone {
			l.ghost, l.hasGhost = i, true
		}
		shown := l.shownName(i)
		l.lower[i] = strings.ToLower(shown)
		l.haystack[i] = shown + " " + t.Title + " " + t.Annotations.Title
		l.descs = append(l.descs[:i], strings.ToLower(t.Description))
	}
	l.refilter()
	found := l.cursorTo(keepServer, keep)
	if !found && len(l.tools) == 0 {
		l.lastServer, l.lastName = keepServer, keep
	}
	if !l.moved && l.filter == "" {
		// Until the user moves, the cursor stays on the first tool, whichever server
		// answered first.
		l.cursor = 0
		// Past the headers of servers without tools, then past the first group's
		// header onto its first tool when the group is open.
		first := 0
		for first < len(l.rows)-1 && l.rows[first].tool < 0 && l.isBare(l.rows[first].header) {
			first++
		}
		l.cursor = first
		if first+1 < len(l.rows) && l.rows[first].tool < 0 && !l.collapsed[l.rows[first].header] && l.rows[first+1].tool >= 0 {
			l.cursor = first + 1
		}
	}
}

// cursorTo puts the cursor on the row of the tool (server, name); false when no row
// shows it.
func (l *toolList) cursorTo(server, name string) bool {
	if name == "" {
		return false
	}
	for i, r := range l.rows {
		if r.tool >= 0 && l.tools[r.tool].Name == name && l.servers[r.tool] == server {
			l.cursor = i
			return true
		}
	}
	return false
}

// onGhost reports whether the selection is the tool its server no longer lists.
func (l *toolList) onGhost() bool {
	r, ok := l.cursorRow()
	return ok && l.isGhost(r.tool)
}

// isGhost reports whether tool index i is the gone tool.
func (l *toolList) isGhost(i int) bool { return l.hasGhost && i == l.ghost }

// shownName is a tool's name as the list shows it: server/tool when there are
// several servers.
func (l *toolList) shownName(i int) string {
	if l.several {
		return l.servers[i] + "/" + l.tools[i].Name
	}
	return l.tools[i].Name
}

func (l *toolList) cursorRow() (row, bool) {
	if l.cursor < 0 || l.cursor >= len(l.rows) {
		return row{}, false
	}
	return l.rows[l.cursor], true
}

// toggleHeader collapses or opens the server group under the cursor; it reports
// whether the cursor was on a header.
func (l *toolList) toggleHeader() bool {
	r, ok := l.cursorRow()
	if !ok || r.tool >= 0 {
		return false
	}
	if l.collapsed == nil {
		l.collapsed = map[string]bool{}
	}
	l.collapsed[r.header] = !l.collapsed[r.header]
	l.refilter()
	for i, rr := range l.rows {
		if rr.tool < 0 && rr.header == r.header {
			l.cursor = i
		}
	}
	return true
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// setFilter filters the list. A new filter puts the cursor on its best match;
// clearing it keeps the selected tool selected (on its row in the whole list).
func (l *toolList) setFilter(f string) {
	server, name := l.selectedKey()
	l.filter = f
	if f != "" {
		l.moved = true
	}
	l.refilter()
	l.cursor, l.offset = 0, 0
	if f == "" {
		l.cursorTo(server, name)
	}
}

func (l *toolList) refilter() {
	l.rows = l.rows[:0]
	if l.filter == "" {
		l.prev, l.prevFilter = nil, ""
		// The headers of servers without tools go at their server's place.
		bi := 0
		bareBefore := func(place int) {
			for ; l.several && bi < len(l.bare) && l.order[l.bare[bi].name] < place; bi++ {
				l.rows = append(l.rows, row{tool: -1, header: l.bare[bi].name})
			}
		}
		for i := range l.tools {
			if l.several && (i == 0 || l.servers[i] != l.servers[i-1]) {
				if place, ok := l.order[l.servers[i]]; ok {
					bareBefore(place)
				}
				n := 0
				for j := i; j < len(l.tools) && l.servers[j] == l.servers[i]; j++ {
					n++
				}
				l.rows = append(l.rows, row{tool: -1, header: l.servers[i], count: n})
			}
			if l.several && l.collapsed[l.servers[i]] {
				continue
			}
			l.rows = append(l.rows, row{tool: i})
		}
		bareBefore(len(l.order))
	} else {
		// Typing one more character narrows the last result, so only its tools need
		// looking at; anything else searches everything.
		var candidates []int
		if l.prevFilter != "" && strings.HasPrefix(l.filter, l.prevFilter) {
			// In the tools' own order, so that ties rank as in a fresh search.
			candidates = append([]int(nil), l.prev...)
			sort.Ints(candidates)
		} else {
			candidates = make([]int, len(l.tools))
			for i := range candidates {
				candidates[i] = i
			}
		}
		// Names and titles match fuzzily (with highlighting); descriptions match the
		// text as typed, which is what a user searching prose expects, and keeps a
		// keystroke over 10,000 tools within a frame.
		f := strings.ToLower(l.filter)
		found := fuzzy.FindFrom(l.filter, subset{all: l.haystack, idx: candidates})
		matches := make([]fuzzy.Match, 0, len(found))
		inName := make(map[int]bool, len(found))
		for _, m := range found {
			m.Index = candidates[m.Index]
			inName[m.Index] = true
			matches = append(matches, m)
		}
		for _, i := range candidates {
			if !inName[i] && strings.Contains(l.descs[i], f) {
				matches = append(matches, fuzzy.Match{Index: i})
			}
		}
		// Names the user typed exactly, or that start with or contain it, come first;
		// fuzzy order within each tier.
		tier := func(i int) int {
			n := l.lower[i]
			switch {
			case n == f:
				return 0
			case strings.HasPrefix(n, f):
				return 1
			case strings.Contains(n, f):
				return 2
			case inName[i]:
				return 3
			}
			return 4
		}
		sort.SliceStable(matches, func(i, j int) bool { return tier(matches[i].Index) < tier(matches[j].Index) })
		l.prev = l.prev[:0:0]
		for _, m := range matches {
			l.prev = append(l.prev, m.Index)
		}
		l.prevFilter = l.filter
		for _, m := range matches {
			// Highlight only what falls in the name, the part that is drawn.
			n := len(l.shownName(m.Index))
			var idx []int
			for _, i := range m.MatchedIndexes {
				if i < n {
					idx = append(idx, i)
				}
			}
			l.rows = append(l.rows, row{tool: m.Index, matched: idx})
		}
		if l.hasGhost && !slices.Contains(l.prev, l.ghost) {
			l.rows = append(l.rows, row{tool: l.ghost}) // the selection, even when gone
		}
	}
	if l.cursor >= len(l.rows) {
		l.cursor = max(0, len(l.rows)-1)
	}
}

func (l *toolList) selected() (client.Tool, bool) {
	if l.cursor < 0 || l.cursor >= len(l.rows) || l.rows[l.cursor].tool < 0 {
		return client.Tool{}, false
	}
	return l.tools[l.rows[l.cursor].tool], true
}

// selectedServer is the server of the selected tool.
func (l *toolList) selectedServer() string {
	if r, ok := l.cursorRow(); ok && r.tool >= 0 {
		return l.servers[r.tool]
	}
	return ""
}

func (l *toolList) selectedKey() (string, string) {
	if t, ok := l.selected(); ok {
		return l.selectedServer(), t.Name
	}
	return "", ""
}

func (l *toolList) move(delta int) {
	if len(l.rows) == 0 {
		return
	}
	l.moved = true
	l.moveBy(delta, len(l.rows))
}

// view renders the list into width×height cells.
func (l *toolList) view(st styles, width, height int, focused bool) string {
	var b strings.Builder
	shownRows := len(l.rows)
	for _, r := range l.rows {
		if r.tool < 0 {
			shownRows--
		}
	}
	header := st.title.Render("Tools") + st.muted.Render(" "+strconv.Itoa(shownRows))
	if shownRows != len(l.tools) {
		header += st.muted.Render("/" + strconv.Itoa(len(l.tools)))
	}
	b.WriteString(header + "\n")
	if line := l.removedLine(st, width); line != "" {
		b.WriteString(line + "\n")
		height--
	}
	switch {
	case l.filtering:
		b.WriteString(st.accent.Render("/") + safe(l.filter) + st.accent.Render("▏") + "\n")
	case l.filter != "":
		b.WriteString(st.muted.Render("/"+safe(l.filter)+"  (esc clears)") + "\n")
	default:
		b.WriteString(st.muted.Render("/ to filter") + "\n")
	}
	rowsHeight := height - 2
	if rowsHeight < 1 {
		return b.String()
	}
	if len(l.rows) == 0 && len(l.tools) > 0 {
		b.WriteString(st.muted.Render("no tool matches"))
	}
	lines := l.draw(len(l.rows), rowsHeight, func(i int, selected bool) string {
		r := l.rows[i]
		if r.tool < 0 {
			mark := "▾ "
			if l.collapsed[r.header] {
				mark = "▸ "
			}
			line := st.accent.Render(mark+safe(r.header)) + st.muted.Render(" "+strconv.Itoa(r.count))
			if word, ok := l.down[r.header]; ok {
				line = st.muted.Render(mark+safe(r.header)+" ") + st.err.Render(word) + st.muted.Render(" "+strconv.Itoa(r.count))
				if why := l.bareWhy(r.header); why != "" {
					line += st.muted.Render(": " + why)
				}
			}
			if selected {
				line = st.selected.Render("› ") + line
			}
			return ansi.Truncate(line, width, "…")
		}
		t := l.tools[r.tool]
		hints := badgeString(st, t.Annotations)
		if t.UI.ResourceURI != "" {
			// The tool has an MCP Apps view (its _meta.ui names one).
			hints = strings.TrimSpace(st.accent.Render("APP") + " " + hints)
		}
		badges := l.markOf(st, r.tool) + hints
		if c, ok := l.costs[l.servers[r.tool]+"\x00"+t.Name]; ok {
			badges = strings.TrimSpace(badges + " " + st.muted.Render(fmt.Sprintf("%8s", costCell(c, l.costTokens))))
		}
		nameWidth := width - 2 - ansi.StringWidth(badges) - 1
		shown, matched := l.shownName(r.tool), r.matched
		if !termsafe.IsLine(shown) {
			shown, matched = safe(shown), nil // the offsets are into the name as sent
		}
		_, down := l.down[l.servers[r.tool]]
		gone := l.isGhost(r.tool)
		if gone {
			badges = st.err.Render("gone")
			nameWidth = width - 2 - ansi.StringWidth(badges) - 1
		}
		name := highlight(st, truncate(shown, nameWidth), matched)
		if down || gone {
			// Listed but not callable now: dimmed (its server's header, or the Tool
			// view, says why).
			name = st.muted.Render(truncate(shown, nameWidth))
		}
		pad := width - 2 - ansi.StringWidth(truncate(shown, nameWidth)) - ansi.StringWidth(badges)
		line := name + strings.Repeat(" ", max(pad, 1)) + badges
		if selected {
			marker := "› "
			if !focused {
				marker = "• "
			}
			line = st.selected.Render(marker) + line
		} else {
			line = "  " + line
		}
		return ansi.Truncate(line, width, "…")
	})
	b.WriteString(strings.Join(lines, "\n"))
	return b.String()
}

// bareWhy is why the server without tools has none ("" when it has tools).
func (l *toolList) bareWhy(name string) string {
	for _, b := range l.bare {
		if b.name == name {
			return b.why
		}
	}
	return ""
}

// isBare reports whether the server is in the list without tools (l.bare).
func (l *toolList) isBare(name string) bool {
	return slices.ContainsFunc(l.bare, func(b bareServer) bool { return b.name == name })
}

// badgeString shows the four hints: a set hint in colour and capitals, a spec default
// the server left unset in faint lower case. Hints that are false show nothing.
func badgeString(st styles, a client.Annotations) string {
	var parts []string
	add := func(h client.Hint, label string, style func() string) {
		if !h.Value {
			return
		}
		if h.Set {
			parts = append(parts, style())
		} else {
			parts = append(parts, st.badgeDf.Render(strings.ToLower(label)))
		}
	}
	add(a.ReadOnly, "RO", func() string { return st.badgeRO.Render("RO") })
	if !a.ReadOnly.Value { // destructive and idempotent only mean something for tools that write
		add(a.Destructive, "DESTR", func() string { return st.badgeDestr.Render("DESTR") })
		add(a.Idempotent, "IDEM", func() string { return st.badgeIdem.Render("IDEM") })
	}
	add(a.OpenWorld, "OPEN", func() string { return st.badgeOpen.Render("OPEN") })
	return strings.Join(parts, " ")
}

// highlight styles the matched byte offsets of s.
func highlight(st styles, s string, idx []int) string {
	if len(idx) == 0 {
		return s
	}
	set := map[int]bool{}
	for _, i := range idx {
		set[i] = true
	}
	var b strings.Builder
	for i, r := range s {
		if set[i] {
			b.WriteString(st.match.Render(string(r)))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func truncate(s string, width int) string {
	if width <= 1 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}
