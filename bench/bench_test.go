package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/bench"
	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// host connects to the bundled host over stdio and counts the tools/call requests
// the session sends.
func host(t testing.TB) (*client.Session, *atomic.Int64) {
	return hostWith(t, client.Options{})
}

// hostWith is host with the client's options.
func hostWith(t testing.TB, opts client.Options) (*client.Session, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	tap := &wire.Tap{}
	tap.Listen(func(e wire.Event) {
		if e.Kind == wire.KindMessage && e.Dir == wire.Send && e.Method == "tools/call" {
			calls.Add(1)
		}
	})
	opts.Tap = tap
	s, err := client.Connect(testutil.Context(t), client.Target{Argv: []string{testutil.Mcpscope(t), "host"}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, &calls
}

// The histogram's quantiles are those of the sorted samples, within its 1/128.
func TestHistogramQuantilesMatchSortedSamples(t *testing.T) {
	var h bench.Histogram
	var samples []time.Duration
	for i := 1; i <= 10000; i++ {
		d := time.Duration(i*i) * time.Microsecond / 50 // spread over four decades
		samples = append(samples, d)
		h.Record(d)
	}
	slices.Sort(samples)
	for _, q := range []float64{.5, .9, .99, .999, 1} {
		want := samples[int(math.Ceil(q*float64(len(samples))))-1]
		got := h.Quantile(q)
		if got < want || float64(got-want) > float64(want)/128 {
			t.Errorf("q%.3f: %v, want %v (within 1/128 above)", q, got, want)
		}
	}
	if h.Max() != samples[len(samples)-1] || h.Min() != samples[0] || h.Count() != 10000 {
		t.Errorf("min %v max %v count %d", h.Min(), h.Max(), h.Count())
	}
	var total uint64
	for _, b := range h.Bins(10) {
		total += b.Count
	}
	if total != 10000 {
		t.Errorf("the bins hold %d calls, want 10000", total)
	}
}

// Against the bundled host: exactly Count calls measured (and Warmup more sent),
// and each way of failing counted under its kind: the tool's isError, and the
// JSON-RPC error an unknown tool gets.
func TestRunCountsCallsAndErrorsByKind(t *testing.T) {
	s, sent := host(t)
	ctx := testutil.Context(t)
	r, err := bench.Run(ctx, bench.Options{Tool: "echo", Args: json.RawMessage(`{"text":"hi"}`), Callers: []bench.Caller{s},
		Concurrency: 4, Count: 120, WarmupCount: 10})
	if err != nil {
		t.Fatal(err)
	}
	if r.Calls != 120 || r.OK != 120 || len(r.Errors) != 0 || r.Latency.Count() != 120 {
		t.Errorf("echo: %d calls, %d ok, errors %v; want 120 ok", r.Calls, r.OK, r.Errors)
	}
	if n := sent.Load(); n != 130 {
		t.Errorf("%d tools/call sent, want 120 + 10 warm-up", n)
	}
	if r.Latency.Quantile(.5) <= 0 || r.Latency.Quantile(.99) < r.Latency.Quantile(.5) || r.Latency.Max() < r.Latency.Quantile(.99) {
		t.Errorf("percentiles out of order: p50 %v p99 %v max %v", r.Latency.Quantile(.5), r.Latency.Quantile(.99), r.Latency.Max())
	}

	for _, c := range []struct{ tool, kind, example string }{
		{"fail", "isError", "always fails"},
		{"no_such_tool", "jsonrpc -32602", "no_such_tool"},
	} {
		r, err := bench.Run(ctx, bench.Options{Tool: c.tool, Callers: []bench.Caller{s}, Concurrency: 2, Count: 30})
		if err != nil {
			t.Fatal(err)
		}
		if r.Calls != 30 || r.OK != 0 || len(r.Errors) != 1 || r.Errors[0].Kind != c.kind || r.Errors[0].Count != 30 ||
			!strings.Contains(r.Errors[0].Example, c.example) {
			t.Errorf("%s: %d calls, %d ok, errors %+v; want 30 × %s", c.tool, r.Calls, r.OK, r.Errors, c.kind)
		}
	}
}

// An open loop sends every scheduled call, whatever the server does: at 40 calls a
// second for half a second, 20 calls, though one slot and a tool that takes 50 ms
// would let a closed loop send 10 at most. The calls that waited for the slot are
// counted late.
func TestOpenLoopSendsEveryScheduledCall(t *testing.T) {
	s, sent := host(t)
	r, err := bench.Run(testutil.Context(t), bench.Options{Tool: "slow", Args: json.RawMessage(`{"steps":1,"delayMs":50}`),
		Callers: []bench.Caller{s}, Concurrency: 1, Rate: 40, Duration: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Calls != 20 || r.OK != 20 || sent.Load() != 20 {
		t.Errorf("%d calls measured (%d ok), %d sent; want the 20 scheduled", r.Calls, r.OK, sent.Load())
	}
	if r.Late == 0 {
		t.Errorf("no call was late, though each takes 50 ms and one is scheduled every 25 ms")
	}
}

// A tool is read-only for bench only when its server said readOnlyHint: true.
func TestReadOnlyNeedsTheHint(t *testing.T) {
	s, _ := host(t)
	list, err := s.Tools(testutil.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"echo": true, "slow": true, "random_id": false, "pretend_delete": false, "set_counter": false}
	for _, tl := range list.Tools {
		if w, ok := want[tl.Name]; ok {
			if bench.ReadOnly(tl) != w {
				t.Errorf("%s: ReadOnly %v, want %v", tl.Name, !w, w)
			}
			delete(want, tl.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("the host lacks %v", want)
	}
}

func TestThresholds(t *testing.T) {
	var r bench.Result
	r.Calls, r.OK = 100, 97
	for i := 1; i <= 100; i++ {
		r.Latency.Record(time.Duration(i) * time.Millisecond)
	}
	r.Elapsed = time.Second
	for _, c := range []struct {
		cond   string
		failed bool
	}{
		{"p99>50ms", true}, {"p99>200ms", false}, {"p50<=60ms", true}, {"max>=100ms", true},
		{"errors>0", true}, {"errors>3", false}, {"errors>2%", true}, {"errors>5%", false},
		{"rps<50", false}, {"rps<500", true}, {"ttfb99>1s", true /* nothing streamed: cannot pass */}, {"cpu>50", true},
	} {
		ts, err := bench.ParseThresholds(c.cond)
		if err != nil {
			t.Fatalf("%s: %v", c.cond, err)
		}
		if o := bench.Judge(&r, ts); len(o) != 1 || o[0].Failed != c.failed {
			t.Errorf("%s: %+v, want failed=%v", c.cond, o, c.failed)
		}
	}
	for _, bad := range []string{"p99", "p99>fast", "latency>1s", "rss>lots", "errors=>1"} {
		if _, err := bench.ParseThresholds(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

// BenchmarkOverhead runs the same calls on the same session against the bundled
// host, in alternating blocks so that the machine's load weighs on both alike: a
// bare loop of Session.Call, and bench.Run's path (its scheduling, the progress
// callback, the histogram). overhead-% is bench's time per call above the bare
// loop's. At one call in flight the host answers echo at about 1,000 calls/s.
//
// The session is configured as the CLI's is (--timeout's default): every call then
// asks for progress, the bare loop's as bench's, so both send the same request.
// (bench always asks, to time the first progress notification; a session without a
// timeout would send the bare loop's calls without a progress token, about 20 µs of
// the client's CPU a call less.)
func BenchmarkOverhead(b *testing.B) {
	s, _ := hostWith(b, client.Options{Timeout: client.DefaultTimeout})
	ctx := context.Background()
	args := json.RawMessage(`{"text":"hi"}`)
	const block = 100
	var bare, viaBench time.Duration
	calls := 0
	b.ResetTimer()
	var bareCPU, benchCPU time.Duration
	bareLoop := func() time.Duration {
		c0 := cpuTime()
		defer func() { bareCPU += cpuTime() - c0 }()
		t0 := time.Now()
		for i := 0; i < block; i++ {
			if _, err := s.Call(ctx, "echo", args, client.CallOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(t0)
	}
	benchRun := func() time.Duration {
		c0 := cpuTime()
		defer func() { benchCPU += cpuTime() - c0 }()
		t0 := time.Now()
		r, err := bench.Run(ctx, bench.Options{Tool: "echo", Args: args, Callers: []bench.Caller{s}, Concurrency: 1, Count: block})
		if err != nil || r.OK != block {
			b.Fatalf("%v %+v", err, r.Errors)
		}
		return time.Since(t0)
	}
	for n := 0; calls < b.N; n++ {
		// Each goes first every other block: neither always runs after the other's
		// garbage or on a server the other warmed.
		if n%2 == 0 {
			bare += bareLoop()
			viaBench += benchRun()
		} else {
			viaBench += benchRun()
			bare += bareLoop()
		}
		calls += block
	}
	b.ReportMetric(float64(bare.Nanoseconds())/float64(calls), "bare-ns/call")
	b.ReportMetric(float64(viaBench.Nanoseconds())/float64(calls), "bench-ns/call")
	b.ReportMetric(float64(calls)/bare.Seconds(), "bare-calls/s")
	b.ReportMetric(100*(viaBench.Seconds()-bare.Seconds())/bare.Seconds(), "overhead-%")
	// This process's CPU time (the client's work; the host is another process): less
	// at the mercy of the machine's other load than wall time.
	b.ReportMetric(float64(bareCPU.Microseconds())/float64(calls), "bare-cpu-µs/call")
	b.ReportMetric(float64(benchCPU.Microseconds())/float64(calls), "bench-cpu-µs/call")
	b.ReportMetric(100*(benchCPU.Seconds()-bareCPU.Seconds())/bareCPU.Seconds(), "cpu-overhead-%")
}

// cpuTime is this process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Calls that all took about as long (a tool that sleeps 1 s) draw as many bars as the
// histogram can tell apart, each with its own range: ten bars all labelled
// "1.00s – 1.00s", nine of them empty, said nothing the histogram knows (it holds a
// latency to within 0.8%).
func TestHistogramOfCloseLatenciesHasDistinctBars(t *testing.T) {
	for _, lat := range [][]time.Duration{
		{time.Second, time.Second + time.Millisecond, time.Second + 3*time.Millisecond},
		{time.Second, time.Second},
		{100 * time.Millisecond, 104 * time.Millisecond, 150 * time.Millisecond},
	} {
		res := &bench.Result{Tool: "slow", Concurrency: 1, Calls: uint64(len(lat)), OK: uint64(len(lat)), Elapsed: 3 * time.Second}
		for _, d := range lat {
			res.Latency.Record(d)
		}
		var b strings.Builder
		if err := bench.WriteText(&b, &bench.Report{Server: "s", Result: res}, 100, bench.Style{}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		_, chart, _ := strings.Cut(out, "latency (log scale; ◂ p99)\n")
		chart, _, _ = strings.Cut(chart, "\n\n")
		seen := map[string]bool{}
		for _, row := range strings.Split(chart, "\n") {
			label, _, _ := strings.Cut(row, "│")
			label = strings.TrimSpace(label)
			if seen[label] {
				t.Errorf("%v: two bars labelled %q:\n%s", lat, label, chart)
				break
			}
			seen[label] = true
		}
		if !strings.Contains(chart, " "+fmt.Sprint(len(lat))+" ") && len(seen) == 1 {
			t.Errorf("%v: one bar should hold every call:\n%s", lat, chart)
		}
	}
}
