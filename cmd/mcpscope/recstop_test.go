package main

import (
	"fmt"
	"os"
	"path/filepath"
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
		// A start after a stop records in the same directory again, never in the
		// current one (the test's own source directory).
		if strays, _ := filepath.Glob("mcpscope-*.jsonl"); len(strays) > 0 {
			for _, f := range strays {
				os.Remove(f)
			}
			t.Errorf("toggles recorded into the current directory: %s", strays)
		}
	})
	// R, R, R: the second recording goes where the first went (a new dated name in
	// the directory given, or beside the file given), not into the current directory.
	for _, named := range []bool{false, true} {
		t.Run(fmt.Sprintf("again after a stop, file named %v", named), func(t *testing.T) {
			dir := t.TempDir()
			c := &common{record: dir, recordSet: true}
			if named {
				c.record = filepath.Join(dir, "first.jsonl")
			}
			tap := &wire.Tap{}
			rec := &oneRecording{c: c, start: func() (func(), string, error) {
				return startRecordingFrom(c, target, tap, &record.Snapshot{})
			}}
			first, err := rec.toggle()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := rec.toggle(); err != nil {
				t.Fatal(err)
			}
			second, err := rec.toggle()
			if err != nil {
				t.Fatal(err)
			}
			rec.stop()
			if filepath.Dir(first) != dir || filepath.Dir(second) != dir || first == second {
				t.Errorf("the recordings went to %s and %s, want two files in %s", first, second, dir)
			}
			if n := complete(t, dir); n != 2 {
				t.Errorf("%d recordings in %s, want 2", n, dir)
			}
		})
	}
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
