// Package memlimit sets the Go runtime's soft memory limit from the workbench's
// --keep, so that what --keep bounds is what the process holds, not the half of it:
// with the collector's default pace (GOGC=100) the heap grows to twice what is live
// before a collection, and freed memory goes back to the system only slowly, so a log
// flood held --keep 8MiB at 3.5-4x above the idle process (issue 23, target 3). Under
// the limit the collector runs sooner and the scavenger returns what it freed.
//
// The limit is soft: the runtime never fails an allocation for it, and caps the
// collector's work at about half the CPU when what is live passes it (a big result
// open on the screen), so a limit too low costs speed, never correctness.
package memlimit

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
)

// Headroom is what the limit leaves above the process at its start and 5/4 of --keep
// (of which the screen's stores count 3/4 as theirs: tui's splitKeep): the session's
// own growth (tool lists, forms, the screen's buffers) and, with the rest of --keep,
// what a record costs beyond its count and room for the collector to work without
// running all the time. With 16 MiB, --keep 8MiB held 2.7x --keep above the idle
// process under a log flood; the collector's pace is what fills it.
const Headroom = 4 << 20

// Limit is the memory limit for a process that holds base bytes now and will hold
// up to keep bytes of frames and lines: base + 5/4 keep + Headroom.
func Limit(base, keep int64) int64 {
	if keep <= 0 || base < 0 {
		return math.MaxInt64
	}
	return base + keep/4*5 + Headroom
}

// FromKeep sets the runtime's memory limit from keep (the workbench's --keep) and
// what the process holds now, unless GOMEMLIMIT set one (the user's word wins). It
// returns the limit in force.
func FromKeep(keep int64) int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		return debug.SetMemoryLimit(-1)
	}
	limit := Limit(InUse(), keep)
	debug.SetMemoryLimit(limit)
	return limit
}

// InUse is the memory the Go runtime holds from the system now (mapped and not
// returned): what the limit counts.
func InUse() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}
