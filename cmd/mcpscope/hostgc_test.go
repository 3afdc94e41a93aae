package main

import (
	"runtime/debug"
	"testing"
)

// The host collects less often while it starts, then at the pace it had before.
func TestHostStartupGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	restore := startupGC()
	if got := debug.SetGCPercent(400); got != 400 {
		t.Errorf("while starting, the GC percent is %d, want 400", got)
	}
	restore()
	restore() // once is enough; a second call changes nothing
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after the start, the GC percent is %d, want the 100 it had", got)
	}
}
