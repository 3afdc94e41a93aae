package tui

import (
	"encoding/binary"
	"errors"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/internal/spool"
)

// lineView is a scrollable list of text lines (the Stderr and Logs tabs) kept in a
// spool: the newest lines within the memory window, older ones in the spill file,
// read back a page at a time when the user scrolls to them. Drawing costs the lines
// on screen.
//
// What the filters need of a line (its server; a log line's level and logger) is
// part of the line's record in the spool, not a list beside it: a list of every
// line ever held grew with the session whatever --keep said (five bytes a log line,
// more than Logs' whole share of --keep 8MiB at a million lines; issue 23, target
// 3). So the spool counts it and moves it to the spill file with its line, and a
// filter over the spilled lines reads them back in a command (scanSpilled), never in
// Update.
type lineView struct {
	buf    *spool.Buffer[heldLine]
	keep   int64
	offset int
	height int
	back   bool // the user scrolled up: stay there as lines arrive (else follow the end)

	// With several servers: names holds the servers' names (a line's srv is an
	// index into it, 0 for none); server filters them ("" all), vis holds the lines
	// that pass. offset, len and at count the lines shown.
	names  []string
	server string
	vis    []int32
	// A server filter over the spilled lines is matched by a command: scanning
	// says it runs, gen which filter it is for (bumped by every setServer; a scan
	// for an older one stops early and its answer is dropped).
	gen      atomic.Int64
	scanning bool
}

// heldLine is one line as its spool holds it: the text and what the filters match.
type heldLine struct {
	text   string
	logger uint32 // Logs: the logger's index in logFilter.names (0: none)
	srv    uint16 // the server's index in lineView.names (0: none)
	level  uint8  // Logs: index into client.LogLevels, or levelUnknown
}

// heldLines spills a line as its server, level and logger (varints) and its text.
var heldLines = spool.Codec[heldLine]{
	Size: func(l heldLine) int { return len(l.text) },
	Encode: func(l heldLine) ([]byte, error) {
		b := make([]byte, 0, len(l.text)+8)
		b = binary.AppendUvarint(b, uint64(l.srv))
		b = append(b, l.level)
		b = binary.AppendUvarint(b, uint64(l.logger))
		return append(b, l.text...), nil
	},
	Decode: func(b []byte) (heldLine, error) {
		srv, n := binary.Uvarint(b)
		if n <= 0 || len(b) <= n {
			return heldLine{}, errShortLine
		}
		level := b[n]
		b = b[n+1:]
		logger, n := binary.Uvarint(b)
		if n <= 0 {
			return heldLine{}, errShortLine
		}
		return heldLine{text: string(b[n:]), srv: uint16(srv), level: level, logger: uint32(logger)}, nil
	},
}

var errShortLine = errors.New("a spilled line is cut short")

func (v *lineView) buffer() *spool.Buffer[heldLine] {
	if v.buf == nil {
		v.buf = spool.New(v.keep, heldLines)
	}
	return v.buf
}

func (v *lineView) add(line string) { v.addFrom(line, "") }

// addFrom adds a line of a server (one of several; "" for none).
func (v *lineView) addFrom(line, server string) { v.addHeld(heldLine{text: line}, server) }

// addHeld adds a line with its server, and returns its index.
func (v *lineView) addHeld(l heldLine, server string) int {
	b := v.buffer()
	i := b.Len()
	if server != "" {
		l.srv = v.serverIndex(server)
	}
	b.Append(l)
	if v.server != "" && v.names[l.srv] == v.server {
		v.vis = append(v.vis, int32(i))
	}
	return i
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
// The lines in memory are matched here; the spilled ones by the command it returns.
func (v *lineView) setServer(server string) tea.Cmd {
	gen := v.gen.Add(1) // a scan still running stops
	v.server, v.vis, v.back, v.scanning = server, v.vis[:0], false, false
	if server == "" || v.buf == nil {
		return nil
	}
	b := v.buf
	pass := func(_ int, l heldLine) bool { return int(l.srv) < len(v.names) && v.names[l.srv] == server }
	for i := b.InMemory(); i < b.Len(); i++ {
		if pass(i, b.At(i)) {
			v.vis = append(v.vis, int32(i))
		}
	}
	if b.InMemory() == 0 {
		return nil
	}
	v.scanning = true
	names := append([]string(nil), v.names...)
	sp := b.Spilled()
	return func() tea.Msg {
		vis, err := scanSpilled(&v.gen, gen, sp, func(_ int, l heldLine) bool { return int(l.srv) < len(names) && names[l.srv] == server })
		return linesScanMsg{view: v, gen: gen, vis: vis, err: err}
	}
}

// linesScanMsg is a server filter's scan of a line view's spilled lines.
type linesScanMsg struct {
	view *lineView
	gen  int64
	vis  []int32
	err  error
}

func (msg linesScanMsg) handle(m *model) tea.Cmd {
	v := msg.view
	if msg.gen != v.gen.Load() || !v.scanning {
		return nil
	}
	v.scanning = false
	if msg.err != nil && !errors.Is(msg.err, errStale) {
		m.notice = "reading older lines back: " + msg.err.Error()
	}
	if len(msg.vis) > 0 {
		v.vis = append(msg.vis[:len(msg.vis):len(msg.vis)], v.vis...)
		if v.back {
			v.offset += len(msg.vis) // the lines in view stay in view
		}
	}
	return nil
}

// errStale ends a scan whose filter changed since it began.
var errStale = errors.New("the filter changed")

// scanSpilled matches the records of a spool snapshot against pass, off the UI
// goroutine (in a command): the indices of those that pass, in order. It stops with
// errStale as soon as *cur is no longer gen (the filter changed); records the spill
// file lost are skipped.
func scanSpilled[T any](cur *atomic.Int64, gen int64, sp *spool.Spilled[T], pass func(int, T) bool) ([]int32, error) {
	var vis []int32
	for i := range sp.Len() {
		if i%256 == 0 && cur.Load() != gen {
			return nil, errStale
		}
		v, err := sp.Get(i)
		if errors.Is(err, spool.ErrLost) {
			continue
		}
		if err != nil {
			return vis, err
		}
		if pass(i, v) {
			vis = append(vis, int32(i))
		}
	}
	return vis, nil
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
func (v *lineView) raw(i int) string { return v.buffer().At(i).text }

// at is shown line i (0 the oldest).
func (v *lineView) at(i int) string {
	if v.server != "" {
		return v.buffer().At(int(v.vis[i])).text
	}
	return v.buffer().At(i).text
}

func (v *lineView) scroll(delta int) {
	last := max(v.len()-v.height, 0)
	if !v.back {
		v.offset = last
	}
	v.offset = min(max(v.offset+delta, 0), last)
	v.back = v.offset < last
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
