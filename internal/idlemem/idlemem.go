// Package idlemem gives the heap's free memory back to the system when the process
// goes idle. The Go runtime keeps freed heap pages up to about its next collection's
// goal (twice what is live) and hands the rest back slowly, so a workbench that
// built its first frames and went quiet sat on twice its live heap for as long as it
// stayed open (issue 23, target 5: idle RSS). Once an interval passes in which the
// process allocated almost nothing, Watch returns what is free, once, and again
// only after the next busy spell: an idle process pays one collection, a busy one
// nothing but a counter read per interval. With the heap it drops the binary's
// pages that the process mapped (ReleaseFilePages): most of them ran once, at start.
package idlemem

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Quiet is what an interval may allocate and still count as idle: a frame of the
// workbench's screen redrawn for a spinner or a clock costs a few KiB.
const Quiet = 256 << 10

// freeOSMemory returns the free heap and drops the binary's clean pages
// (ReleaseFilePages); a test counts its calls.
var freeOSMemory = func() {
	debug.FreeOSMemory()
	ReleaseFilePages()
}

// Watch checks every interval how much the process allocated since the last check,
// and returns the free heap to the system after the first quiet interval of each
// idle spell. It returns when ctx ends; run it in a goroutine of its own.
func Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	watch(ctx, t.C, func() {})
}

// watch is Watch on ticks it is given; checked runs after each check (a test's pace).
func watch(ctx context.Context, ticks <-chan time.Time, checked func()) {
	last, freed := allocated(), false
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
		}
		now := allocated()
		busy := now-last > Quiet
		if !busy && !freed {
			freeOSMemory()
			now = allocated() // what freeing itself allocated is not the next spell's
		}
		freed, last = !busy, now
		checked()
	}
}

// allocated is how many heap bytes the process has allocated since it started.
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
