package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/pins"
	"github.com/mcpscope/mcpscope/surface"
)

// changesView is the Changes tab (no digit: ]/[, :changes, C from the tool list): what
// each restart after an edit, or a list_changed, changed in a server's tools,
// resources, templates and prompts, every change classified breaking or compatible
// (package surface), with a readable diff of the object. Newest first. It stays off
// the tab bar until there is a change.
type changesView struct {
	sets   []changeSet
	lines  scroller
	width  int // the width the lines were made for
	dirty  bool
	unseen int // change sets not looked at yet (the tab bar says so)
	// pins is the comparison of the tool lists with their pins (pins.go).
	pins pinState
}

// changeSet is one comparison that found something.
type changeSet struct {
	server string
	at     time.Time
	cause  string // "after server.js changed" (a watched file's edit), "after the restart" or "after list_changed"; safe to draw
	report *surface.Report
	// pin, when set, makes this set a drift from the pinned surface (pins.go): the
	// definitions that differ from their pin, and the command that accepts them.
	pin *pinDrift
	// pinNote, on a change set, says that what it changed took the surface away
	// from its pin (explainDrift): the heading says so and the set ends with the
	// command that accepts it.
	pinNote *pinDrift
}

// pinDrift is a server's difference from its pin as the Changes view shows it.
type pinDrift struct {
	drift  pins.Drift
	accept string
}

// addPinDrift keeps a server's drift from its pin as a change set of its own.
func (c *changesView) addPinDrift(server string, d pins.Drift, accept string, at time.Time) {
	c.sets = append(c.sets, changeSet{server: server, at: at, cause: "differs from its pinned surface", pin: &pinDrift{d, accept},
		report: &surface.Report{}})
	if len(c.sets) > maxChangeSets {
		c.sets = append(c.sets[:0:0], c.sets[len(c.sets)-maxChangeSets:]...)
	}
	c.dirty = true
	c.unseen++
}

// explainDrift takes from a drift's fresh keys (driftKeys: not shown as drift
// before) the definitions ("tool NAME") that the server's last
// change set already shows (a list_changed or an edit seen in this session), and
// notes the pin on that set: its heading then says the surface differs from its pin,
// and it ends with the command that accepts it, so one change is one set, not the
// change and then the same change again as a drift. What no change set explains is
// returned, for a pin drift set of its own.
func (c *changesView) explainDrift(server string, d pins.Drift, fresh map[string]bool, accept string) pins.Drift {
	var last *changeSet
	for i := len(c.sets) - 1; i >= 0; i-- {
		if c.sets[i].server == server && c.sets[i].pin == nil {
			last = &c.sets[i]
			break
		}
	}
	shown := map[string]bool{}
	if last != nil {
		for _, e := range last.report.Entries {
			shown[e.Object+" "+e.Name] = true
			if e.OldName != "" {
				shown[e.Object+" "+e.OldName] = true
			}
		}
	}
	rest := pins.Drift{Pinned: d.Pinned}
	explained := false
	for _, part := range []struct {
		verb    string
		in, out *[]string
	}{{"changed", &d.Changed, &rest.Changed}, {"added", &d.Added, &rest.Added}, {"removed", &d.Removed, &rest.Removed}} {
		for _, k := range *part.in {
			switch {
			case !fresh[part.verb+" "+k]:
				// Shown before as drift: not news.
			case shown[k]:
				explained = true
			default:
				*part.out = append(*part.out, k)
			}
		}
	}
	if explained {
		last.pinNote = &pinDrift{d, accept}
		c.dirty = true
	}
	return rest
}

// pinLines draws a pin drift set.
func pinLines(m *model, s changeSet, width int) []string {
	st, d := m.st, s.pin.drift
	var out []string
	for _, what := range []struct {
		keys []string
		verb string
	}{{d.Changed, "changed"}, {d.Added, "added"}, {d.Removed, "removed"}} {
		for _, k := range what.keys {
			out = append(out, "  "+st.warn.Render("≠ ")+safe(k)+" "+what.verb+" since it was pinned on "+d.Pinned.Format("2006-01-02 15:04"))
		}
	}
	for _, l := range wrapText("If the change is intended, take it: "+s.pin.accept, max(width-2, 10)) {
		out = append(out, "  "+st.muted.Render(l))
	}
	return out
}

// maxChangeSets bounds what the view keeps (oldest dropped).
const maxChangeSets = 100

// add keeps a report; entries the server's last set already showed (the same edit
// seen through list_changed and then through the restart) are not repeated, but that
// set's heading then names both causes. It reports whether anything was new.
func (c *changesView) add(server, cause string, at time.Time, r *surface.Report) (*surface.Report, bool) {
	if r == nil || r.Empty() {
		return nil, false
	}
	var prev *surface.Report
	var prevSet *changeSet
	for i := len(c.sets) - 1; i >= 0; i-- {
		// A pin drift's own set holds no report: the server's last change is the
		// one before it (else a drift between two sights of one change made it new).
		if c.sets[i].server == server && c.sets[i].report != nil && len(c.sets[i].report.Entries) > 0 {
			prevSet = &c.sets[i]
			prev = prevSet.report
			break
		}
	}
	fresh := &surface.Report{Old: r.Old, New: r.New, Compared: r.Compared}
	for _, e := range r.Entries {
		if prev != nil && sameEntry(prev, e) {
			continue
		}
		fresh.Entries = append(fresh.Entries, e)
		for _, ch := range e.Changes {
			if ch.Breaking {
				fresh.Breaking++
			} else {
				fresh.Compatible++
			}
		}
	}
	if fresh.Empty() {
		// The same change seen again by another route (a server that reloads itself
		// sends list_changed, and the watch restarts it for the edit): the heading
		// names both, so the file that was edited shows even when list_changed came
		// first.
		if prevSet != nil && !strings.Contains(prevSet.cause, cause) {
			prevSet.cause += " · " + cause
			c.dirty = true
		}
		return nil, false
	}
	c.sets = append(c.sets, changeSet{server: server, at: at, cause: cause, report: fresh})
	if len(c.sets) > maxChangeSets {
		c.sets = append(c.sets[:0:0], c.sets[len(c.sets)-maxChangeSets:]...)
	}
	c.dirty = true
	c.unseen++
	return fresh, true
}

func sameEntry(r *surface.Report, e surface.Entry) bool {
	p := r.Find(e.Object, e.Name)
	return p != nil && p.Status == e.Status && p.Diff == e.Diff && len(p.Changes) == len(e.Changes)
}

// render makes the view's lines for a width.
func (c *changesView) render(m *model, width int) []string {
	st := m.st
	out := []string{st.muted.Render("↑/↓ pgup/pgdn scroll · newest first · ! breaking · ~ compatible")}
	if len(c.sets) == 0 {
		return append(out, "", st.muted.Render("No changes yet. With --watch, an edit restarts the server and what it changed shows here; so does a tools/list_changed."))
	}
	for i := len(c.sets) - 1; i >= 0; i-- {
		s := c.sets[i]
		head := s.at.Format("15:04:05") + "  " + s.cause
		if m.several() {
			head = s.at.Format("15:04:05") + "  " + safe(s.server) + " " + s.cause
		}
		if s.pin != nil {
			out = append(out, "", st.title.Render(head))
			out = append(out, pinLines(m, s, width)...)
			continue
		}
		if s.pinNote != nil {
			head += " · differs from its pinned surface"
		}
		out = append(out, "", st.title.Render(head)+"  "+summaryStyle(m, s.report).Render(safe(s.report.Summary())))
		for j := range s.report.Entries {
			e := &s.report.Entries[j]
			name := e.Name
			if e.Status == surface.Renamed {
				name = e.OldName + " → " + e.Name
			}
			verdict := st.ok.Render("compatible")
			if e.Breaking {
				verdict = st.err.Render("BREAKING")
			}
			out = append(out, "", st.accent.Render(safe(e.Object+" "+name+" "+e.Status))+"  "+verdict)
			for _, ch := range e.Changes {
				mark, style := "~ ", st.muted
				if ch.Breaking {
					mark, style = "! ", st.err
				}
				for k, l := range wrapText(ch.Message, max(width-4, 10)) {
					if k == 0 {
						out = append(out, "  "+style.Render(mark)+l)
					} else {
						out = append(out, "    "+l)
					}
				}
				if ch.Kind == "description-changed" || ch.Kind == "title-changed" {
					out = append(out, "      "+st.err.Render("- ")+safe(oneLine(ch.Before, 400)), "      "+st.ok.Render("+ ")+safe(oneLine(ch.After, 400)))
				}
			}
			if e.Diff != "" && e.Status != surface.Added && e.Status != surface.Removed {
				out = append(out, diffLines(m, e.Diff, width)...)
			}
		}
		if s.pinNote != nil {
			out = append(out, "")
			for _, l := range wrapText("≠ not the surface pinned on "+s.pinNote.drift.Pinned.Format("2006-01-02 15:04")+". If the change is intended, take it: "+s.pinNote.accept, max(width-2, 10)) {
				out = append(out, "  "+st.warn.Render(l))
			}
		}
	}
	return out
}

func summaryStyle(m *model, r *surface.Report) interface{ Render(...string) string } {
	if r.HasBreaking() {
		return m.st.err
	}
	return m.st.ok
}

// diffLines colours a unified diff (its header lines dropped), cut to the width.
func diffLines(m *model, diff string, width int) []string {
	var out []string
	lines := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	const most = 400 // a huge schema's diff: the first lines, then a count
	for i, l := range lines {
		if strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ") {
			continue
		}
		if len(out) >= most {
			out = append(out, m.st.muted.Render(fmt.Sprintf("    … %d more diff lines", len(lines)-i)))
			break
		}
		l = "    " + truncate(safe(l), max(width-4, 8))
		switch {
		case strings.HasPrefix(strings.TrimLeft(l, " "), "+"):
			l = m.st.ok.Render(l)
		case strings.HasPrefix(strings.TrimLeft(l, " "), "-"):
			l = m.st.err.Render(l)
		case strings.HasPrefix(strings.TrimLeft(l, " "), "@@"):
			l = m.st.muted.Render(l)
		}
		out = append(out, l)
	}
	return out
}

// changesTab draws the view (its lines are made again only when a set arrives or the
// width changes).
func (m *model) changesTab(width, height int) string {
	c := &m.changes
	c.unseen = 0
	m.list.clearMarks() // looked at
	if c.dirty || c.width != width {
		c.lines.setLines(c.render(m, width))
		c.dirty, c.width = false, width
	}
	return c.lines.view(height)
}

// changesKeys is the Changes tab's table: it scrolls.
func (m *model) changesKeys() keyTable {
	k := m.keys
	return keyTable{name: "Changes", groups: [][]binding{k.moves(func(kp tea.KeyPressMsg) tea.Cmd {
		m.changes.lines.scroll(scrollDelta(kp, k, m.height))
		return nil
	})}}
}

// openChanges shows the Changes tab (C from the tool list, :changes).
func (m *model) openChanges() tea.Cmd {
	m.openTab(tabChanges)
	return nil
}

// onSurfaceReport takes a classified comparison of one server: into the Changes view,
// and as marks in the tool list until the user has looked.
func (m *model) onSurfaceReport(server, cause string, at time.Time, r *surface.Report) {
	fresh, ok := m.changes.add(server, cause, at, r)
	if !ok {
		return
	}
	for _, e := range fresh.Entries {
		if e.Object != surface.ObjTool {
			continue
		}
		switch e.Status {
		case surface.Added:
			m.list.mark(server, e.Name, markAdded)
		case surface.Removed:
			m.list.mark(server, e.Name, markRemoved)
		case surface.Renamed:
			m.list.mark(server, e.OldName, markRemoved)
			m.list.mark(server, e.Name, markChanged(e.Breaking))
		default:
			m.list.mark(server, e.Name, markChanged(e.Breaking))
		}
	}
	what := fresh.Summary()
	if m.several() {
		what = server + ": " + what
	}
	m.notice = what + " (C shows the changes)"
}
