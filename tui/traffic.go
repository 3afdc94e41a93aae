package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/client/wire"
)

// trafficEntry is one wire event, summarized once when it arrives.
type trafficEntry struct {
	e       wire.Event
	summary string
}

// summarize names what a frame is: its method, or which request it answers.
func summarize(e wire.Event) string {
	switch e.Kind {
	case wire.KindMessage:
		if len(e.Data) > 1<<20 {
			return "message (" + wire.HumanBytes(int64(e.Size)) + ")"
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
			Error *struct {
				Code int64 `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(e.Data, &m) != nil {
			return "batch or unreadable"
		}
		switch {
		case m.Method != "" && m.ID != nil:
			s := m.Method + " #" + string(m.ID)
			if m.Params.Name != "" {
				s += " " + m.Params.Name
			}
			return s
		case m.Method != "":
			return m.Method
		case m.Error != nil:
			return fmt.Sprintf("error %d for #%s", m.Error.Code, m.ID)
		default:
			return "result for #" + string(m.ID)
		}
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
type trafficView struct {
	entries  []trafficEntry
	dirIndex int    // 0 all, 1 sent, 2 received, 3 other
	query    string // only entries whose summary contains this (method, tool, id)
	typing   bool   // the query has the keyboard
	cursor   int    // index into visible()
	offset   int
	follow   bool // stick to the newest entry
	open     bool // show the selected entry in full
	detail   scroller
	// detailFor and detailWidth say what detail holds, so that a 50 MB frame is
	// formatted once, not on every frame drawn.
	detailFor, detailWidth int
	start                  time.Time
}

var dirFilters = []string{"all", "sent", "received", "stderr/noise/other"}

func (v *trafficView) add(es []wire.Event) {
	for _, e := range es {
		if v.start.IsZero() {
			v.start = e.Time
		}
		v.entries = append(v.entries, trafficEntry{e: e, summary: safe(summarize(e))})
	}
	if v.follow {
		v.cursor = max(len(v.visible())-1, 0)
	}
}

func (v *trafficView) visible() []int {
	var idx []int
	q := strings.ToLower(v.query)
	for i, en := range v.entries {
		if q != "" && !strings.Contains(strings.ToLower(en.summary), q) {
			continue
		}
		switch v.dirIndex {
		case 1:
			if en.e.Dir != wire.Send || en.e.Kind != wire.KindMessage {
				continue
			}
		case 2:
			if en.e.Dir != wire.Recv || en.e.Kind != wire.KindMessage {
				continue
			}
		case 3:
			if en.e.Kind == wire.KindMessage {
				continue
			}
		}
		idx = append(idx, i)
	}
	return idx
}

func (v *trafficView) move(delta int) {
	n := len(v.visible())
	v.cursor = min(max(v.cursor+delta, 0), max(n-1, 0))
	v.follow = v.cursor == n-1
}

func (v *trafficView) selected() (trafficEntry, bool) {
	vis := v.visible()
	if v.cursor < 0 || v.cursor >= len(vis) {
		return trafficEntry{}, false
	}
	return v.entries[vis[v.cursor]], true
}

func (v *trafficView) view(st styles, width, height int) string {
	vis := v.visible()
	header := st.muted.Render(fmt.Sprintf("%d events · showing %s (d cycles) · / filters by method · enter opens", len(v.entries), dirFilters[v.dirIndex]))
	switch {
	case v.typing:
		header = st.accent.Render("/") + safe(v.query) + st.accent.Render("▏") + st.muted.Render("  enter keeps, esc clears")
	case v.query != "":
		header += st.muted.Render(" · matching ") + safe(v.query)
	}
	if v.open {
		if en, ok := v.selected(); ok {
			lines := []string{header, st.accent.Render(en.summary) + st.muted.Render("  "+wire.HumanBytes(int64(en.e.Size))+" · esc closes")}
			if idx := v.visible()[v.cursor]; idx != v.detailFor-1 || width != v.detailWidth {
				v.detailFor, v.detailWidth = idx+1, width
				if en.e.Kind == wire.KindMessage || (en.e.Kind == wire.KindSynthetic && len(en.e.Data) > 0) || en.e.Kind == wire.KindRepair {
					v.detail.setLines(jsonLines(st, en.e.Data, width))
				} else {
					v.detail.setLines(wrapWords(safeText(string(en.e.Data)+en.e.Text), width))
				}
			}
			return strings.Join(lines, "\n") + "\n" + v.detail.view(height-2)
		}
	}
	rows := height - 1
	if v.cursor < v.offset {
		v.offset = v.cursor
	}
	if v.cursor >= v.offset+rows {
		v.offset = v.cursor - rows + 1
	}
	var b strings.Builder
	b.WriteString(header)
	for i := v.offset; i < len(vis) && i < v.offset+rows; i++ {
		en := v.entries[vis[i]]
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
		line := fmt.Sprintf("%8.3fs %s%-9s %s", t, arrow, wire.HumanBytes(int64(en.e.Size)), en.summary)
		line = truncate(line, width-2)
		if i == v.cursor {
			line = st.selected.Render("›") + " " + style.Render(line)
		} else {
			line = "  " + style.Render(line)
		}
		b.WriteString("\n" + line)
	}
	return b.String()
}

// scroller shows a window of precomputed lines.
type scroller struct {
	lines  []string
	offset int
	height int
	follow bool // keep the last line in view as lines are added (logs, stderr)
}

func (s *scroller) setLines(lines []string) {
	s.lines = lines
	if s.offset > len(lines) {
		s.offset = max(len(lines)-1, 0)
	}
}

func (s *scroller) scroll(delta int) {
	last := max(len(s.lines)-s.height, 0)
	s.offset = min(max(s.offset+delta, 0), last)
	s.follow = s.offset == last && delta > 0
}

// bottom shows the last lines, and keeps showing them as more arrive.
// top shows the first line (a new result opens at its top).
func (s *scroller) top() { s.offset, s.follow = 0, false }

func (s *scroller) bottom() { s.follow = true }

func (s *scroller) view(height int) string {
	s.height = height
	if s.follow {
		s.offset = max(len(s.lines)-height, 0)
	}
	if height <= 0 {
		return ""
	}
	end := min(s.offset+height, len(s.lines))
	if s.offset >= end {
		return ""
	}
	return strings.Join(s.lines[s.offset:end], "\n")
}
