package tui

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

const big50 = "mcpscope://demo/big/50"

// BenchmarkResourceRead50MBFirstScreen reads a 50 MiB text resource from the bundled
// host and reports, per read, the read itself (the command: the session's
// resources/read, the server's generating and the pipe included) and the first
// screen (the answer's Update and one full render, which is what the user waits for
// once the bytes are in). Target: first screen under 200 ms.
//
//	go test -run '^$' -bench Read50MBFirstScreen -benchtime 3x ./tui
func BenchmarkResourceRead50MBFirstScreen(b *testing.B) {
	h := newHarness(b, hostTarget(b), 120, 40)
	h.until("connected", func(m *model) bool { return m.srv.state() == stateReady && len(m.list.tools) > 0 })
	h.press("8")
	h.until("the resources", func(m *model) bool { l := m.res.lists[m.srv.name]; return l != nil && !l.loading })
	var readT, screenT time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := h.m.startRead(h.m.srv.name, big50, "Big text", false)
		start := time.Now()
		msg := cmd()
		readT += time.Since(start)
		start = time.Now()
		h.update(msg)
		screen := h.m.render()
		screenT += time.Since(start)
		if !strings.Contains(screen, "line 000000000 of the big") {
			b.Fatalf("the first screen lacks the text:\n%s", screen)
		}
		h.m.res.open = nil
	}
	b.ReportMetric(float64(readT.Milliseconds())/float64(b.N), "read-ms")
	b.ReportMetric(float64(screenT.Microseconds())/1000/float64(b.N), "first-screen-ms")
}

// BenchmarkE2EResourceRead50MB: the built binary in a real terminal reads the 50 MiB
// text resource through the key map (8, the big template, 50, enter). It reports the
// time to the first screen of text after enter (the server's generating and the pipe
// included), and mcpscope's own memory: its peak RSS (VmHWM) and its RSS once shown,
// as multiples of the payload (target: under 3×), next to its RSS before the read.
//
//	go test -run '^$' -bench E2EResourceRead50MB -benchtime 2x ./tui
func BenchmarkE2EResourceRead50MB(b *testing.B) {
	bin := testutil.Mcpscope(b)
	const payload = 50 << 20
	var worstPeak, worstRSS, base float64
	var total time.Duration
	for i := 0; i < b.N; i++ {
		x := newTmux(b, 120, 40, "exec "+bin)
		x.waitFor("connected")
		x.keys("8")
		x.waitFor("About the demo host")
		x.keys("/")
		x.typeText("big/{")
		x.keys("Enter", "Enter")
		x.waitFor("reads mcpscope://demo/big/")
		x.typeText("50")
		x.waitFor("reads mcpscope://demo/big/50")
		base = max(base, procKB(b, x.panePID(), "VmRSS"))
		start := time.Now()
		x.keys("Enter")
		x.waitFor("line 000000000 of the big")
		total += time.Since(start)
		worstPeak = max(worstPeak, procKB(b, x.panePID(), "VmHWM"))
		worstRSS = max(worstRSS, procKB(b, x.panePID(), "VmRSS"))
		x.keys("q")
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "enter-to-text-ms")
	b.ReportMetric(base/1024, "RSS-before-MB")
	b.ReportMetric(worstPeak/1024, "peak-RSS-MB")
	b.ReportMetric(worstPeak*1024/payload, "peak-x-payload")
	b.ReportMetric(worstRSS*1024/payload, "RSS-x-payload")
}

// procKB reads one kB field of /proc/PID/status.
func procKB(b *testing.B, pid int, field string) float64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return float64(kb)
		}
	}
	b.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// BenchmarkTemplateKeystroke: a keystroke in a template field while completion is
// on (the bundled host's colours template): its Update and one full render, which
// is all a keystroke costs (the debounced question and its answer run in commands).
// It also reports the answer's own cost when it lands (its Update and a render) and
// the completion round trip itself, for comparison. Target: each under one frame
// (16.7 ms at 60 Hz).
//
//	go test -run '^$' -bench TemplateKeystroke -benchtime 200x ./tui
func BenchmarkTemplateKeystroke(b *testing.B) {
	h := newHarness(b, hostTarget(b), 120, 40)
	h.until("connected", func(m *model) bool { return m.srv.state() == stateReady && len(m.list.tools) > 0 })
	h.press("8")
	h.until("the resources", func(m *model) bool { l := m.res.lists[m.srv.name]; return l != nil && !l.loading })
	pick(h, "colors/{")
	h.press("enter")
	if h.m.res.tpl == nil {
		b.Fatal("the template form did not open")
	}
	var answerT, roundT time.Duration
	answers := 0
	letters := "tealgoldred"
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := rune(letters[i%len(letters)])
		_, cmd := h.m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		_ = h.m.render()
		b.StopTimer()
		if i%20 == 0 {
			// Every 20th keystroke, let the debounced question go and time its answer.
			f := h.m.res.tpl.form
			ask := f.onDue(completeDueMsg{form: f, seq: f.seq}, h.m.wb)
			t0 := time.Now()
			msg := ask()
			roundT += time.Since(t0)
			t0 = time.Now()
			h.m.Update(msg)
			_ = h.m.render()
			answerT += time.Since(t0)
			answers++
		}
		_ = cmd // the debounce tick: never waited for here
		if i%8 == 7 {
			h.m.Update(keyMsg("backspace")) // keep the value short
		}
		b.StartTimer()
	}
	b.StopTimer()
	if answers > 0 {
		b.ReportMetric(float64(answerT.Microseconds())/1000/float64(answers), "answer-ms")
		b.ReportMetric(float64(roundT.Microseconds())/1000/float64(answers), "round-trip-ms")
	}
}
