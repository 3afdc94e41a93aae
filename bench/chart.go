package bench

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
)

// The charts are drawn here with lipgloss rather than with NimbleMarkets/ntcharts:
// its newest release (v0.4.0) is built on bubbletea and lipgloss v1, which cannot
// sit beside the v2 modules the workbench uses. A histogram of horizontal bars and a
// sparkline need no more than block characters.

var eighths = []rune{' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉', '█'}

// bar is a horizontal bar of frac (0..1) of width cells, in eighths of a cell.
func bar(frac float64, width int) string {
	n := int(frac*float64(width*8) + 0.5)
	if frac > 0 && n == 0 {
		n = 1 // a bin with calls is never drawn empty
	}
	var b strings.Builder
	b.WriteString(strings.Repeat("█", n/8))
	if n%8 > 0 {
		b.WriteRune(eighths[n%8])
	}
	return b.String()
}

// Style colours the charts; the zero Style draws plain text (a pipe, NO_COLOR).
type Style struct {
	Bar, Axis, P99 lipgloss.Style
	Color          bool
}

// ColorStyle is the charts' palette on a terminal.
func ColorStyle() Style {
	return Style{
		Bar:   lipgloss.NewStyle().Foreground(lipgloss.Color("6")),
		Axis:  lipgloss.NewStyle().Faint(true),
		P99:   lipgloss.NewStyle().Foreground(lipgloss.Color("3")),
		Color: true,
	}
}

func (s Style) paint(st lipgloss.Style, text string) string {
	if !s.Color {
		return text
	}
	return st.Render(text)
}

// HistogramChart draws the latency histogram in rows bars, each labelled with its
// range and count, within width cells. The bar holding p99 is marked.
func HistogramChart(h *Histogram, rows, width int, st Style) []string {
	bins := h.Bins(rows)
	if len(bins) == 0 {
		return []string{"(no calls yet)"}
	}
	var most uint64
	for _, b := range bins {
		most = max(most, b.Count)
	}
	p99 := h.Quantile(.99)
	labels := make([]string, len(bins))
	counts := make([]string, len(bins))
	lw, cw := 0, 0
	for i, b := range bins {
		labels[i] = FormatDuration(b.Lo) + " – " + FormatDuration(b.Hi)
		counts[i] = fmt.Sprint(b.Count)
		lw, cw = max(lw, len([]rune(labels[i]))), max(cw, len(counts[i]))
	}
	barW := max(width-lw-cw-6, 4)
	out := make([]string, 0, len(bins))
	for i, b := range bins {
		mark := "  "
		if p99 >= b.Lo && p99 < b.Hi || i == len(bins)-1 && p99 >= b.Hi {
			mark = st.paint(st.P99, " ◂") // p99 falls in this bar
		}
		line := fmt.Sprintf("%*s │%s", lw, labels[i], "")
		fill := bar(float64(b.Count)/float64(most), barW)
		out = append(out, st.paint(st.Axis, line)+st.paint(st.Bar, fill)+strings.Repeat(" ", max(barW-len([]rune(fill)), 0))+fmt.Sprintf(" %*s", cw, counts[i])+mark)
	}
	return out
}

var sparks = []rune("▁▂▃▄▅▆▇█")

// ThroughputLine draws calls a second over the run as a sparkline of at most width
// cells: each cell is one or more SeriesStep buckets, averaged.
func ThroughputLine(series []uint64, width int, st Style) string {
	if len(series) == 0 || width <= 0 {
		return ""
	}
	per := (len(series) + width - 1) / width
	var vals []float64
	for i := 0; i < len(series); i += per {
		var sum uint64
		n := 0
		for j := i; j < min(i+per, len(series)); j++ {
			sum += series[j]
			n++
		}
		vals = append(vals, float64(sum)/float64(n)/SeriesStep.Seconds())
	}
	hi := 0.0
	for _, v := range vals {
		hi = max(hi, v)
	}
	var b strings.Builder
	for _, v := range vals {
		k := 0
		if hi > 0 {
			k = int(v / hi * float64(len(sparks)-1))
		}
		b.WriteRune(sparks[k])
	}
	return st.paint(st.Bar, b.String()) + st.paint(st.Axis, fmt.Sprintf("  peak %.0f/s, each cell %s", hi, time.Duration(per)*SeriesStep))
}

// FormatDuration writes a latency with three significant digits: 812µs, 1.25ms, 2.50s.
//
// A value that rounds up to the next unit is said in it (999.9999ms is 1.00s, not
// 1000ms).
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%dns", d.Nanoseconds())
	case d < time.Millisecond-time.Millisecond/2000:
		return trim3(float64(d)/float64(time.Microsecond)) + "µs"
	case d < time.Second-time.Second/2000:
		return trim3(max(float64(d)/float64(time.Millisecond), 1)) + "ms"
	}
	return trim3(max(d.Seconds(), 1)) + "s"
}

func trim3(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
