package host

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkHostSoak sends b.N sequential echo calls over stdio and reports the latency
// tail: a host that now and then reads a request and answers it only much later (a
// stall) shows up as a max far above p99.9, where the mean hides it. "process" runs
// the real binary (mcpscope host) over OS pipes, as a client would; "inproc" serves
// over in-process OS pipes, without the process boundary. A call that takes longer
// than stallAfter fails the benchmark. oversleep-µs is the worst lateness of a 1 ms
// sleep in the benchmark's process over the run: a max near it means the machine was
// busy, a max far above it a stall of the host's own. Run it bounded, e.g.
//
//	go test ./host -run '^$' -bench HostSoak -benchtime 100000x
func BenchmarkHostSoak(b *testing.B) {
	const stallAfter = 5 * time.Second
	for _, era := range eras {
		b.Run("process/"+era, func(b *testing.B) {
			cmd := exec.Command(testutil.Mcpscope(b), "host")
			cmd.Stderr = os.Stderr
			soak(b, &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, era, stallAfter)
		})
		b.Run("inproc/"+era, func(b *testing.B) {
			h, err := New(Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			inR, inW, err := os.Pipe()
			if err != nil {
				b.Fatal(err)
			}
			outR, outW, err := os.Pipe()
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				ServeStdio(ctx, h.Server(), inR, outW, FramingNDJSON)
				outW.Close()
				close(done)
			}()
			defer func() { cancel(); inW.Close(); <-done; inR.Close(); outR.Close() }()
			soak(b, &mcp.IOTransport{Reader: outR, Writer: inW}, era, stallAfter)
		})
	}
}

func soak(b *testing.B, t mcp.Transport, era string, stallAfter time.Duration) {
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "soak", Version: "0"}, nil)
	cs, err := c.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}
	lat := make([]time.Duration, 0, b.N)
	// A probe of the machine: how late a 1 ms sleep in this process wakes up. A call
	// as slow as the worst oversleep was starved of CPU with everything else; a call
	// far slower than it is the host's own stall.
	stopProbe := make(chan struct{})
	probeDone := make(chan time.Duration)
	go func() {
		var worst time.Duration
		for {
			select {
			case <-stopProbe:
				probeDone <- worst
				return
			default:
			}
			t0 := time.Now()
			time.Sleep(time.Millisecond)
			if over := time.Since(t0) - time.Millisecond; over > worst {
				worst = over
			}
		}
	}()
	b.ResetTimer()
	for b.Loop() {
		cctx, cancel := context.WithTimeout(ctx, stallAfter)
		start := time.Now()
		_, err := cs.CallTool(cctx, params)
		d := time.Since(start)
		cancel()
		if err != nil {
			b.Fatalf("call %d failed after %v: %v", len(lat)+1, d, err)
		}
		lat = append(lat, d)
	}
	b.StopTimer()
	close(stopProbe)
	oversleep := <-probeDone
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) }
	b.ReportMetric(q(0.5), "p50-µs")
	b.ReportMetric(q(0.999), "p99.9-µs")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds()), "max-µs")
	b.ReportMetric(float64(oversleep.Microseconds()), "oversleep-µs")
	b.ReportMetric(float64(len(lat))/b.Elapsed().Seconds(), "calls/s")
}
