// Package bench measures one tool's latency under load: calls through mcpscope's own
// client (client.Session's Call, so the figures are what mcpscope's client does),
// closed loop (N in flight) or open loop (arrivals at a rate), with a warm-up, into a
// fixed-size histogram, with errors by kind and the server's process tree's CPU and
// memory. It does no output of its own beyond Write; the CLI and the workbench draw
// a Result.
package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpscope/mcpscope/client"
)

// Caller makes one call; *client.Session is one.
type Caller interface {
	Call(ctx context.Context, name string, args json.RawMessage, opts client.CallOptions) (*client.CallResult, error)
}

// Options say what to call, how hard and for how long.
type Options struct {
	Tool string
	Args json.RawMessage
	// Callers are the sessions calls go through: worker i uses Callers[i%len]. One
	// session over stdio is one process with Concurrency requests in flight on it;
	// several are several processes, or HTTP clients of their own.
	Callers []Caller
	// Concurrency is the number of calls in flight at most (at least 1).
	Concurrency int
	// Count calls are measured; when 0, calls are made for Duration.
	Count    int
	Duration time.Duration
	// Rate, when above 0, is an open loop: calls are scheduled Rate a second whatever
	// the server does, and a call's latency runs from its scheduled time, so time it
	// waited for a free slot counts (coordinated omission does not hide queueing).
	Rate float64
	// WarmupCount calls, or calls for WarmupDuration, are made first and not counted.
	WarmupCount    int
	WarmupDuration time.Duration
	// Tree, when set, is the server's process tree, sampled during the measured run.
	Tree *Tree
	// OnTick, when set, is given the run so far every Tick (default 100 ms), on a
	// goroutine of its own, for a live display.
	OnTick func(*Result)
	Tick   time.Duration
}

// SeriesStep is the width of one point of the throughput line.
const SeriesStep = 100 * time.Millisecond

// Result is what a run measured. A Result given to OnTick is a copy.
type Result struct {
	Tool        string
	Concurrency int
	Sessions    int
	Rate        float64
	Calls       uint64 // calls finished in the measured run, with or without an error
	OK          uint64
	Errors      []ErrorCount // by kind, most first
	Latency     Histogram
	FirstByte   Histogram // calls answered with progress first: time to the first notification
	Elapsed     time.Duration
	// Series is the calls finished in each SeriesStep of the run.
	Series []uint64
	// Open loop: calls sent after their scheduled time (a free slot was late), and the
	// longest such wait.
	Late   uint64
	MaxLag time.Duration
	// Process is the server's tree over the run; nil when it was not sampled.
	Process     *ProcStats
	Interrupted bool // the context ended before the run did
	// Ended says why the run stopped early, "" when it did not: every session's
	// server process exited ("the server ended during call N: why"). A dead server
	// answers nothing, so no call is made through it after: the failures a dead
	// session gives at once, in microseconds, would be the latencies reported.
	Ended string
	// EndedStderr is the last stderr lines of the server that ended first.
	EndedStderr []string
}

// ErrorCount is how many calls failed one way: "isError" (the tool said so),
// "jsonrpc CODE", "timeout" or "transport"; Example is the first one's message, as
// the server sent it (untrusted: through termsafe before a terminal).
type ErrorCount struct {
	Kind    string
	Count   uint64
	Example string
}

// Throughput is calls finished a second over the measured run.
func (r *Result) Throughput() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Calls) / r.Elapsed.Seconds()
}

// ErrorTotal is every failed call.
func (r *Result) ErrorTotal() uint64 { return r.Calls - r.OK }

// Kind names how a call failed; "" when it did not.
func Kind(r *client.CallResult, err error) (kind, msg string) {
	var rpc *client.RPCError
	var te *client.TimeoutError
	switch {
	case err == nil && r != nil && r.IsError:
		for _, c := range r.Content {
			if c.Type == "text" {
				return "isError", c.Text
			}
		}
		return "isError", ""
	case err == nil:
		return "", ""
	case errors.As(err, &rpc):
		return fmt.Sprintf("jsonrpc %d", rpc.Code), rpc.Message
	case errors.As(err, &te), errors.Is(err, context.DeadlineExceeded):
		return "timeout", err.Error()
	}
	// A server's failure ends its message with its stderr, line by line: the
	// example is its first line (the stderr is the run's Ended's).
	msg, _, _ = strings.Cut(err.Error(), "\n")
	return "transport", msg
}

// serverEnded says whether err is the session's server process having exited: no
// call through that session can be answered after it. (Over HTTP there is no process
// of ours: a refused request says nothing of the next.)
func serverEnded(err error) (*client.ServerError, bool) {
	var se *client.ServerError
	return se, errors.As(err, &se) && se.Exit != nil
}

// state is a run's counts, behind one lock: at the rates a server answers (well
// under a million a second) the lock is not what is measured.
type state struct {
	mu     sync.Mutex
	res    Result
	errs   map[string]*ErrorCount
	start  time.Time
	record bool
	// dead marks the callers whose server process exited (serverEnded), by index in
	// Options.Callers: no worker calls through them again, warm-up or measured run.
	dead []atomic.Bool
}

// ended marks caller i dead, and says so in the result the first time a server ends.
func (s *state) ended(i int, se *client.ServerError) {
	s.dead[i].Store(true)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.res.Ended != "" {
		return
	}
	when := fmt.Sprintf("during call %d", s.res.Calls)
	if !s.record {
		when = "during the warm-up"
	}
	why, _, _ := strings.Cut(se.Error(), "\n")
	s.res.Ended = "the server ended " + when + ": " + why
	s.res.EndedStderr = append([]string(nil), se.Stderr...)
}

func (s *state) add(sent, done time.Time, first time.Duration, kind, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.record {
		return
	}
	s.res.Calls++
	s.res.Latency.Record(done.Sub(sent))
	if first > 0 {
		s.res.FirstByte.Record(first)
	}
	if kind == "" {
		s.res.OK++
	} else {
		e := s.errs[kind]
		if e == nil {
			e = &ErrorCount{Kind: kind, Example: msg}
			s.errs[kind] = e
		}
		e.Count++
	}
	i := int(done.Sub(s.start) / SeriesStep)
	for len(s.res.Series) <= i {
		s.res.Series = append(s.res.Series, 0)
	}
	s.res.Series[i]++
}

func (s *state) lag(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Under a millisecond is the timer's and the scheduler's slack, not a wait for a
	// slot.
	if s.record && d > time.Millisecond {
		s.res.Late++
		s.res.MaxLag = max(s.res.MaxLag, d)
	}
}

// snapshot is a copy of the result so far.
func (s *state) snapshot(now time.Time) *Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.res
	r.Series = append([]uint64(nil), s.res.Series...)
	r.Errors = sortErrors(s.errs)
	r.Elapsed = now.Sub(s.start)
	return &r
}

// Run makes the calls. It returns an error only for options that cannot run; what
// the calls did is in the Result. Cancelling ctx ends the run early (Interrupted).
func Run(ctx context.Context, o Options) (*Result, error) {
	if len(o.Callers) == 0 {
		return nil, errors.New("bench: no session to call through")
	}
	if o.Count <= 0 && o.Duration <= 0 {
		return nil, errors.New("bench: give a count or a duration")
	}
	o.Concurrency = max(o.Concurrency, 1)
	if o.Tick <= 0 {
		o.Tick = 100 * time.Millisecond
	}
	st := &state{errs: map[string]*ErrorCount{}, dead: make([]atomic.Bool, len(o.Callers))}
	st.res = Result{Tool: o.Tool, Concurrency: o.Concurrency, Sessions: len(o.Callers), Rate: o.Rate}
	if o.WarmupCount > 0 || o.WarmupDuration > 0 {
		// The warm-up runs closed loop: its point is warm caches and connections, not
		// the arrival pattern.
		w := o
		w.Count, w.Duration, w.Rate = o.WarmupCount, o.WarmupDuration, 0
		drive(ctx, w, st)
	}
	var sampler *sampler
	if o.Tree != nil {
		sampler = startSampler(*o.Tree)
	}
	st.mu.Lock()
	st.start, st.record = time.Now(), true
	st.mu.Unlock()
	stopTick := make(chan struct{})
	var ticks sync.WaitGroup
	if o.OnTick != nil {
		ticks.Add(1)
		go func() {
			defer ticks.Done()
			t := time.NewTicker(o.Tick)
			defer t.Stop()
			for {
				select {
				case <-stopTick:
					return
				case now := <-t.C:
					o.OnTick(st.snapshot(now))
				}
			}
		}()
	}
	end := drive(ctx, o, st)
	close(stopTick)
	ticks.Wait()
	r := st.snapshot(end)
	if sampler != nil {
		r.Process = sampler.stop()
	}
	r.Interrupted = ctx.Err() != nil
	return r, nil
}

// drive makes o's calls into st and returns when the last one finished.
func drive(ctx context.Context, o Options, st *state) time.Time {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	var deadline time.Time
	if o.Count <= 0 {
		deadline = start.Add(o.Duration)
	}
	// The open loop's scheduler hands out tickets, each a call's scheduled send time.
	// The closed loop needs none: a free worker takes the next call from a counter,
	// with no goroutine between it and the call (a hand-off per call would be
	// bench's own cost, measured as the server's).
	var tickets chan time.Time
	if o.Rate > 0 {
		tickets = make(chan time.Time, o.Concurrency)
		go func() {
			defer close(tickets)
			schedule(ctx, o, start, deadline, tickets)
		}()
	}
	var taken atomic.Int64
	next := func() (time.Time, bool) {
		if tickets != nil {
			sched, ok := <-tickets
			return sched, ok
		}
		if o.Count > 0 && taken.Add(1) > int64(o.Count) || !deadline.IsZero() && !time.Now().Before(deadline) || ctx.Err() != nil {
			return time.Time{}, false
		}
		return time.Time{}, true
	}
	var last atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < o.Concurrency; w++ {
		wg.Add(1)
		go func(i int, c Caller) {
			defer wg.Done()
			for {
				if st.dead[i].Load() {
					return // its server is gone; the others go on, if any
				}
				sched, ok := next()
				if !ok {
					return
				}
				sent := time.Now()
				if !sched.IsZero() {
					st.lag(sent.Sub(sched))
					sent = sched
				}
				var first atomic.Int64
				r, err := c.Call(ctx, o.Tool, o.Args, client.CallOptions{OnProgress: func(client.Progress) {
					first.CompareAndSwap(0, int64(time.Since(sent)))
				}})
				done := time.Now()
				if ctx.Err() != nil {
					return // interrupted: not a failure of the server's
				}
				kind, msg := Kind(r, err)
				st.add(sent, done, time.Duration(first.Load()), kind, msg)
				if se, ok := serverEnded(err); ok {
					st.ended(i, se)
				}
				for {
					old := last.Load()
					if done.UnixNano() <= old || last.CompareAndSwap(old, done.UnixNano()) {
						break
					}
				}
			}
		}(w%len(o.Callers), o.Callers[w%len(o.Callers)])
	}
	wg.Wait()
	if n := last.Load(); n > 0 {
		return time.Unix(0, n)
	}
	return time.Now()
}

// schedule sends the open loop's tickets: call i at start + i/Rate, for Count calls
// or until the deadline. When every slot is busy the send waits, and the calls behind
// it keep their scheduled times: the wait is in their latency.
func schedule(ctx context.Context, o Options, start, deadline time.Time, tickets chan<- time.Time) {
	interval := time.Duration(float64(time.Second) / o.Rate)
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	for i := 0; o.Count <= 0 || i < o.Count; i++ {
		at := start.Add(time.Duration(i) * interval)
		if !deadline.IsZero() && !at.Before(deadline) {
			return
		}
		if d := time.Until(at); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-ctx.Done():
				return
			}
		}
		select {
		case tickets <- at:
		case <-ctx.Done():
			return
		}
	}
}

// ReadOnly says whether a tool may be benched without --allow-write: only one its
// server marked readOnlyHint: true. An absent hint is false (the spec's default), so
// a tool that says nothing is treated as one that writes.
func ReadOnly(t client.Tool) bool { return t.Annotations.ReadOnly.Set && t.Annotations.ReadOnly.Value }

// WriteRefusal is what is said, before anything is sent, of a tool that is not
// read-only: which tool of which server, and why it matters under load.
func WriteRefusal(server, tool string, calls string) string {
	return fmt.Sprintf("tool %s of server %s is not marked read-only (readOnlyHint: true), and bench would call it %s: a tool that writes would change the server's data each time",
		tool, server, calls)
}
