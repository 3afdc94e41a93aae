package tui

import (
	"strings"

	"github.com/mcpscope/mcpscope/internal/spool"
)

// lineView is a scrollable list of text lines (the Stderr and Logs tabs) kept in a
// spool: the newest lines within the memory window, older ones in the spill file,
// read back a page at a time when the user scrolls to them. Drawing costs the lines
// on screen.
type lineView struct {
	buf    *spool.Buffer[string]
	keep   int64
	offset int
	height int
	back   bool // the user scrolled up: stay there as lines arrive (else follow the end)
}

func (v *lineView) buffer() *spool.Buffer[string] {
	if v.buf == nil {
		v.buf = spool.New(v.keep, spool.Strings)
	}
	return v.buf
}

func (v *lineView) add(line string) { v.buffer().Append(line) }

func (v *lineView) len() int {
	if v.buf == nil {
		return 0
	}
	return v.buf.Len()
}

// at is line i (0 the oldest).
func (v *lineView) at(i int) string { return v.buffer().At(i) }

func (v *lineView) scroll(delta int) {
	last := max(v.len()-v.height, 0)
	if !v.back {
		v.offset = last
	}
	v.offset = min(max(v.offset+delta, 0), last)
	v.back = v.offset < last
}

func (v *lineView) view(height int) string {
	v.height = height
	n := v.len()
	if !v.back {
		v.offset = max(n-height, 0)
	}
	if height <= 0 {
		return ""
	}
	v.offset = min(v.offset, max(n-1, 0))
	end := min(v.offset+height, n)
	if v.offset >= end {
		return ""
	}
	lines := make([]string, 0, end-v.offset)
	for i := v.offset; i < end; i++ {
		lines = append(lines, v.at(i))
	}
	return strings.Join(lines, "\n")
}

func (v *lineView) close() {
	if v.buf != nil {
		_ = v.buf.Close()
	}
}

// closeSpools removes the spill files of Traffic, Logs and Stderr.
func (m *model) closeSpools() {
	m.traffic.close()
	m.logs.close()
	m.stderr.close()
}
