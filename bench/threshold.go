package bench

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/client/wire"
)

// Threshold is one --fail-on condition, METRIC OP VALUE: the run fails when it holds.
// Metrics: min, mean, p50, p90, p95, p99, p999, max (durations: 200ms, 1.5s), ttfb50
// and ttfb99 (time to first progress), rps (calls a second), errors (a count, or a
// share of calls: 1%), cpu (percent of one core) and rss (the tree's peak: 200MiB).
type Threshold struct {
	Text   string
	Metric string
	Op     string
	Value  float64 // seconds for durations, bytes for rss, a count or percent
	Pct    bool    // errors given as a share of calls
}

var durationMetrics = map[string]float64{"min": 0, "mean": -1, "p50": .50, "p90": .90, "p95": .95, "p99": .99, "p999": .999, "max": 1, "ttfb50": .50, "ttfb99": .99}

// MetricNames are the metrics a threshold may name, for help and errors.
const MetricNames = "min, mean, p50, p90, p95, p99, p999, max, ttfb50, ttfb99, rps, errors, cpu, rss"

// ParseThresholds reads a comma-separated list of conditions ("p99>200ms,errors>0").
func ParseThresholds(s string) ([]Threshold, error) {
	var out []Threshold
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		t, err := parseThreshold(part)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func parseThreshold(s string) (Threshold, error) {
	i := strings.IndexAny(s, "<>=")
	if i <= 0 {
		return Threshold{}, fmt.Errorf("--fail-on %q: write METRIC>VALUE or METRIC<VALUE, such as p99>200ms, errors>0 or rps<500", s)
	}
	t := Threshold{Text: s, Metric: strings.TrimSpace(strings.ToLower(s[:i]))}
	rest := s[i:]
	for _, op := range []string{">=", "<=", ">", "<"} {
		if strings.HasPrefix(rest, op) {
			t.Op, rest = op, strings.TrimSpace(rest[len(op):])
			break
		}
	}
	if t.Op == "" {
		return Threshold{}, fmt.Errorf("--fail-on %q: the operator is one of >, >=, <, <=", s)
	}
	bad := func(want string) error {
		return fmt.Errorf("--fail-on %q: %s takes %s", s, t.Metric, want)
	}
	switch _, isDur := durationMetrics[t.Metric]; {
	case isDur:
		d, err := time.ParseDuration(rest)
		if err != nil {
			return Threshold{}, bad("a duration such as 200ms or 1.5s")
		}
		t.Value = d.Seconds()
	case t.Metric == "errors" && strings.HasSuffix(rest, "%"):
		f, err := strconv.ParseFloat(strings.TrimSuffix(rest, "%"), 64)
		if err != nil {
			return Threshold{}, bad("a count (errors>0) or a share of calls (errors>1%)")
		}
		t.Value, t.Pct = f, true
	case t.Metric == "errors" || t.Metric == "rps" || t.Metric == "cpu":
		f, err := strconv.ParseFloat(strings.TrimSuffix(rest, "%"), 64)
		if err != nil {
			return Threshold{}, bad("a number")
		}
		t.Value = f
	case t.Metric == "rss":
		n, err := parseBytes(rest)
		if err != nil {
			return Threshold{}, bad("a size such as 200MiB")
		}
		t.Value = float64(n)
	default:
		return Threshold{}, fmt.Errorf("--fail-on %q: no metric %q; use one of %s", s, t.Metric, MetricNames)
	}
	return t, nil
}

func parseBytes(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}} {
		if strings.HasSuffix(s, u.suf) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suf)), u.m
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("not a size: %q", s)
	}
	return int64(f * float64(mult)), nil
}

// Outcome is a threshold judged against a run.
type Outcome struct {
	Threshold
	Measured string // the metric's value, as a person reads it
	Failed   bool
	Unknown  bool // the run has no such figure (no streamed answers, no process tree)
}

// Judge evaluates each threshold against r.
func Judge(r *Result, ts []Threshold) []Outcome {
	out := make([]Outcome, 0, len(ts))
	for _, t := range ts {
		o := Outcome{Threshold: t}
		v, text, ok := measure(r, t)
		if !ok {
			// A condition the run cannot judge fails: a CI step that asked for it
			// must not pass without it.
			o.Unknown, o.Failed, o.Measured = true, true, text
		} else {
			o.Measured = text
			switch t.Op {
			case ">":
				o.Failed = v > t.Value
			case ">=":
				o.Failed = v >= t.Value
			case "<":
				o.Failed = v < t.Value
			case "<=":
				o.Failed = v <= t.Value
			}
		}
		out = append(out, o)
	}
	return out
}

func measure(r *Result, t Threshold) (float64, string, bool) {
	if q, ok := durationMetrics[t.Metric]; ok {
		h := &r.Latency
		if strings.HasPrefix(t.Metric, "ttfb") {
			h = &r.FirstByte
			if h.Count() == 0 {
				return 0, "no call was answered with progress first", false
			}
		}
		var d time.Duration
		switch t.Metric {
		case "min":
			d = h.Min()
		case "mean":
			d = h.Mean()
		case "max":
			d = h.Max()
		default:
			d = h.Quantile(q)
		}
		return d.Seconds(), FormatDuration(d), true
	}
	switch t.Metric {
	case "rps":
		v := r.Throughput()
		return v, fmt.Sprintf("%.1f/s", v), true
	case "errors":
		n := float64(r.ErrorTotal())
		if t.Pct {
			if r.Calls == 0 {
				return 0, "no calls", false
			}
			v := 100 * n / float64(r.Calls)
			return v, fmt.Sprintf("%.2f%%", v), true
		}
		return n, strconv.FormatUint(r.ErrorTotal(), 10), true
	case "cpu":
		if r.Process == nil {
			return 0, "the server's processes were not sampled", false
		}
		v := r.Process.CPUPercent()
		return v, fmt.Sprintf("%.1f%%", v), true
	case "rss":
		if r.Process == nil {
			return 0, "the server's processes were not sampled", false
		}
		return float64(r.Process.RSSPeak), wire.HumanBytes(r.Process.RSSPeak), true
	}
	return 0, "", false
}
