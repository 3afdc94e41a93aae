package workbench_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/serverstart"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

const benchSchema = `{"type":"object","properties":{"name":{"type":"string"}}}`

// BenchmarkWatchEditToTools: from writing the tool file to the surface-changed event
// (restart, handshake, tools/list and the rest of the surface, compared), with a
// 50 ms debounce. ns/op is the whole wait, debounce included. The budget
// ("the server's own start time plus 50 ms") is checked on what follows the debounce,
// which is the user's setting; each run reports, from the same run:
//
//	start-ms:          the same server started, connected and its tools listed (median)
//	after-debounce-ms: from the debounce firing (the watch's "restarting") to the event
//	over-start-ms:     after-debounce-ms minus start-ms: what mcpscope adds (budget 50)
//
// Sub-benchmarks: overlapped (the new process starts while the old one exits, the
// default) and sequential (the old one reaped first, as before), in the same run.
//
// slow-exit: the same host behind a shell that lingers 100 ms after the host exits
// (as a node or python server finishing its work after stdin closes does).
func BenchmarkWatchEditToTools(b *testing.B) {
	for _, mode := range []struct {
		name    string
		overlap bool
		linger  bool
	}{{"overlapped", true, false}, {"sequential", false, false}, {"slow-exit/overlapped", true, true}, {"slow-exit/sequential", false, true}} {
		b.Run(mode.name, func(b *testing.B) {
			old := workbench.SetOverlapRestarts(mode.overlap)
			defer workbench.SetOverlapRestarts(old)
			benchEditToTools(b, mode.linger)
		})
	}
}

func benchEditToTools(b *testing.B, linger bool) {
	dir := b.TempDir()
	tools := filepath.Join(dir, "tools.json")
	os.WriteFile(tools, []byte(toolsFile("v0", benchSchema)), 0o644)
	w := workbench.New(workbench.Options{Client: base()})
	defer w.Close()
	ch, cancel := w.Subscribe()
	defer cancel()
	// The server reads its tool file when it starts and never again, as most servers
	// read their code (the bundled host would reload an edited file itself).
	served := filepath.Join(dir, "served.json")
	script := `cp "$1" "$2" && exec "$0" host --tools "$2"`
	if linger {
		script = `cp "$1" "$2" && "$0" host --tools "$2"; sleep 0.1`
	}
	argv := []string{"/bin/sh", "-c", script, testutil.Mcpscope(b), tools, served}
	start := serverstart.Median(b, argv, 15, base())
	spec := workbench.Spec{Name: "dev", Target: target.Target{Argv: argv},
		Watch: []string{tools}, WatchDebounce: 50 * time.Millisecond}
	if err := w.Add(spec); err != nil {
		b.Fatal(err)
	}
	var restarted time.Time
	waitKind := func(k workbench.EventKind, text string) {
		timeout := time.After(deadline)
		for {
			select {
			case e := <-ch:
				if e.Kind == workbench.EventWatch && strings.HasSuffix(e.Text, "changed: restarting") {
					restarted = e.Time
				}
				if e.Kind == k && (text == "" || strings.HasPrefix(e.Text, text)) {
					return
				}
			case <-timeout:
				b.Fatalf("no %s", k)
			}
		}
	}
	waitKind(workbench.EventWatch, "watching")
	if _, err := w.Wait(context.Background(), "dev"); err != nil {
		b.Fatal(err)
	}
	var after time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		restarted = time.Time{}
		os.WriteFile(tools, []byte(toolsFile(fmt.Sprintf("v%d", i+1), benchSchema)), 0o644)
		waitKind(workbench.EventSurfaceChanged, "")
		if restarted.IsZero() {
			b.Fatal("the surface changed before the watch said it restarted")
		}
		after += time.Since(restarted)
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(start), "start-ms")
	b.ReportMetric(ms(after/time.Duration(b.N)), "after-debounce-ms")
	b.ReportMetric(ms(after/time.Duration(b.N)-start), "over-start-ms")
}

// BenchmarkServerStart: the bundled host with the same tool file, started and
// connected, to its first tool list.
func BenchmarkServerStart(b *testing.B) {
	dir := b.TempDir()
	tools := filepath.Join(dir, "tools.json")
	os.WriteFile(tools, []byte(toolsFile("v0", benchSchema)), 0o644)
	argv := []string{testutil.Mcpscope(b), "host", "--tools", tools}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := client.Connect(ctx, target.Target{Argv: argv}, base())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Tools(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
}
