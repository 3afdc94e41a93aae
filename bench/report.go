package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// Report is a finished run as the CLI prints it.
type Report struct {
	Server    string // the server's name (untrusted when it came from the server)
	Target    string // what was started or reached
	Transport string // stdio or http
	Result    *Result
	Warmup    string // "", "50 calls", "2s"
	Outcomes  []Outcome
}

// Failed says whether a threshold failed.
func (r *Report) Failed() bool {
	for _, o := range r.Outcomes {
		if o.Failed {
			return true
		}
	}
	return false
}

// WriteText writes the report for a person: the figures, the histogram and the
// throughput line, within width cells. Every string from the server goes through
// termsafe.
func WriteText(w io.Writer, r *Report, width int, st Style) error {
	res := r.Result
	var b strings.Builder
	mode := fmt.Sprintf("closed loop, %d in flight", res.Concurrency)
	if res.Rate > 0 {
		mode = fmt.Sprintf("open loop at %g calls/s, at most %d in flight", res.Rate, res.Concurrency)
	}
	sessions := ""
	if res.Sessions > 1 {
		unit := "processes"
		if r.Transport == "http" {
			unit = "clients"
		}
		sessions = fmt.Sprintf(" over %d %s", res.Sessions, unit)
	}
	fmt.Fprintf(&b, "bench %s on %s (%s%s)\n", termsafe.Line(res.Tool), termsafe.Line(r.Server), mode, sessions)
	if r.Warmup != "" {
		fmt.Fprintf(&b, "  warm-up     %s, not counted\n", r.Warmup)
	}
	if res.Interrupted {
		b.WriteString("  interrupted: the figures are of the calls finished before\n")
	}
	fmt.Fprintf(&b, "  calls       %d in %s: %d ok, %d failed\n", res.Calls, FormatDuration(res.Elapsed), res.OK, res.ErrorTotal())
	if res.Ended != "" {
		fmt.Fprintf(&b, "  ended       %s\n", termsafe.Line(res.Ended))
		for _, l := range res.EndedStderr {
			fmt.Fprintf(&b, "              stderr: %s\n", termsafe.Line(l))
		}
	}
	fmt.Fprintf(&b, "  throughput  %.1f calls/s\n", res.Throughput())
	h := &res.Latency
	fmt.Fprintf(&b, "  latency     p50 %s  p90 %s  p99 %s  max %s  (min %s, mean %s)\n",
		FormatDuration(h.Quantile(.5)), FormatDuration(h.Quantile(.9)), FormatDuration(h.Quantile(.99)),
		FormatDuration(h.Max()), FormatDuration(h.Min()), FormatDuration(h.Mean()))
	if f := &res.FirstByte; f.Count() > 0 {
		fmt.Fprintf(&b, "  first byte  p50 %s  p99 %s  (progress first in %d of %d calls)\n",
			FormatDuration(f.Quantile(.5)), FormatDuration(f.Quantile(.99)), f.Count(), res.Calls)
	}
	if res.Rate > 0 {
		fmt.Fprintf(&b, "  schedule    %d of %d calls sent late (every slot busy; the wait is in their latency), the longest by %s\n",
			res.Late, res.Calls, FormatDuration(res.MaxLag))
	}
	for _, e := range res.Errors {
		ex := e.Example
		if len(ex) > 120 {
			ex = ex[:120] + "…"
		}
		fmt.Fprintf(&b, "  error       %d × %s: %s\n", e.Count, e.Kind, termsafe.Line(ex))
	}
	if p := res.Process; p != nil {
		fmt.Fprintf(&b, "  server      %d process%s, CPU %.1f%% of a core (%s), RSS peak %s, mean %s\n",
			p.Pids, plural(p.Pids, "es"), p.CPUPercent(), FormatDuration(p.CPU), wire.HumanBytes(p.RSSPeak), wire.HumanBytes(p.RSSMean))
	}
	if res.Calls > 0 {
		b.WriteString("\nlatency (log scale; ◂ p99)\n")
		for _, line := range HistogramChart(h, 10, width, st) {
			b.WriteString(line + "\n")
		}
		b.WriteString("\ncalls/s over the run\n" + ThroughputLine(res.Series, max(width-34, 10), st) + "\n")
	}
	if len(r.Outcomes) > 0 {
		b.WriteString("\n")
		for _, o := range r.Outcomes {
			verdict := "ok  "
			if o.Failed {
				verdict = "FAIL"
			}
			fmt.Fprintf(&b, "%s  %s  (measured %s)\n", verdict, o.Text, o.Measured)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, suffix string) string {
	if n == 1 {
		return ""
	}
	return suffix
}

// The JSON report, for scripts. Durations are milliseconds (fractional).
type jsonReport struct {
	Server      string        `json:"server"`
	Target      string        `json:"target"`
	Transport   string        `json:"transport"`
	Tool        string        `json:"tool"`
	Mode        string        `json:"mode"` // closed or open
	Concurrency int           `json:"concurrency"`
	Sessions    int           `json:"sessions"`
	Rate        float64       `json:"rate,omitempty"`
	Warmup      string        `json:"warmup,omitempty"`
	Interrupted bool          `json:"interrupted,omitempty"`
	Ended       string        `json:"ended,omitempty"`
	EndedStderr []string      `json:"endedStderr,omitempty"`
	Calls       uint64        `json:"calls"`
	OK          uint64        `json:"ok"`
	Failed      uint64        `json:"failed"`
	ElapsedMs   float64       `json:"elapsedMs"`
	Throughput  float64       `json:"throughput"`
	LatencyMs   percentiles   `json:"latencyMs"`
	FirstByte   *firstByte    `json:"firstByte,omitempty"`
	Late        *lateSends    `json:"late,omitempty"`
	Errors      []jsonError   `json:"errors"`
	Process     *jsonProcess  `json:"process,omitempty"`
	Histogram   []jsonBin     `json:"histogram"`
	Series      jsonSeries    `json:"throughputSeries"`
	Thresholds  []jsonOutcome `json:"thresholds,omitempty"`
	Passed      bool          `json:"passed"`
}

type percentiles struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

type firstByte struct {
	Calls uint64  `json:"calls"`
	P50   float64 `json:"p50Ms"`
	P99   float64 `json:"p99Ms"`
	Max   float64 `json:"maxMs"`
}

type lateSends struct {
	Calls    uint64  `json:"calls"`
	MaxLagMs float64 `json:"maxLagMs"`
}

type jsonError struct {
	Kind    string `json:"kind"`
	Count   uint64 `json:"count"`
	Example string `json:"example"`
}

type jsonProcess struct {
	Pids       int     `json:"pids"`
	CPUSeconds float64 `json:"cpuSeconds"`
	CPUPercent float64 `json:"cpuPercent"`
	RSSPeak    int64   `json:"rssPeakBytes"`
	RSSMean    int64   `json:"rssMeanBytes"`
	Samples    int     `json:"samples"`
}

type jsonBin struct {
	LoMs  float64 `json:"loMs"`
	HiMs  float64 `json:"hiMs"`
	Count uint64  `json:"count"`
}

type jsonSeries struct {
	StepMs float64  `json:"stepMs"`
	Calls  []uint64 `json:"calls"`
}

type jsonOutcome struct {
	Check    string `json:"check"`
	Measured string `json:"measured"`
	Failed   bool   `json:"failed"`
	Unknown  bool   `json:"unknown,omitempty"`
}

func ms(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }

// WriteJSON writes the report as one JSON document.
func WriteJSON(w io.Writer, r *Report) error {
	res := r.Result
	h := &res.Latency
	j := jsonReport{
		Server: r.Server, Target: r.Target, Transport: r.Transport, Tool: res.Tool, Mode: "closed",
		Concurrency: res.Concurrency, Sessions: res.Sessions, Rate: res.Rate, Warmup: r.Warmup, Interrupted: res.Interrupted,
		Ended: res.Ended, EndedStderr: res.EndedStderr,
		Calls: res.Calls, OK: res.OK, Failed: res.ErrorTotal(), ElapsedMs: ms(res.Elapsed), Throughput: math.Round(res.Throughput()*10) / 10,
		LatencyMs: percentiles{Min: ms(h.Min()), Mean: ms(h.Mean()), P50: ms(h.Quantile(.5)), P90: ms(h.Quantile(.9)), P95: ms(h.Quantile(.95)),
			P99: ms(h.Quantile(.99)), P999: ms(h.Quantile(.999)), Max: ms(h.Max())},
		Errors: []jsonError{}, Histogram: []jsonBin{}, Series: jsonSeries{StepMs: ms(SeriesStep), Calls: res.Series},
		Passed: !r.Failed(),
	}
	if j.Series.Calls == nil {
		j.Series.Calls = []uint64{}
	}
	if res.Rate > 0 {
		j.Mode = "open"
		j.Late = &lateSends{Calls: res.Late, MaxLagMs: ms(res.MaxLag)}
	}
	if f := &res.FirstByte; f.Count() > 0 {
		j.FirstByte = &firstByte{Calls: f.Count(), P50: ms(f.Quantile(.5)), P99: ms(f.Quantile(.99)), Max: ms(f.Max())}
	}
	for _, e := range res.Errors {
		j.Errors = append(j.Errors, jsonError(e))
	}
	if p := res.Process; p != nil {
		j.Process = &jsonProcess{Pids: p.Pids, CPUSeconds: p.CPU.Seconds(), CPUPercent: math.Round(p.CPUPercent()*10) / 10,
			RSSPeak: p.RSSPeak, RSSMean: p.RSSMean, Samples: p.Samples}
	}
	for _, b := range h.Bins(20) {
		j.Histogram = append(j.Histogram, jsonBin{LoMs: ms(b.Lo), HiMs: ms(b.Hi), Count: b.Count})
	}
	for _, o := range r.Outcomes {
		j.Thresholds = append(j.Thresholds, jsonOutcome{Check: o.Text, Measured: o.Measured, Failed: o.Failed, Unknown: o.Unknown})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(j)
}
