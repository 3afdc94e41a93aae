package tui

import (
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/sahilm/fuzzy"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// toolList is the left pane: every tool, a fuzzy filter, and the selection. It renders
// only the rows that fit, so 10,000 tools cost what 30 do.
type toolList struct {
	tools    []client.Tool
	haystack []string // name and titles, per tool: matched fuzzily
	descs    []string // lower-cased descriptions: matched as substrings
	// prev and prevFilter let a longer filter search only what the shorter one matched.
	prev       []int
	prevFilter string
	lower      []string // lower-cased names, for ranking exact matches first
	filter     string
	filtering  bool // the filter field has the keyboard
	rows       []row
	cursor     int // index into rows
	offset     int // first visible row
}

// row is one visible tool with the byte offsets of its name that matched the filter.
type row struct {
	tool    int
	matched []int
}

// subset is the part of the haystack a search looks at.
type subset struct {
	all []string
	idx []int
}

func (s subset) String(i int) string { return s.all[s.idx[i]] }
func (s subset) Len() int            { return len(s.idx) }

// setTools replaces the tools, keeping the selected tool selected when it still exists.
func (l *toolList) setTools(tools []client.Tool) {
	keep := l.selectedName()
	l.tools = tools
	l.haystack = make([]string, len(tools))
	l.lower = make([]string, len(tools))
	l.descs = make([]string, 0, len(tools))
	l.prev, l.prevFilter = nil, ""
	for i, t := range tools {
		l.lower[i] = strings.ToLower(t.Name)
		l.haystack[i] = t.Name + " " + t.Title + " " + t.Annotations.Title
		l.descs = append(l.descs[:i], strings.ToLower(t.Description))
	}
	l.refilter()
	if keep != "" {
		for i, r := range l.rows {
			if l.tools[r.tool].Name == keep {
				l.cursor = i
				break
			}
		}
	}
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func (l *toolList) setFilter(f string) {
	l.filter = f
	l.refilter()
	l.cursor, l.offset = 0, 0
}

func (l *toolList) refilter() {
	l.rows = l.rows[:0]
	if l.filter == "" {
		l.prev, l.prevFilter = nil, ""
		for i := range l.tools {
			l.rows = append(l.rows, row{tool: i})
		}
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
			n := len(l.tools[m.Index].Name)
			var idx []int
			for _, i := range m.MatchedIndexes {
				if i < n {
					idx = append(idx, i)
				}
			}
			l.rows = append(l.rows, row{tool: m.Index, matched: idx})
		}
	}
	if l.cursor >= len(l.rows) {
		l.cursor = max(0, len(l.rows)-1)
	}
}

func (l *toolList) selected() (client.Tool, bool) {
	if l.cursor < 0 || l.cursor >= len(l.rows) {
		return client.Tool{}, false
	}
	return l.tools[l.rows[l.cursor].tool], true
}

func (l *toolList) selectedName() string {
	if t, ok := l.selected(); ok {
		return t.Name
	}
	return ""
}

func (l *toolList) move(delta int) {
	if len(l.rows) == 0 {
		return
	}
	l.cursor = min(max(l.cursor+delta, 0), len(l.rows)-1)
}

// view renders the list into width×height cells.
func (l *toolList) view(st styles, width, height int, focused bool) string {
	var b strings.Builder
	header := st.title.Render("Tools") + st.muted.Render(" "+strconv.Itoa(len(l.rows)))
	if len(l.rows) != len(l.tools) {
		header += st.muted.Render("/" + strconv.Itoa(len(l.tools)))
	}
	b.WriteString(header + "\n")
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
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+rowsHeight {
		l.offset = l.cursor - rowsHeight + 1
	}
	if len(l.rows) == 0 && len(l.tools) > 0 {
		b.WriteString(st.muted.Render("no tool matches"))
	}
	for i := l.offset; i < len(l.rows) && i < l.offset+rowsHeight; i++ {
		r := l.rows[i]
		t := l.tools[r.tool]
		badges := badgeString(st, t.Annotations)
		nameWidth := width - 2 - ansi.StringWidth(badges) - 1
		shown, matched := t.Name, r.matched
		if !termsafe.IsLine(shown) {
			shown, matched = safe(shown), nil // the offsets are into the name as sent
		}
		name := highlight(st, truncate(shown, nameWidth), matched)
		pad := width - 2 - ansi.StringWidth(truncate(shown, nameWidth)) - ansi.StringWidth(badges)
		line := name + strings.Repeat(" ", max(pad, 1)) + badges
		if i == l.cursor {
			marker := "› "
			if !focused {
				marker = "• "
			}
			line = st.selected.Render(marker) + line
		} else {
			line = "  " + line
		}
		b.WriteString(ansi.Truncate(line, width, "…"))
		if i < l.offset+rowsHeight-1 {
			b.WriteString("\n")
		}
	}
	return b.String()
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
