package client

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/client/wire"
)

// DefaultTimeout is the default per-request timeout (Options.Timeout).
const DefaultTimeout = 60 * time.Second

// TimeoutError says a request got no answer in time. It was cancelled: over stdio
// and legacy HTTP with notifications/cancelled, over 2026-07-28 HTTP by closing its
// stream.
type TimeoutError struct {
	What     string        // the request: `tools/call "slow"`, `tools/list`
	After    time.Duration // how long it ran
	Timeout  time.Duration // the per-request timeout
	Cap      bool          // the hard cap ended it, not silence
	Progress int           // progress notifications it reported
	From     string        // where Timeout was set ("" is the --timeout flag)
}

// from is where the timeout was set, as the message names it.
func (e *TimeoutError) from() string {
	if e.From != "" {
		return e.From
	}
	return "--timeout"
}

func (e *TimeoutError) Error() string {
	if e.Cap {
		return fmt.Sprintf("%s did not finish within %v, the hard cap (--timeout-cap), although it kept reporting progress (%d notifications, each of which restarts the %v timeout, %s); it was cancelled", e.What, e.After, e.Progress, e.Timeout, e.from())
	}
	if e.Progress > 0 {
		return fmt.Sprintf("%s did not finish: no answer and no progress for %v (%s) after %d progress notifications; it was cancelled", e.What, e.Timeout, e.from(), e.Progress)
	}
	return fmt.Sprintf("%s did not finish within %v (%s); it was cancelled", e.What, e.Timeout, e.from())
}

// requestTimer bounds one request: Timeout of silence, which each progress
// notification restarts, and TimeoutCap in all.
type requestTimer struct {
	mu       sync.Mutex
	what     string
	from     string
	idle     time.Duration
	start    time.Time
	progress int
	idleT    *time.Timer
	capT     *time.Timer
	capD     time.Duration
	cancel   context.CancelCauseFunc
	fired    bool            // the timeout ended the request
	captures []*wire.Capture // sealed when it fires
}

// startRequest returns the context for one request and its timer; stop it when the
// request is done. With no timeout configured the context only inherits ctx.
func (s *Session) startRequest(ctx context.Context, what string) (context.Context, *requestTimer) {
	rctx, cancel := context.WithCancelCause(ctx)
	rt := &requestTimer{what: what, idle: s.opts.Timeout, from: s.opts.TimeoutFrom, start: time.Now(), cancel: cancel}
	if rt.idle <= 0 {
		return rctx, rt
	}
	capD := s.opts.TimeoutCap
	if capD <= 0 {
		capD = 10 * rt.idle
	}
	rt.idleT = time.AfterFunc(rt.idle, func() { rt.fire(false) })
	rt.capD = capD
	rt.capT = time.AfterFunc(capD, func() { rt.fire(true) })
	return rctx, rt
}

func (rt *requestTimer) fire(isCap bool) {
	rt.mu.Lock()
	e := &TimeoutError{What: rt.what, After: time.Since(rt.start).Round(time.Millisecond), Timeout: rt.idle, Cap: isCap, Progress: rt.progress, From: rt.from}
	if isCap {
		// The cap itself, not the time measured: a loaded machine fires the timer late,
		// and the message should name the bound the user set.
		e.After = rt.capD
	}
	rt.fired = true
	captures := rt.captures
	rt.mu.Unlock()
	// Sealed before the cancel: the request is given up now, and what the server says
	// after (a server may still answer a cancelled request; the SDK's servers answer
	// "context canceled") is not its result. Without this, a reply that reached the
	// capture before the SDK noticed the cancel (a loaded machine) made the call an
	// answer instead of a timeout.
	for _, c := range captures {
		c.Seal()
	}
	rt.cancel(e)
}

// capture is wire.WithCapture for a request this timer bounds: its capture takes no
// response once the timeout fired. Every request that reads its result from a capture
// gets the capture here.
func (rt *requestTimer) capture(rctx context.Context) (context.Context, *wire.Capture) {
	cctx, c := wire.WithCapture(rctx)
	rt.mu.Lock()
	fired := rt.fired
	rt.captures = append(rt.captures, c)
	rt.mu.Unlock()
	if fired {
		c.Seal()
	}
	return cctx, c
}

// progressed restarts the silence clock.
func (rt *requestTimer) progressed() {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.progress++
	if rt.idleT != nil {
		rt.idleT.Reset(rt.idle)
	}
}

func (rt *requestTimer) stop() {
	if rt.idleT != nil {
		rt.idleT.Stop()
		rt.capT.Stop()
	}
	rt.cancel(nil)
}

// timeoutErr returns the TimeoutError that ended rctx, if one did.
func timeoutErr(rctx context.Context) *TimeoutError {
	if e, ok := context.Cause(rctx).(*TimeoutError); ok {
		return e
	}
	return nil
}
