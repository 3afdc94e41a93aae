package tui

import (
	"testing"
	"time"
)

// The status bar's last-call duration keeps one width, so the key hints after it
// stay put from one call to the next (a golden of the status bar depended on it).
func TestLastCallTextKeepsItsWidth(t *testing.T) {
	for _, d := range []time.Duration{0, 9 * time.Millisecond, 12 * time.Millisecond, 999 * time.Millisecond,
		time.Second, 9990 * time.Millisecond, 42 * time.Second, 99 * time.Second, 59*time.Minute + 59*time.Second,
		3 * time.Hour, 1000 * time.Hour} {
		if got := lastCallText(d); len(got) != 6 {
			t.Errorf("lastCallText(%v) = %q, %d wide", d, got, len(got))
		}
	}
}
