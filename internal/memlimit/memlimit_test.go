package memlimit

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// --keep sets the runtime's memory limit: what the process held at the start, 9/8 of
// --keep and the headroom; GOMEMLIMIT, when set, wins.
func TestKeepSetsTheMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	t.Setenv("GOMEMLIMIT", "")
	base := InUse()
	if base <= 0 {
		t.Fatalf("the runtime holds %d bytes?", base)
	}
	got := FromKeep(8 << 20)
	if now := debug.SetMemoryLimit(-1); now != got {
		t.Fatalf("FromKeep says %d, the runtime's limit is %d", got, now)
	}
	if lo, hi := base+9<<20+Headroom, InUse()+9<<20+Headroom; got < lo-1<<20 || got > hi+1<<20 {
		t.Errorf("limit %d for --keep 8MiB; want about %d..%d (in use + 9/8 keep + headroom)", got, lo, hi)
	}
}

func TestGOMEMLIMITWins(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	debug.SetMemoryLimit(1 << 40)
	t.Setenv("GOMEMLIMIT", "1TiB")
	if got := FromKeep(8 << 20); got != 1<<40 {
		t.Errorf("with GOMEMLIMIT set, the limit became %d", got)
	}
}

func TestNoKeepNoLimit(t *testing.T) {
	if got := Limit(1<<20, 0); got != math.MaxInt64 {
		t.Errorf("Limit(_, 0) = %d, want no limit", got)
	}
}

// sink holds what TestLimitFollowsWhatIsLive keeps live.
var sink []byte

// TestLimitFollowsWhatIsLive: what is live beyond --keep's stores (a 100 MiB result
// open on the screen) raises the limit after the next collection, so the collector
// does not run on and on over memory it cannot free: an idle workbench holding a
// 100 MiB result burned a quarter of a core with the limit fixed (0.9% without it).
func TestLimitFollowsWhatIsLive(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	t.Setenv("GOMEMLIMIT", "")
	start := FromKeep(8 << 20)
	sink = make([]byte, 64<<20)
	for i := range sink {
		sink[i] = byte(i)
	}
	defer func() { sink = nil }()
	runtime.GC()
	testutil.Eventually(t, "the limit above what is live", func() (bool, string) {
		runtime.GC()
		lim := debug.SetMemoryLimit(-1)
		return lim > start+64<<20, fmt.Sprintf("limit %d MiB, started at %d MiB, 64 MiB live", lim>>20, start>>20)
	})
	// Freed, the limit comes back down to --keep's.
	sink = nil
	testutil.Eventually(t, "the limit back to --keep's", func() (bool, string) {
		runtime.GC()
		lim := debug.SetMemoryLimit(-1)
		return lim < start+32<<20, fmt.Sprintf("limit %d MiB, started at %d MiB", lim>>20, start>>20)
	})
}
