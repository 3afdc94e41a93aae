package memlimit

import (
	"math"
	"runtime/debug"
	"testing"
)

// --keep sets the runtime's memory limit: what the process held at the start, 5/4 of
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
	if lo, hi := base+10<<20+Headroom, InUse()+10<<20+Headroom; got < lo-1<<20 || got > hi+1<<20 {
		t.Errorf("limit %d for --keep 8MiB; want about %d..%d (in use + 5/4 keep + headroom)", got, lo, hi)
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
