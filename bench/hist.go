package bench

import (
	"math"
	"math/bits"
	"time"
)

// Histogram counts latencies in log-linear buckets, as HdrHistogram does: 128 buckets
// per power of two, so a value is known to within 1/128 (0.8%) of itself, from 1 ns to
// the largest duration. Its size is fixed (57 KiB) however many calls it counts: exact
// samples would be 8 MB at a million calls, and a --duration run has no bound. Min,
// max and the sum are exact.
type Histogram struct {
	counts [(64 - subBits + 1) * subCount]uint64
	n      uint64
	sum    time.Duration
	min    time.Duration
	max    time.Duration
}

const (
	subBits  = 7
	subCount = 1 << subBits
)

// index is the bucket of v (ns, >= 0).
func index(v uint64) int {
	if v < subCount {
		return int(v)
	}
	exp := bits.Len64(v) - subBits - 1 // v>>exp is in [128, 256)
	return (exp+1)*subCount + int(v>>uint(exp)) - subCount
}

// upper is the largest value bucket i holds.
func upper(i int) uint64 {
	if i < subCount {
		return uint64(i)
	}
	exp := i/subCount - 1
	sub := uint64(i%subCount + subCount)
	return (sub+1)<<uint(exp) - 1
}

// Record counts one latency (a negative one counts as 0).
func (h *Histogram) Record(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.counts[index(uint64(d))]++
	if h.n == 0 || d < h.min {
		h.min = d
	}
	if d > h.max {
		h.max = d
	}
	h.n++
	h.sum += d
}

// Merge adds o's counts to h.
func (h *Histogram) Merge(o *Histogram) {
	if o.n == 0 {
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.n += o.n
	h.sum += o.sum
}

// Count is how many latencies were recorded.
func (h *Histogram) Count() uint64 { return h.n }

// Min and Max are exact.
func (h *Histogram) Min() time.Duration { return h.min }
func (h *Histogram) Max() time.Duration { return h.max }

// Mean is the exact mean.
func (h *Histogram) Mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return h.sum / time.Duration(h.n)
}

// Quantile is the latency at or below which q (0..1) of the calls fall: the largest
// value of the bucket that holds the call of rank ceil(q·n), never above the max.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = max(rank, 1)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(time.Duration(upper(i)), h.max)
		}
	}
	return h.max
}

// minBinRatio is the narrowest bar Bins draws, as the ratio of its upper edge to its
// lower: the histogram knows a latency to 1/128 (0.8%) and a label gives three
// significant digits (1% at 100ms), so a narrower bar could say nothing its
// neighbours do not.
const minBinRatio = 1.02

// Bin is one bar of a drawn histogram: the calls whose latency is in [Lo, Hi).
type Bin struct {
	Lo, Hi time.Duration
	Count  uint64
}

// Bins spreads the recorded latencies over n bars of equal width on a log scale from
// min to max (latencies span orders of magnitude: a linear scale puts every call in
// the first bar when one is slow).
func (h *Histogram) Bins(n int) []Bin {
	if h.n == 0 || n <= 0 {
		return nil
	}
	lo, hi := math.Log(float64(max(h.min, time.Microsecond))), math.Log(float64(max(h.max, time.Microsecond))+1)
	if hi-lo < 1e-9 {
		hi = lo + 1e-9
	}
	// No bar narrower than minBinRatio: latencies that all took about as long (a tool
	// that sleeps 1 s) are fewer bars, each with a range of its own, not ten bars
	// labelled "1.00s – 1.00s", nine of them empty.
	n = max(1, min(n, int(math.Ceil((hi-lo)/math.Log(minBinRatio)))))
	out := make([]Bin, n)
	edge := func(k int) time.Duration { return time.Duration(math.Exp(lo + (hi-lo)*float64(k)/float64(n))) }
	for k := range out {
		out[k] = Bin{Lo: edge(k), Hi: edge(k + 1)}
	}
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		v := math.Log(float64(max(time.Duration(upper(i)), time.Microsecond)))
		k := int((v - lo) / (hi - lo) * float64(n))
		k = min(max(k, 0), n-1)
		out[k].Count += c
	}
	return out
}
