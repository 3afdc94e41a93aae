package tui

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/spool"
)

func logMessage(s string) client.LogMessage {
	return client.LogMessage{Level: "info", Data: json.RawMessage(strconv.Quote(s))}
}

// callEcho makes n echo calls through the form, as a user would.
func (h *harness) callEcho(n int) {
	for i := range n {
		h.selectTool("echo")
		h.press("enter") // into the form
		h.m.form.SetValue([]byte(fmt.Sprintf(`{"text":"call %d"}`, i)))
		h.press("enter") // call
		h.until("the echo result", func(m *model) bool { return m.current != nil && !m.current.running })
	}
}

func countRows(screen, mark string) int {
	n := 0
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, mark) {
			n++
		}
	}
	return n
}

// Issue 9 item 4: after d (or /) the matching frames fill the screen, not only the
// newest one.
func TestTrafficFilterShowsEveryMatchingRow(t *testing.T) {
	h := ready(t, 80, 24)
	h.callEcho(12) // 24 frames of calls on top of the handshake: more than a screen
	h.until("the traffic so far", h.caughtUp)
	h.press("3")
	h.contains("result for #") // drawn following the newest frame, as a user sees it
	rows := func() int { return countRows(h.screen(), "tools/call #") }
	h.press("d") // sent only
	if got := rows(); got < 10 {
		t.Errorf("after d, %d tools/call rows are visible of 12 sent:\n%s", got, h.screen())
	}
	h.press("d", "d", "d") // back to all
	h.contains("result for #")
	h.press("/")
	h.typeText("tools/call")
	h.press("enter")
	if got := rows(); got < 10 {
		t.Errorf("after /tools/call, %d rows are visible of 12:\n%s", got, h.screen())
	}
}

var progressValue = regexp.MustCompile(`"progress": (\d+)`)

// Issue 9 item 5: an opened frame stays on screen while newer frames arrive, even
// when the cursor was on the newest.
func TestOpenTrafficFrameStaysWhileFramesArrive(t *testing.T) {
	h := ready(t, 120, 40)
	h.selectTool("slow")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"steps":200,"delayMs":20}`))
	h.press("enter")
	h.until("a progress frame", func(m *model) bool {
		n := m.traffic.size()
		return n > 0 && m.traffic.buffer().At(n-1).summary == "notifications/progress"
	})
	h.press("3", "G", "enter") // the newest frame, a progress notification
	first := progressValue.FindStringSubmatch(h.screen())
	if first == nil {
		t.Fatalf("the opened frame shows no progress value:\n%s", h.screen())
	}
	n := h.m.traffic.size()
	h.until("more frames", func(m *model) bool { return m.traffic.size() >= n+5 })
	now := progressValue.FindStringSubmatch(h.screen())
	if now == nil || now[1] != first[1] {
		t.Errorf("the open frame (progress %s) was replaced:\n%s", first[1], h.screen())
	}
	h.press("esc") // closed: back to the list, following the newest
	if h.m.traffic.open {
		t.Error("esc did not close the frame")
	}
}

// Item 1 of the memory issue: 100,000 wire events and 100,000 log notifications keep
// the memory window, the rest spills, and scrolling back reads the oldest lines from
// the spill file.
func TestFloodStaysBoundedAndScrollsBack(t *testing.T) {
	const keep = 256 << 10 // 128 KiB for Traffic, 64 KiB each for Logs and Stderr
	h := newHarnessWith(t, Options{Target: hostTarget(t), Name: "bundled host", Theme: "dark", Keep: keep}, 100, 30)
	h.until("the tool list", func(m *model) bool { return len(m.list.tools) > 0 })
	h.until("the traffic so far", h.caughtUp)
	const n = 100000
	base := h.m.traffic.size()
	// Count the messages the flood costs the UI (each one is a redraw).
	var msgs atomic.Int64
	h.m.pump.stop()
	h.m.pump = newPump(func(msg tea.Msg) { msgs.Add(1); h.post(msg) }, h.m.pendingMax())
	for i := range n {
		h.m.pump.listen(h.m.srv.name, wire.Event{Kind: wire.KindStderr, Data: []byte(fmt.Sprintf("stderr line %06d of the flood", i)), Size: 30})
		h.m.pump.log(h.m.srv.name, time.Now(), logMessage(fmt.Sprintf("log line %06d of the flood", i)))
	}
	h.until("the flood", func(m *model) bool {
		return m.logs.len() >= n && m.stderr.len() >= n && m.traffic.size() >= base+n
	})
	held := h.m.traffic.entries.MemBytes() + h.m.logs.buf.MemBytes() + h.m.stderr.buf.MemBytes()
	if held > keep+4096 {
		t.Errorf("Traffic, Logs and Stderr hold %d bytes in memory after the flood; --keep is %d", held, keep)
	}
	if got := msgs.Load(); got > n/10 {
		t.Errorf("200,000 events and notifications reached the UI as %d messages; they should be batched", got)
	}
	h.press("4")
	h.contains("log line 099999")
	reads := h.m.logs.buf.BlockReads()
	h.press("g") // the oldest
	h.contains("log line 000000", "log line 000001")
	if h.m.logs.buf.BlockReads() == reads {
		t.Error("the oldest log lines did not come from the spill file")
	}
	h.press("5", "g")
	h.contains("stderr line 000000")
	h.press("3", "G")
	h.contains("stderr line 099999")
	h.press("g")
	h.contains("server/discover #1")
	if h.m.traffic.entries.InMemory() == 0 {
		t.Error("the traffic never spilled")
	}
}

// Issue 14 item 9: the spinner ticks only while something runs and a frame shows it;
// an idle workbench schedules no work.
func TestSpinnerStopsWhenIdle(t *testing.T) {
	h := ready(t, 80, 24)
	if _, cmd := h.m.Update(h.m.spinner.Tick()); cmd != nil {
		t.Error("idle, a spinner tick scheduled another")
	}
	h.selectTool("slow")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"steps":200,"delayMs":50}`))
	h.press("enter")
	if !h.m.ticking {
		t.Error("a running call did not start the spinner")
	}
	tick := func() tea.Cmd {
		h.m.View() // the frame Bubble Tea draws after every message
		_, cmd := h.m.Update(h.m.spinner.Tick())
		return cmd
	}
	if tick() == nil {
		t.Error("while a call runs, the spinner stopped")
	}

	// The help screen in front of the running call hides the spinner: its ticks stop
	// (each one redrew the whole screen for a frame nobody saw: 3% of a core, and a
	// workbench that never went idle while a dialog stood in front of a call). They
	// start again when the call is back on screen.
	h.press("?")
	h.contains("Keys")
	if tick() != nil || h.m.ticking {
		t.Error("behind the help screen, the spinner went on ticking")
	}
	h.press("esc")
	if !h.m.ticking {
		t.Error("with the help screen gone and the call running, the spinner did not start again")
	}
	if tick() == nil {
		t.Error("back on screen, the running call's spinner stopped")
	}

	h.press("x") // cancel (the Result tab has the focus)
	h.until("the cancel", func(m *model) bool { return !m.current.running })
	if _, cmd := h.m.Update(h.m.spinner.Tick()); cmd != nil {
		t.Error("after the call, the spinner kept ticking")
	}
}

// While the screen takes no messages (an $EDITOR runs), what waits in the pump stays
// bounded, and the next batch says how much was dropped.
func TestPumpStaysBoundedWhileTheScreenIsBusy(t *testing.T) {
	release := make(chan struct{})
	got := make(chan wireBatchMsg, 16)
	p := newPump(func(msg tea.Msg) {
		<-release // the screen is busy
		got <- msg.(wireBatchMsg)
	}, 64<<10)
	defer p.stop()
	for i := range 10000 {
		p.listen("main", wire.Event{Kind: wire.KindStderr, Data: []byte(fmt.Sprintf("line %05d of a flood", i))})
		p.log("main", time.Now(), logMessage("a log line"))
	}
	p.mu.Lock()
	if p.bytes > p.max || p.lostEvents == 0 {
		t.Errorf("%d bytes, %d events wait for the screen; the bound is %d", p.bytes, len(p.pending), p.max)
	}
	p.mu.Unlock()
	close(release)
	var events []wire.Event
	var logs []logEntry
	for len(events) == 0 || !strings.Contains(events[len(events)-1].Text, "dropped") {
		b := <-got
		events, logs = append(events, b.events...), append(logs, b.logs...)
	}
	if last := events[len(events)-1]; !strings.Contains(last.Text, "wire events were dropped while the screen was busy") {
		t.Errorf("no notice of the dropped events: %+v", last)
	}
	if !strings.Contains(logs[len(logs)-1].line, "log lines were dropped") {
		t.Errorf("no notice of the dropped log lines: %q", logs[len(logs)-1].line)
	}
}

// floodedTraffic is the bundled host's workbench under a 16 KiB --keep after a
// flood of 3,000 stderr frames, so that the handshake's frames are spilled.
func floodedTraffic(t *testing.T, width int) (*harness, *spool.Buffer[trafficEntry]) {
	t.Helper()
	h := newHarnessWith(t, Options{Target: hostTarget(t), Name: "bundled host", Theme: "dark", Keep: 16 << 10}, width, 30)
	h.until("the tool list", func(m *model) bool { return len(m.list.tools) > 0 })
	h.until("the traffic so far", h.caughtUp)
	base := h.m.traffic.size()
	const n = 3000
	for i := range n {
		h.m.pump.listen(h.m.srv.name, wire.Event{Kind: wire.KindStderr, Data: []byte(fmt.Sprintf("stderr line %06d of the flood", i)), Size: 30})
	}
	h.until("the flood", func(m *model) bool { return m.traffic.size() >= base+n })
	buf := h.m.traffic.entries
	if buf.InMemory() <= base {
		t.Fatalf("the handshake did not spill (%d of %d events spilled)", buf.InMemory(), buf.Len())
	}
	return h, buf
}

// Issue 10 item 6: a / query over frames older than the memory window is matched in
// a command, not in Update: the keys never read the spill file, the header says the
// older frames are being searched, and the spilled match shows once the scan is back.
func TestTrafficQueryScansSpilledFramesOffUpdate(t *testing.T) {
	h, buf := floodedTraffic(t, 100)
	buf.Written() // the handshake is in the file, not only queued for it
	h.press("3")
	h.contains("stderr line 002999")
	reads := buf.BlockReads()
	h.press("/")
	h.typeText("discover")
	h.press("enter")
	if got := buf.BlockReads() - reads; got != 0 {
		t.Errorf("typing the query read %d blocks of the spill file in Update", got)
	}
	if !h.m.traffic.scanning {
		t.Fatalf("no scan of the older frames is running after the query (%d rows, q %q, spilled %d, focus %v):\n%s", h.m.traffic.rows(), h.m.traffic.query, buf.InMemory(), h.m.focus, h.screen())
	}
	h.contains("searching")
	// A scan for a filter that has changed since is dropped.
	h.update(trafficScanMsg{gen: h.m.traffic.gen.Load() - 1, vis: []int32{0, 1, 2}})
	if h.m.traffic.rows() != 0 || !h.m.traffic.scanning {
		t.Fatalf("a stale scan was merged: %d rows", h.m.traffic.rows())
	}
	h.until("the scan of the older frames", func(m *model) bool { return !m.traffic.scanning })
	h.contains("server/discover #1")
	if strings.Contains(h.screen(), "searching") || strings.Contains(h.screen(), "stderr line") {
		t.Errorf("after the scan the screen still searches or shows unmatched rows:\n%s", h.screen())
	}
	if h.m.traffic.rows() != 1 {
		t.Errorf("the query matches %d rows; want the one spilled server/discover (scan error %q; oldest %q)", h.m.traffic.rows(), h.m.traffic.scanErr, buf.At(0).summary)
	}
}
