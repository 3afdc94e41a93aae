package surface

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpscope/mcpscope/client"
)

// TestLoadSidesLiveOneAfterTheOther: two live sides connect one after the other (the
// second starts once the first has returned), each with its label; a saved file loads
// without the live function; a path that names no file is a usage error and never
// reaches a server.
func TestLoadSidesLiveOneAfterTheOther(t *testing.T) {
	ctx := context.Background()
	var running, overlapped atomic.Int32
	var order []string
	live := func(_ context.Context, spec, label string) (*Surface, error) {
		if running.Add(1) > 1 {
			overlapped.Add(1)
		}
		defer running.Add(-1)
		order = append(order, spec+"="+label)
		return &Surface{Label: label, HasTools: true}, nil
	}
	s, errs := LoadSides(ctx, [2]string{"one", ""}, [2]string{"", "./srv --flag"}, live)
	if errs[0] != nil || errs[1] != nil || overlapped.Load() != 0 {
		t.Fatalf("errors %v, overlapped %d", errs, overlapped.Load())
	}
	if strings.Join(order, " ") != "one=one =./srv --flag" || s[1].Label != "./srv --flag" {
		t.Errorf("live sides %q, labels %q %q", order, s[0].Label, s[1].Label)
	}

	order = nil
	file := filepath.Join("testdata", "everything.json")
	s, errs = LoadSides(ctx, [2]string{file, "two"}, [2]string{}, live)
	if errs[0] != nil || errs[1] != nil || len(s[0].Tools) == 0 || strings.Join(order, " ") != "two=two" {
		t.Errorf("a file beside a server: %v, %d tools, live %q", errs, len(s[0].Tools), order)
	}

	order = nil
	for _, missing := range []string{"dir/none", "none.json", "none.jsonl"} {
		_, errs = LoadSides(ctx, [2]string{missing, "two"}, [2]string{}, live)
		var ue *client.UsageError
		if !errors.As(errs[0], &ue) || !strings.Contains(errs[0].Error(), "no such file") {
			t.Errorf("%s: %v", missing, errs[0])
		}
	}
	if strings.Join(order, " ") != "two=two two=two two=two" {
		t.Errorf("a missing file reached a server: %q", order)
	}
}
