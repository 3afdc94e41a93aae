package workbench_test

import (
	"context"
	"fmt"
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
