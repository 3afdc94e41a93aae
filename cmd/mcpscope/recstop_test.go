package main

import (
	"os"
	"sync"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/workbench"
)

// R runs in a command that may still be running when the program quits: a toggle
// that comes after the deferred stop starts no file (it would never be finished),
// and toggles racing the stop leave every file they started complete.
func TestRecordingToggleAfterQuit(t *testing.T) {
	target := client.Target{Argv: []string{"srv"}}
	complete := func(t *testing.T, dir string) int {
		t.Helper()
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			rec, err := record.Load(dir + "/" + e.Name())
			if err != nil || !rec.Complete {
				t.Errorf("%s is not a finished recording (complete %v, %v)", e.Name(), rec != nil && rec.Complete, err)
			}
		}
		return len(ents)
	}
	t.Run("one server", func(t *testing.T) {
		dir := t.TempDir()
		c := &common{record: dir}
		tap := &wire.Tap{}
		rec := &oneRecording{c: c, start: func() (func(), string, error) {
			return startRecordingFrom(c, target, tap, &record.Snapshot{})
		}}
		rec.stop()
		if path, err := rec.toggle(); err == nil || path != "" {
			t.Errorf("a toggle after quitting started %q (err %v)", path, err)
		}
		if n := complete(t, dir); n != 0 {
			t.Errorf("%d files after a toggle that came after quitting", n)
		}
		dir2 := t.TempDir()
		c2 := &common{record: dir2}
		rec2 := &oneRecording{c: c2, start: func() (func(), string, error) {
			return startRecordingFrom(c2, target, tap, &record.Snapshot{})
		}}
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() { defer wg.Done(); _, _ = rec2.toggle() }()
		}
		rec2.stop()
		wg.Wait()
		complete(t, dir2)
	})
	t.Run("several servers", func(t *testing.T) {
		dir := t.TempDir()
		c := &common{record: dir}
		servers := []namedServer{{spec: workbench.Spec{Name: "a", Target: target}}, {spec: workbench.Spec{Name: "b", Target: target}}}
		rec, err := toggleableRecording(c, servers)
		if err != nil {
			t.Fatal(err)
		}
		rec.stop()
		if path, err := rec.toggle(); err == nil || path != "" {
			t.Errorf("a toggle after quitting started %q (err %v)", path, err)
		}
		if n := complete(t, dir); n != 0 {
			t.Errorf("%d files after a toggle that came after quitting", n)
		}
	})
}
