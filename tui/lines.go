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

	// With several servers: srv names each line's server (an index into names, 0 for
	// none); server filters them ("" all), vis holds the lines that pass. offset,
	// len and at count the lines shown.
	srv    []uint16
	names  []string
	server string
	vis    []int32
}

func (v *lineView) buffer() *spool.Buffer[string] {
	if v.buf == nil {
		v.buf = spool.New(v.keep, spool.Strings)
	}
	return v.buf
}

func (v *lineView) add(line string) { v.addFrom(line, "") }

// addFrom adds a line of a server (one of several; "" for none).
func (v *lineView) addFrom(line, server string) {
	b := v.buffer()
	i := b.Len()
	b.Append(line)
	var srv uint16
	if server != "" {
		srv = v.serverIndex(server)
	}
	if v.srv != nil || srv != 0 {
		for len(v.srv) < i {
			v.srv = append(v.srv, 0)
		}
		v.srv = append(v.srv, srv)
	}
	if v.server != "" && v.names[srv] == v.server {
		v.vis = append(v.vis, int32(i))
	}
}

func (v *lineView) serverIndex(name string) uint16 {
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
	return uint16(len(v.names) - 1)
}

// setServer filters the lines by server ("" shows them all) and shows the newest.
func (v *lineView) setServer(server string) {
	v.server, v.vis, v.back = server, v.vis[:0], false
	if server == "" {
		return
	}
	for i, srv := range v.srv {
		if v.names[srv] == server {
			v.vis = append(v.vis, int32(i))
		}
	}
}

// len is the number of lines shown (those of the filtered server).
func (v *lineView) len() int {
	if v.server != "" {
		return len(v.vis)
	}
	if v.buf == nil {
		return 0
	}
	return v.buf.Len()
}

// total is the number of lines held, whatever the filter.
func (v *lineView) total() int {
	if v.buf == nil {
		return 0
	}
	return v.buf.Len()
}

// raw is held line i, whatever the filter.
func (v *lineView) raw(i int) string { return v.buffer().At(i) }

// at is shown line i (0 the oldest).
func (v *lineView) at(i int) string {
	if v.server != "" {
		return v.buffer().At(int(v.vis[i]))
	}
	return v.buffer().At(i)
}

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
