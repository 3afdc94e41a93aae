package tui

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
)

// Run with: go test -run '^$' -bench . ./tui
// Targets (issue 5): start to the tool list under 100 ms; one filter keystroke over
// 10,000 tools under 16 ms at p99; a 50 MB result's first screen under 200 ms, a page
// of scrolling under 16 ms, and memory under 3x the payload.

// BenchmarkStartToToolList: from nothing to a rendered frame with the tool list of the
// bundled host (which starts as a child process, as it does for a user).
func BenchmarkStartToToolList(b *testing.B) {
	target := hostTarget(b)
	var samples []time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		h := newHarness(b, target, 120, 40)
		h.until("tools", func(m *model) bool { return len(m.list.tools) > 0 })
		_ = h.m.render()
		samples = append(samples, time.Since(start))
		h.close()
	}
	reportPercentiles(b, samples)
}

func BenchmarkFilterKeystroke10000Tools(b *testing.B) {
	m := newModel(Options{Theme: "dark"})
	m.width, m.height = 120, 40
	tools := make([]client.Tool, 10000)
	for i := range tools {
		tools[i] = client.Tool{Name: fmt.Sprintf("tool_%05d_%s", i, []string{"search", "fetch", "delete", "create", "list"}[i%5]),
			Description: "Does thing number " + fmt.Sprint(i) + " with the widget service and returns its status."}
	}
	m.list.setTools(tools)
	setReady(m.srv)
	m.list.filtering = true
	keys := []string{"s", "e", "a", "r", "c", "h"}
	var samples []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := keys[i%len(keys)]
		start := time.Now()
		if i%len(keys) == 0 {
			m.list.setFilter("")
		}
		m.Update(keyMsg(k))
		_ = m.render()
		samples = append(samples, time.Since(start))
	}
	reportPercentiles(b, samples)
}

func BenchmarkFiftyMegabyteResult(b *testing.B) {
	text := strings.Repeat("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n", (50<<20)/64)
	raw, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": text}}})
	var first, page []time.Duration
	var mem uint64
	for i := 0; i < b.N; i++ {
		m := newModel(Options{Theme: "dark"})
		m.width, m.height = 120, 40
		setReady(m.srv)
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		r := &client.CallResult{Content: []client.Content{{Type: "text", Text: text}}, Raw: raw}
		m.current = &outcome{id: 1, tool: client.Tool{Name: "big"}, result: r}
		m.tab, m.focus = tabResult, paneRight
		_ = m.render()
		first = append(first, time.Since(start))
		for j := 0; j < 20; j++ {
			start = time.Now()
			m.Update(keyMsg("pgdown"))
			_ = m.render()
			page = append(page, time.Since(start))
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if d := after.HeapInuse - before.HeapInuse; d > mem && after.HeapInuse > before.HeapInuse {
			mem = d
		}
		runtime.KeepAlive(m)
	}
	sort.Slice(first, func(i, j int) bool { return first[i] < first[j] })
	sort.Slice(page, func(i, j int) bool { return page[i] < page[j] })
	b.ReportMetric(float64(first[len(first)/2].Microseconds())/1000, "first-screen-ms")
	b.ReportMetric(float64(page[len(page)*99/100].Microseconds())/1000, "page-p99-ms")
	// The payload is held once by the caller's text; what the view adds is on top.
	b.ReportMetric(float64(mem)/float64(len(text)), "view-heap-x-payload")
}

func reportPercentiles(b *testing.B, samples []time.Duration) {
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(samples[len(samples)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkTrafficFrame100000Events: one frame of the Traffic tab drawn after
// 100,000 events, following the newest, with a direction filter on (the filtered
// rows are kept as events arrive, not rebuilt per frame).
func BenchmarkTrafficFrame100000Events(b *testing.B) {
	for _, filter := range []int{0, 1} {
		b.Run(dirFilters[filter], func(b *testing.B) {
			m := newModel(Options{Theme: "dark"})
			defer m.closeSpools()
			m.width, m.height = 120, 40
			setReady(m.srv)
			m.tab, m.focus = tabTraffic, paneRight
			m.traffic.dirIndex = filter
			m.traffic.refilter()
			events := make([]wire.Event, 0, 1000)
			for i := 0; i < 100000; i++ {
				dir := wire.Send
				if i%2 == 1 {
					dir = wire.Recv
				}
				data := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo"}}`, i)
				events = append(events, wire.Event{Time: time.Now(), Kind: wire.KindMessage, Dir: dir, Data: []byte(data), Size: len(data)})
				if len(events) == cap(events) {
					m.traffic.add(events)
					events = events[:0]
				}
			}
			_ = m.render()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = m.render()
			}
		})
	}
}

// BenchmarkLogIngest100000: 100,000 log notifications through the pump into the
// model, and the frames drawn for the messages they arrive in. It is the binary's
// path from the workbench subscription on (connect hands every EventLog to
// pump.log); scripts/bench-logs measures the whole of it, server and SDK included.
func BenchmarkLogIngest100000(b *testing.B) {
	for i := 0; i < b.N; i++ {
		m := newModel(Options{Theme: "dark"})
		m.width, m.height = 120, 40
		setReady(m.srv)
		m.tab, m.focus = tabLogs, paneRight
		msgs := make(chan tea.Msg, 1024)
		p := newPump(func(msg tea.Msg) { msgs <- msg }, int(splitKeep(0).pending))
		done := make(chan int)
		go func() {
			got, frames := 0, 0
			for msg := range msgs {
				m.Update(msg)
				_ = m.render()
				frames++
				got += len(msg.(wireBatchMsg).logs)
				if got == 100000 {
					break
				}
			}
			done <- frames
		}()
		for j := 0; j < 100000; j++ {
			p.log("main", time.Now(), client.LogMessage{Level: "info", Data: json.RawMessage(`"a log line of the flood"`)})
		}
		frames := <-done
		p.stop()
		m.closeSpools()
		b.ReportMetric(float64(frames), "frames")
	}
}
