package workbench_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/workbench"
)

// A reader that stops reading (the screen blocked while an $EDITOR runs) while a
// server floods log notifications holds at most its bound queued, not every event
// since it stopped (issue 22: 0.9 → 11 MiB in 20 s, no ceiling); when it reads again
// it is told how many log lines it missed, and the stream goes on. Counted in events
// queued against frames the server sent, never in time.
func TestSlowSubscriberStaysBounded(t *testing.T) {
	var frames atomic.Int64
	w := newBench(t, workbench.Options{OnWire: func(_ string, e wire.Event) {
		if e.Kind == wire.KindMessage {
			frames.Add(1)
		}
	}})
	const bound = 64
	sub := w.SubscribeWith(workbench.SubscribeOptions{Kinds: []workbench.EventKind{workbench.EventLog, workbench.EventStatus}, Max: bound})
	defer sub.Close()
	if err := w.Add(fake(t, "flood", "flood")); err != nil {
		t.Fatal(err)
	}
	// Not reading: the server goes on flooding (about one log a millisecond).
	testutil.Eventually(t, "the server to send 20 times the bound", func() (bool, string) {
		n := frames.Load()
		return n > 20*bound, fmt.Sprintf("%d frames", n)
	})
	// A status beyond the bound is kept (coalesced, never dropped): one per server.
	if n, _ := sub.Queued(); n > bound+2 {
		t.Fatalf("%d events queued for a reader that does not read, bound %d (%d frames sent)", n, bound, frames.Load())
	}
	// Reading again, as fast as it comes: the events queued, then how many were
	// dropped, then the stream goes on.
	var logs, dropped int
	sawStatus := false
	timeout := time.After(deadline)
	for dropped == 0 || logs < 2*bound {
		select {
		case e := <-sub.C:
			switch e.Kind {
			case workbench.EventLog:
				logs++
			case workbench.EventStatus:
				sawStatus = true
			case workbench.EventDropped:
				dropped += e.Dropped[workbench.EventLog]
				logs = 0 // count the logs after the note
			}
		case <-timeout:
			t.Fatalf("after reading again: %d log lines said dropped, %d logs since", dropped, logs)
		}
	}
	if sent := frames.Load(); int64(dropped) >= sent {
		t.Errorf("%d log lines said dropped of %d frames sent", dropped, sent)
	}
	if !sawStatus {
		t.Error("the server's status never reached the reader")
	}
}

// Statuses coalesce for a reader that does not keep up: the latest of a server
// wins, so what waits stays bounded by the servers, and what the reader reads last is
// the status now, numbered with the connection attempt it is about (Gen), which a
// reader must take from there rather than count the connecting events it saw.
func TestSlowSubscriberStatusesCoalesce(t *testing.T) {
	w := newBench(t, workbench.Options{})
	sub := w.SubscribeWith(workbench.SubscribeOptions{Kinds: []workbench.EventKind{workbench.EventStatus}, Max: 1})
	defer sub.Close()
	must(t, w.Add(fake(t, "ok", "ndjson")))
	wait(t, w, "ok")
	for range 3 {
		must(t, w.Restart("ok"))
		wait(t, w, "ok")
	}
	if n, _ := sub.Queued(); n > 1 {
		t.Fatalf("%d statuses queued for one server", n)
	}
	// Read until the status now (connected, attempt 4) comes; it is at most the
	// second one read: the one the stream had in hand, then the latest.
	timeout := time.After(deadline)
	for n := 1; ; n++ {
		select {
		case e := <-sub.C:
			if st := *e.Status; st.State == workbench.StateConnected && st.Gen == 4 {
				if n > 2 {
					t.Errorf("read %d statuses of one server, want the coalesced ones (at most 2)", n)
				}
			} else {
				continue
			}
		case <-timeout:
			t.Fatal("the status now (connected, attempt 4) never came")
		}
		break
	}
	if snap, ok := w.Snapshot("ok"); !ok || snap.Status.Gen != 4 {
		t.Errorf("the snapshot has attempt %d, want 4", snap.Status.Gen)
	}
}
