package workbench_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/workbench"
)

const benchSchema = `{"type":"object","properties":{"name":{"type":"string"}}}`

// BenchmarkWatchEditToTools: from writing the tool file to the surface-changed event
// (restart, handshake, tools/list and the rest of the surface, compared), with a
// 50 ms debounce. The debounce is part of what a user waits; compare with
// BenchmarkServerStart, the same server's own start to its first tool list.
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
	argv := []string{testutil.Mcpscope(b), "host", "--tools", tools}
	if linger {
		argv = []string{"/bin/sh", "-c", fmt.Sprintf("%q host --tools %q; sleep 0.1", testutil.Mcpscope(b), tools)}
	}
	spec := workbench.Spec{Name: "dev", Target: client.Target{Argv: argv},
		Watch: []string{tools}, WatchDebounce: 50 * time.Millisecond}
	if err := w.Add(spec); err != nil {
		b.Fatal(err)
	}
	waitKind := func(k workbench.EventKind, text string) {
		timeout := time.After(deadline)
		for {
			select {
			case e := <-ch:
				if e.Kind == k && (text == "" || len(e.Text) >= len(text) && e.Text[:len(text)] == text) {
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
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		os.WriteFile(tools, []byte(toolsFile(fmt.Sprintf("v%d", i+1), benchSchema)), 0o644)
		waitKind(workbench.EventSurfaceChanged, "")
	}
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
		s, err := client.Connect(ctx, client.Target{Argv: argv}, base())
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
