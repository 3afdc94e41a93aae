package idlemem

import (
	"context"
	"sync"
	"testing"
	"time"
)

// sink keeps a busy spell's allocations from being optimised away.
var sink []byte

// An idle spell frees once, however long it lasts; a busy interval frees nothing;
// the next idle spell frees again. The test gives the watcher its ticks one at a
// time and waits for each check, so no interval depends on the machine's load.
func TestFreesOnceEachIdleSpell(t *testing.T) {
	orig := freeOSMemory
	t.Cleanup(func() { freeOSMemory = orig })
	frees := 0
	freeOSMemory = func() { frees++; orig() } // only the watcher's goroutine calls it
	ticks := make(chan time.Time)
	checked := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); watch(ctx, ticks, func() { checked <- struct{}{} }) }()
	defer func() { cancel(); wg.Wait() }()
	tick := func() { ticks <- time.Now(); <-checked }

	steps := []struct {
		busy  bool
		frees int
	}{
		{false, 1}, // the first quiet interval frees
		{false, 1}, // idle on: nothing more
		{false, 1},
		{true, 1}, // busy: nothing
		{true, 1},
		{false, 2}, // idle again: one more
		{false, 2},
	}
	for i, s := range steps {
		if s.busy {
			for range 16 {
				sink = make([]byte, Quiet/4)
			}
		}
		tick()
		if frees != s.frees { // read after <-checked: the watcher is waiting for a tick
			t.Fatalf("step %d (busy %v): %d frees, want %d", i, s.busy, frees, s.frees)
		}
	}
}
