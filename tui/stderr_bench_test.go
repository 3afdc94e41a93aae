package tui

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client/wire"
)

func rssBytes() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "VmRSS:") {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(sc.Text(), "VmRSS:")), "%g", &kb)
			return kb * 1024
		}
	}
	return 0
}

// BenchmarkStderr300MB: 300 MB of stderr lines (100 bytes each) into the model, as
// the pump delivers them; the heap and RSS retained afterwards.
func BenchmarkStderr300MB(b *testing.B) {
	for i := 0; i < b.N; i++ {
		m := newModel(Options{Theme: "dark"})
		m.width, m.height = 120, 40
		setReady(m.srv)
		m.tab, m.focus = tabStderr, paneRight
		line := strings.Repeat("x", 99)
		batch := make([]wire.Event, 0, 1000)
		servers := make([]string, 1000)
		now := time.Now()
		for j := 0; j < 3_000_000; j++ {
			batch = append(batch, wire.Event{Time: now, Kind: wire.KindStderr, Data: []byte(line), Size: 99})
			if len(batch) == cap(batch) {
				m.Update(wireBatchMsg{events: batch, servers: servers})
				batch = make([]wire.Event, 0, 1000)
				if j%100000 == 99999 {
					_ = m.render()
				}
			}
		}
		_ = m.render()
		runtime.GC()
		debug.FreeOSMemory()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
		b.ReportMetric(rssBytes()/(1<<20), "rss-MiB")
		runtime.KeepAlive(m)
		closeIfAny(m)
	}
}
func closeIfAny(m *model) { m.closeSpools() }
