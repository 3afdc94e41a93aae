package workbench_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/surface"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// events reads a subscription; next waits for an event that matches.
type events struct {
	t  *testing.T
	ch <-chan workbench.Event
}

func (e *events) next(what string, match func(workbench.Event) bool, seen func(workbench.Event)) workbench.Event {
	e.t.Helper()
	timeout := time.After(deadline)
	for {
		select {
		case ev, ok := <-e.ch:
			if !ok {
				e.t.Fatalf("stream closed waiting for %s", what)
			}
			if seen != nil {
				seen(ev)
			}
			if match(ev) {
				return ev
			}
		case <-timeout:
			e.t.Fatalf("no %s", what)
		}
	}
}

func kind(k workbench.EventKind) func(workbench.Event) bool {
	return func(e workbench.Event) bool { return e.Kind == k }
}

func toolsFile(desc, schema string) string {
	return `{"tools":[{"name":"greet","description":"` + desc + `","inputSchema":` + schema + `,"run":["/bin/echo","hi"]}]}`
}

// writeLikeAnEditor writes content in many small writes, then once more by writing a
// temporary file and renaming it over the original.
func writeLikeAnEditor(t *testing.T, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(content); i += 7 {
		f.WriteString(content[i:min(i+7, len(content))])
	}
	f.Close()
	tmp := path + ".tmp~"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func pids(t *testing.T, dir string) []int {
	ents, _ := os.ReadDir(dir)
	var out []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// TestWatchRestarts: a bundled host serving a tool file the test edits, started by a
// shell that notes each process's PID.
func TestWatchRestarts(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	pidDir := filepath.Join(dir, "pids")
	os.Mkdir(pidDir, 0o755)
	v1 := `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`
	v2 := `{"type":"object","properties":{"name":{"type":"string"},"lang":{"type":"string"}},"required":["name","lang"]}`
	if err := os.WriteFile(tools, []byte(toolsFile("v1", v1)), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "not-there.py")
	script := fmt.Sprintf(`echo $$ > %q/$$; exec %q host --tools %q`, pidDir, testutil.Mcpscope(t), tools)
	spec := workbench.Spec{Name: "dev", Target: target.Target{Argv: []string{"/bin/sh", "-c", script}},
		Watch: []string{tools, missing}, WatchDebounce: time.Second} // longer than any stall between an edit's writes: one restart per burst is counted

	w := workbench.New(workbench.Options{Client: base()})
	closed := false
	defer func() {
		if !closed {
			w.Close()
		}
	}()
	ch, cancel := w.Subscribe()
	defer cancel()
	ev := &events{t: t, ch: ch}
	if err := w.Add(spec); err != nil {
		t.Fatal(err)
	}
	sawMissing := false
	noteMissing := func(e workbench.Event) {
		if e.Kind == workbench.EventWatch && strings.Contains(e.Text, "not-there.py does not exist") {
			sawMissing = true
		}
	}
	ev.next("connected", func(e workbench.Event) bool {
		return e.Kind == workbench.EventStatus && e.Status.State == workbench.StateConnected
	}, noteMissing)

	// edit writes content and waits for the surface event, counting the restarts.
	edit := func(content string) (restarts int, last workbench.Event) {
		t.Helper()
		writeLikeAnEditor(t, tools, content)
		last = ev.next("surface changed", kind(workbench.EventSurfaceChanged), func(e workbench.Event) {
			noteMissing(e)
			if e.Kind == workbench.EventWatch && strings.HasSuffix(e.Text, "changed: restarting") {
				restarts++
			}
		})
		return restarts, last
	}

	// A breaking edit: one restart for the burst, the change classified.
	n, e := edit(toolsFile("v2", v2))
	if n != 1 {
		t.Errorf("%d restarts for one burst of writes", n)
	}
	r := e.Surface
	// The comparison says what set it off, not "sh → sh" (issue 20).
	if !strings.HasPrefix(r.Title, "after tools.json changed (") || len(e.Files) != 1 || e.Files[0] != tools {
		t.Errorf("the comparison does not name the edit: title %q, files %v", r.Title, e.Files)
	}
	greet := r.Find(surface.ObjTool, "greet")
	if greet == nil || !r.HasBreaking() {
		t.Fatalf("surface event: %+v", r)
	}
	kinds := map[string]bool{}
	for _, c := range greet.Changes {
		kinds[c.Kind] = c.Breaking
	}
	if b, ok := kinds["param-added-required"]; !ok || !b {
		t.Errorf("changes: %+v", greet.Changes)
	}
	if !sawMissing {
		t.Error("the missing watched path was not reported")
	}

	// A broken edit: the restart fails with the host's stderr; the next good edit
	// brings the server back and compares with the last good surface.
	writeLikeAnEditor(t, tools, `{"tools": [ {"name": `)
	failed := ev.next("failed status", func(e workbench.Event) bool {
		return e.Kind == workbench.EventStatus && e.Status.State != workbench.StateConnecting && e.Status.State != workbench.StateConnected
	}, nil)
	if len(failed.Status.Stderr) == 0 || !strings.Contains(strings.Join(failed.Status.Stderr, "\n"), "tools.json") {
		t.Errorf("failure without the server's stderr: %+v", failed.Status)
	}
	_, e = edit(toolsFile("v3", v2))
	if st, _ := w.Status("dev"); st.State != workbench.StateConnected {
		t.Fatalf("not back: %+v", st)
	}
	if g := e.Surface.Find(surface.ObjTool, "greet"); g == nil || e.Surface.HasBreaking() || g.Changes[0].Kind != "description-changed" {
		t.Errorf("after recovery: %+v", e.Surface.Entries)
	}

	// 20 more restarts: the new process starts while the old one exits (an
	// overlapped restart), so for a moment there may be two, never more; the old one
	// is always reaped, and no process is left behind.
	for i := 0; i < 20; i++ {
		edit(toolsFile(fmt.Sprintf("round %d", i), v2))
		waitFor(t, fmt.Sprintf("round %d: one server process", i), func() bool {
			live := 0
			for _, pid := range pids(t, pidDir) {
				if alive(pid) {
					live++
				}
			}
			if live > 2 {
				t.Fatalf("round %d: %d server processes alive", i, live)
			}
			return live == 1
		})
	}
	if got := len(pids(t, pidDir)); got < 23 {
		t.Errorf("%d starts, want at least 23", got)
	}
	w.Close()
	closed = true
	for _, pid := range pids(t, pidDir) {
		if alive(pid) {
			t.Errorf("process %d left running", pid)
		}
	}
}

// TestWatchCrashingServer: a server that exits at once on every start is restarted
// once per change, never in a loop, and says why each time.
func TestWatchCrashingServer(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "server.sh")
	pidDir := filepath.Join(dir, "pids")
	os.Mkdir(pidDir, 0o755)
	os.WriteFile(src, []byte("exit 1\n"), 0o644)
	script := fmt.Sprintf(`echo $$ > %q/$$; echo "boom: syntax error" >&2; exit 1`, pidDir)
	w := workbench.New(workbench.Options{Client: base()})
	defer w.Close()
	ch, cancel := w.Subscribe()
	defer cancel()
	ev := &events{t: t, ch: ch}
	if err := w.Add(workbench.Spec{Name: "crash", Target: target.Target{Argv: []string{"/bin/sh", "-c", script}},
		Watch: []string{src}, WatchDebounce: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	settled := func(e workbench.Event) bool {
		return e.Kind == workbench.EventStatus && e.Status.State != workbench.StateConnecting
	}
	first := ev.next("first failure", settled, nil)
	if !strings.Contains(strings.Join(first.Status.Stderr, "\n"), "boom") {
		t.Errorf("failure without stderr: %+v", first.Status)
	}
	const edits = 4
	for i := 0; i < edits; i++ {
		// One edit, one event: a rename over the file, as editors save. (A plain
		// WriteFile is a truncate and a write; on a loaded machine the two can land
		// more than a debounce apart, and that is two edits.)
		tmp := src + ".tmp"
		os.WriteFile(tmp, []byte(fmt.Sprintf("exit %d\n", i)), 0o644)
		if err := os.Rename(tmp, src); err != nil {
			t.Fatal(err)
		}
		ev.next("restart", func(e workbench.Event) bool {
			return e.Kind == workbench.EventWatch && strings.HasSuffix(e.Text, "changed: restarting")
		}, nil)
		ev.next("failure after the edit", settled, nil)
	}
	if n := len(pids(t, pidDir)); n != edits+1 {
		t.Fatalf("%d starts for %d edits (plus the first)", n, edits)
	}
}

// TestWatchHTTPRelists: an HTTP server is not restarted (it restarts itself); a change
// re-lists it, says so, and compares.
func TestWatchHTTPRelists(t *testing.T) {
	srv := testutil.StartNode(t, "ts-server.mjs")
	dir := t.TempDir()
	src := filepath.Join(dir, "server.ts")
	os.WriteFile(src, []byte("v1"), 0o644)
	w := workbench.New(workbench.Options{Client: base()})
	defer w.Close()
	ch, cancel := w.Subscribe()
	defer cancel()
	ev := &events{t: t, ch: ch}
	if err := w.Add(workbench.Spec{Name: "ts", Target: target.Target{URL: "http://" + srv.Addr + "/mcp"}, Watch: []string{src}, WatchDebounce: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	ev.next("watching", func(e workbench.Event) bool {
		return e.Kind == workbench.EventWatch && strings.Contains(e.Text, "re-lists it (an HTTP server restarts itself)")
	}, nil)
	if st, _ := w.Wait(testutil.Context(t), "ts"); st.State != workbench.StateConnected {
		t.Fatalf("%+v", st)
	}
	os.WriteFile(src, []byte("v2"), 0o644)
	restarted := false
	ev.next("re-list", func(e workbench.Event) bool {
		return e.Kind == workbench.EventWatch && strings.Contains(e.Text, "server.ts changed: re-listing")
	}, nil)
	e := ev.next("surface", kind(workbench.EventSurfaceChanged), func(e workbench.Event) {
		restarted = restarted || (e.Kind == workbench.EventStatus && e.Status.State == workbench.StateConnecting)
	})
	if restarted {
		t.Error("an HTTP server was reconnected")
	}
	if !e.Surface.Empty() || len(e.Surface.Compared) == 0 {
		t.Errorf("re-list of an unchanged server: %+v", e.Surface)
	}
}

// TestWatchOverlapRetriesALockedStart: an edit restarts the server while the old
// process still exits; a server that cannot start while the old one holds a lock
// (here flock on a file, as a port or a profile directory would be) is started again
// once the old one is gone, and comes back connected with the new surface.
func TestWatchOverlapRetriesALockedStart(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	lock := filepath.Join(dir, "lock")
	os.WriteFile(tools, []byte(toolsFile("v1", benchSchema)), 0o644)
	// The old process keeps the lock after its stdin closes until a new start has met
	// it (that start leaves the file tried): the retry is then certain. It kept the
	// lock for a fixed 0.3 s, and a loaded machine could start the new process after
	// that, with no lock to meet and no retry to see.
	tried := filepath.Join(dir, "tried")
	inner := fmt.Sprintf(`%q host --tools %q; while [ ! -e %q ]; do sleep 0.05; done`, testutil.Mcpscope(t), tools, tried)
	script := fmt.Sprintf(`flock -n %q /bin/sh -c %q || { touch %q; exit 1; }`, lock, inner, tried)
	// The grace before the old process is killed outlasts any start, so it is still
	// there to hold the lock when the new one starts.
	opts := base()
	opts.Grace = time.Minute
	w := workbench.New(workbench.Options{Client: opts})
	defer w.Close()
	ch, cancel := w.Subscribe()
	defer cancel()
	ev := &events{t: t, ch: ch}
	if err := w.Add(workbench.Spec{Name: "locked", Target: target.Target{Argv: []string{"/bin/sh", "-c", script}},
		Watch: []string{tools}, WatchDebounce: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	ev.next("watching", func(e workbench.Event) bool {
		return e.Kind == workbench.EventWatch && strings.HasPrefix(e.Text, "watching")
	}, nil)
	if st, _ := w.Wait(testutil.Context(t), "locked"); st.State != workbench.StateConnected {
		t.Fatalf("%+v", st)
	}
	os.WriteFile(tools, []byte(toolsFile("v2", benchSchema)), 0o644)
	retried := false
	e := ev.next("surface changed", kind(workbench.EventSurfaceChanged), func(e workbench.Event) {
		if e.Kind == workbench.EventStatus && strings.Contains(e.Status.Reason, "still exiting") {
			retried = true
		}
		if e.Kind == workbench.EventStatus && e.Status.State == workbench.StateFailed {
			t.Errorf("the locked start was shown as failed: %+v", e.Status)
		}
	})
	if !retried {
		t.Error("the start that met the lock was not tried again")
	}
	if g := e.Surface.Find(surface.ObjTool, "greet"); g == nil || g.Changes[0].Kind != "description-changed" {
		t.Errorf("surface after the retry: %+v", e.Surface.Entries)
	}
	if st, _ := w.Status("locked"); st.State != workbench.StateConnected {
		t.Errorf("not connected: %+v", st)
	}
}

// Issue 19's window, in the workbench: the watch was set up in a goroutine after the
// server's first start, so an edit made while the server started (it may have read
// the file as it was) was never seen, and the server ran the old code. The hook
// makes the edit right after the start began.
func TestWatchSeesAnEditDuringTheFirstStart(t *testing.T) {
	src := filepath.Join(t.TempDir(), "server.py")
	if err := os.WriteFile(src, []byte("v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := newBench(t, workbench.Options{})
	workbench.SetAfterStart(w, func(string) {
		tmp := src + ".tmp"
		if err := os.WriteFile(tmp, []byte("v2\n"), 0o644); err != nil {
			t.Error(err)
		}
		if err := os.Rename(tmp, src); err != nil {
			t.Error(err)
		}
	})
	ch, cancel := w.Subscribe()
	defer cancel()
	ev := &events{t: t, ch: ch}
	spec := host(t, "dev")
	spec.Watch, spec.WatchDebounce = []string{src}, 50*time.Millisecond
	if err := w.Add(spec); err != nil {
		t.Fatal(err)
	}
	ev.next("a restart for the edit", func(e workbench.Event) bool {
		return e.Kind == workbench.EventWatch && strings.HasSuffix(e.Text, "changed: restarting")
	}, nil)
}
