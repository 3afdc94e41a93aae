package surface

import (
	"strings"
	"testing"
)

// A summary of one change reads in the singular, as every count mcpscope prints.
func TestSummaryCountsInTheSingular(t *testing.T) {
	r := &Report{Compatible: 1, Entries: []Entry{{}}}
	if got := r.Summary(); !strings.HasPrefix(got, "0 breaking, 1 compatible change in 1 object (") {
		t.Errorf("summary %q", got)
	}
	r = &Report{Breaking: 1, Compatible: 2, Entries: []Entry{{}, {}}}
	if got := r.Summary(); !strings.HasPrefix(got, "1 breaking, 2 compatible changes in 2 objects (") {
		t.Errorf("summary %q", got)
	}
}
