package tui

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/workbench"
)

// Issue 10: start to first screen with the tools of 5 bundled hosts against 1 (they
// connect in parallel: within 1.2x), and one filter keystroke over 10 servers x 1,000
// tools (p99 under 16 ms). Run with:
//
//	go test -run '^$' -bench 'Servers' -benchtime 5x ./tui
//
// The bundled host is CPU-bound while it starts (about 20 ms of CPU per process:
// exec and page faults, package init, registering the demo tools), so on a 2-core
// machine 5 of them cannot start in the time of one: servers-cpu-ms and self-cpu-ms
// say what the machine had to run. slow-start servers (fakemcp: they sleep 1.5 s
// before they read) show the screen's own part: 5 cost what 1 does.
func BenchmarkStartServers(b *testing.B) {
	for _, c := range []struct {
		kind string
		n    int
	}{{"hosts", 1}, {"hosts", 5}, {"slow-start", 1}, {"slow-start", 5}} {
		n := c.n
		b.Run(fmt.Sprintf("%d-%s", n, c.kind), func(b *testing.B) {
			target := hostTarget(b)
			if c.kind == "slow-start" {
				target = client.Target{Argv: testutil.FakeServer(b, "slow-start")}
			}
			var specs []workbench.Spec
			for i := range n {
				specs = append(specs, workbench.Spec{Name: fmt.Sprintf("h%d", i), Target: target})
			}
			var samples []time.Duration
			self0, kids0 := cpuTimes()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				h := newHarnessWith(b, Options{Servers: specs, Theme: "dark"}, 120, 40)
				h.until("every server's tools", func(m *model) bool {
					for _, s := range m.servers {
						if len(s.tools()) == 0 {
							return false
						}
					}
					return len(m.servers) == n
				})
				_ = h.m.render()
				samples = append(samples, time.Since(start))
				h.close()
			}
			self1, kids1 := cpuTimes()
			reportPercentiles(b, samples)
			// What the machine had to run per start: mcpscope's own CPU and the servers'
			// (reaped children). Spread over the cores, their sum bounds the time.
			b.ReportMetric(float64((self1-self0).Microseconds())/1000/float64(b.N), "self-cpu-ms")
			b.ReportMetric(float64((kids1-kids0).Microseconds())/1000/float64(b.N), "servers-cpu-ms")
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
	setReady(m.srv)
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

// cpuTimes is the CPU time (user and system) used so far by this process and by its
// reaped children.
func cpuTimes() (self, children time.Duration) {
	var ru syscall.Rusage
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		self = tv(ru.Utime) + tv(ru.Stime)
	}
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil {
		children = tv(ru.Utime) + tv(ru.Stime)
	}
	return self, children
}

// BenchmarkIdleRSSPerServer: what each extra idle stdio server (the bundled host)
// costs mcpscope's own RSS, the built binary in a real terminal: 1 server against 11,
// each connected with its tools listed, then idle (target: under 2 MB a server).
//
//	go test -run '^$' -bench IdleRSSPerServer -benchtime 1x ./tui
//
// vmRSSKB is a process's resident set in kB, from its /proc status file (0 when
// unreadable).
func vmRSSKB(status string) float64 {
	b, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return kb
		}
	}
	return 0
}

func BenchmarkIdleRSSPerServer(b *testing.B) {
	bin := testutil.Mcpscope(b)
	const extra = 10
	measure := func(n int) float64 {
		args := ""
		for i := range n {
			args += fmt.Sprintf(" --server h%d=host", i)
		}
		x := newTmux(b, 200, 50, "exec "+bin+args)
		x.waitFor("echo ")
		x.keys("7")
		x.waitUntil("every server connected and counted", func(s string) bool {
			return strings.Count(s, "● connected") >= n && !strings.Contains(s, "resources …")
		})
		// What is measured is the idle state: the RSS once it has stopped moving (the
		// same in eight polls in a row), not after a fixed pause.
		status := fmt.Sprintf("/proc/%d/status", x.panePID())
		var kb float64
		same := 0
		testutil.Eventually(b, "the RSS to settle", func() (bool, string) {
			now := vmRSSKB(status)
			if now == kb {
				same++
			} else {
				kb, same = now, 0
			}
			return same >= 8 && kb > 0, fmt.Sprintf("%.0f kB", kb)
		})
		x.keys("q")
		_ = exec.Command("tmux", "-L", x.socket, "kill-server").Run()
		return kb / 1024
	}
	var one, many float64
	for i := 0; i < b.N; i++ {
		one, many = measure(1), measure(1+extra)
	}
	b.ReportMetric(one, "MB-RSS-1-server")
	b.ReportMetric(many, "MB-RSS-11-servers")
	b.ReportMetric((many-one)/extra, "MB-RSS/extra-server")
}
