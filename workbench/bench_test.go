package workbench_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/workbench"
)

// BenchmarkConnectAndList measures a session from nothing to the tool lists of N
// stdio servers and back. They connect in parallel: 5 servers that wait before they
// answer cost about what 1 does; 5 bundled hosts compete for the machine's cores while
// they start (CPU-bound on a 2-core machine).
func BenchmarkConnectAndList(b *testing.B) {
	self := testutil.Mcpscope(b)
	slow := testutil.FakeServer(b, "slow-start")
	for _, c := range []struct {
		name string
		n    int
		argv []string
	}{
		{"host/servers=1", 1, []string{self, "host"}},
		{"host/servers=5", 5, []string{self, "host"}},
		// A server that sleeps 1.5 s before reading: what a slow npx start costs.
		// Serial connects would make 5 of them cost 5×.
		{"slow-start/servers=1", 1, slow},
		{"slow-start/servers=5", 5, slow},
	} {
		n := c.n
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				w := workbench.New(workbench.Options{Client: base()})
				for j := 0; j < n; j++ {
					spec := host(nil, fmt.Sprintf("h%d", j))
					spec.Target.Argv = c.argv
					if err := w.Add(spec); err != nil {
						b.Fatal(err)
					}
				}
				errs := make(chan error, n)
				for j := 0; j < n; j++ {
					go func() {
						_, err := w.Tools(context.Background(), fmt.Sprintf("h%d", j))
						errs <- err
					}()
				}
				for j := 0; j < n; j++ {
					if err := <-errs; err != nil {
						b.Fatal(err)
					}
				}
				w.Close()
			}
		})
	}
}

// rss is this process's resident set size in bytes.
func rss(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	b.Skip("no VmRSS")
	return 0
}

// BenchmarkIdleServerMemory reports what each extra connected, idle stdio server (the
// bundled host) costs mcpscope's own memory (RSS and Go heap), with 10 of them.
func BenchmarkIdleServerMemory(b *testing.B) {
	self := testutil.Mcpscope(b)
	const extra = 10
	for i := 0; i < b.N; i++ {
		w := workbench.New(workbench.Options{Client: base()})
		connect := func(name string) {
			spec := host(nil, name)
			spec.Target.Argv = []string{self, "host"}
			if err := w.Add(spec); err != nil {
				b.Fatal(err)
			}
			if _, err := w.Tools(context.Background(), name); err != nil {
				b.Fatal(err)
			}
		}
		connect("first")
		runtime.GC()
		var m0 runtime.MemStats
		runtime.ReadMemStats(&m0)
		r0 := rss(b)
		for j := 0; j < extra; j++ {
			connect(fmt.Sprintf("h%d", j))
		}
		runtime.GC()
		var m1 runtime.MemStats
		runtime.ReadMemStats(&m1)
		r1 := rss(b)
		b.ReportMetric(float64(r1-r0)/extra/(1<<20), "MB-RSS/server")
		b.ReportMetric(float64(int64(m1.HeapInuse)-int64(m0.HeapInuse))/extra/(1<<20), "MB-heap/server")
		w.Close()
	}
}
