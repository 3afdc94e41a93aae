// Package serverstart measures how long a stdio server takes to start: the baseline
// that benchmarks of mcpscope's own work after a restart are compared with, measured
// in the same run (a figure from another run on a shared machine compares nothing).
package serverstart

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/target"
)

// Median is the median of n starts of argv: started, connected, and its tools listed.
// Each session is closed outside the measured time.
func Median(tb testing.TB, argv []string, n int, opts client.Options) time.Duration {
	tb.Helper()
	ctx := context.Background()
	ds := make([]time.Duration, 0, n)
	for range n {
		t0 := time.Now()
		s, err := client.Connect(ctx, target.Target{Argv: argv}, opts)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := s.Tools(ctx); err != nil {
			s.Close()
			tb.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
		s.Close()
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}
