package tui

import (
	"strconv"
	"strings"
)

// toolMark is what an edit (or a list_changed) did to a tool, shown in the tool list
// until the user has looked: moved onto the tool, or opened the Changes view.
type toolMark int

const (
	markNone toolMark = iota
	markAdded
	markCompatible
	markBreaking
	markRemoved
)

func markChanged(breaking bool) toolMark {
	if breaking {
		return markBreaking
	}
	return markCompatible
}

func markKey(server, name string) string { return server + "\x00" + name }

// mark notes what happened to a tool.
func (l *toolList) mark(server, name string, m toolMark) {
	k := markKey(server, name)
	if m == markRemoved {
		delete(l.marks, k)
		shown := name
		if server != "" && l.several {
			shown = server + "/" + name
		}
		for _, r := range l.removed {
			if r == shown {
				return
			}
		}
		l.removed = append(l.removed, shown)
		return
	}
	if l.marks == nil {
		l.marks = map[string]toolMark{}
	}
	if m == markCompatible && l.marks[k] == markAdded {
		return // still new
	}
	l.marks[k] = m
}

// unmarkSelected forgets the mark of the selected tool (the user moved onto it).
func (l *toolList) unmarkSelected() {
	if srv, name := l.selectedKey(); name != "" {
		delete(l.marks, markKey(srv, name))
	}
}

func (l *toolList) clearMarks() { l.marks, l.removed = nil, nil }

// markOf is the mark drawn before a tool's badges: + added, ~ changed compatibly,
// ! changed in a way that breaks clients.
func (l *toolList) markOf(st styles, i int) string {
	if len(l.marks) == 0 {
		return ""
	}
	switch l.marks[markKey(l.servers[i], l.tools[i].Name)] {
	case markAdded:
		return st.ok.Render("+") + " "
	case markCompatible:
		return st.warn.Render("~") + " "
	case markBreaking:
		return st.err.Render("!") + " "
	}
	return ""
}

// removedLine names the tools an edit took away (they are no longer in the list).
func (l *toolList) removedLine(st styles, width int) string {
	if len(l.removed) == 0 {
		return ""
	}
	text := "✗ removed: " + strings.Join(l.removed, ", ")
	if len(l.removed) > 3 {
		text = "✗ " + strconv.Itoa(len(l.removed)) + " removed: " + strings.Join(l.removed[:3], ", ") + "…"
	}
	return truncate(st.err.Render(safe(text))+st.muted.Render(" (C)"), width)
}
