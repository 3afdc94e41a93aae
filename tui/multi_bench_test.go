package tui

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/workbench"
)

// Issue 10: start to first screen with the tools of 5 bundled hosts against 1 (they
// connect in parallel: within 1.2x), and one filter keystroke over 10 servers x 1,000
// tools (p99 under 16 ms). Run with:
//
//	go test -run '^$' -bench 'Servers' -benchtime 5x ./tui
func BenchmarkStartServers(b *testing.B) {
	for _, n := range []int{1, 5} {
		b.Run(fmt.Sprintf("%d-hosts", n), func(b *testing.B) {
			target := hostTarget(b)
			var specs []workbench.Spec
			for i := range n {
				specs = append(specs, workbench.Spec{Name: fmt.Sprintf("h%d", i), Target: target})
			}
			var samples []time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				h := newHarnessWith(b, Options{Servers: specs, Theme: "dark"}, 120, 40)
				h.until("every server's tools", func(m *model) bool {
					for _, s := range m.servers {
						if len(s.tools) == 0 {
							return false
						}
					}
					return len(m.servers) == n
				})
				_ = h.m.render()
				samples = append(samples, time.Since(start))
				h.close()
			}
			reportPercentiles(b, samples)
		})
	}
}

func BenchmarkFilterKeystroke10Servers1000Tools(b *testing.B) {
	m := newModel(Options{Theme: "dark"})
	m.width, m.height = 120, 40
	var entries []listTool
	for s := range 10 {
		for i := range 1000 {
			entries = append(entries, listTool{server: fmt.Sprintf("srv%02d", s), tool: client.Tool{
				Name:        fmt.Sprintf("tool_%04d_%s", i, []string{"search", "fetch", "delete", "create", "list"}[i%5]),
				Description: "Does thing number " + fmt.Sprint(i) + " with the widget service and returns its status."}})
		}
	}
	m.list.setEntries(entries, true)
	m.srv.state = stateReady
	m.list.filtering = true
	keys := []string{"s", "r", "v", "0", "3", "/", "s", "e", "a"}
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
