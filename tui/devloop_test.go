package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/history"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// The developer's loop on the screen (issue 13): a bundled host serving a tool file
// the test edits, started by a shell that notes each process's PID, watched with
// --watch's spec.

func devToolsFile(desc, schema string) string {
	return `{"tools":[{"name":"greet","description":"` + desc + `","inputSchema":` + schema + `,"run":["/bin/echo","hi"]},` +
		`{"name":"other","description":"another tool","inputSchema":{"type":"object"},"run":["/bin/echo","other"]}]}`
}

const (
	schemaV1 = `{"type":"object","properties":{"name":{"type":"string"}}}`
	schemaV2 = `{"type":"object","properties":{"name":{"type":"string"},"lang":{"type":"string"}}}`
)

// editLikeAnEditor writes content in small writes, then again by rename, as editors do.
func editLikeAnEditor(t *testing.T, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(content); i += 9 {
		f.WriteString(content[i:min(i+9, len(content))])
	}
	f.Close()
	tmp := path + ".swp~"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

type devServer struct {
	tools, pidDir string
}

func (d devServer) pids(t *testing.T) []int {
	ents, _ := os.ReadDir(d.pidDir)
	var out []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func (d devServer) live(t *testing.T) int {
	n := 0
	for _, pid := range d.pids(t) {
		if syscall.Kill(pid, 0) == nil {
			n++
		}
	}
	return n
}

// watchedHarness starts the screen on a watched dev server (with the host's demo
// tools too, for a slow call).
func watchedHarness(t *testing.T, opts Options) (*harness, devServer) {
	t.Helper()
	return watchedHarnessDebounce(t, opts, 100*time.Millisecond)
}

// watchedHarnessDebounce is watchedHarness with the watch's debounce: a test that
// counts restarts per burst of writes needs one longer than any stall of the
// writing goroutine on a loaded machine, or one edit can arrive as two bursts.
func watchedHarnessDebounce(t *testing.T, opts Options, debounce time.Duration) (*harness, devServer) {
	t.Helper()
	dir := t.TempDir()
	d := devServer{tools: filepath.Join(dir, "tools.json"), pidDir: filepath.Join(dir, "pids")}
	os.Mkdir(d.pidDir, 0o755)
	if err := os.WriteFile(d.tools, []byte(devToolsFile("v1", schemaV1)), 0o644); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`echo $$ > %q/$$; exec %q host --tools %q --demo`, d.pidDir, testutil.Mcpscope(t), d.tools)
	opts.Servers = []workbench.Spec{{Name: "dev", Target: target.Target{Argv: []string{"/bin/sh", "-c", script}},
		Watch: []string{d.tools}, WatchDebounce: debounce}}
	opts.Name, opts.Theme = "dev server", "dark"
	h := newHarnessWith(t, opts, 120, 40)
	h.until("the tools", func(m *model) bool { _, ok := m.toolByName("dev", "greet"); return ok && m.srv.state() == stateReady })
	return h, d
}

// greetDesc is the description the screen has for greet now.
func greetDesc(m *model) string {
	t, _ := m.toolByName("dev", "greet")
	return t.Description
}

// TestWatchKeepsTheScreen: one restart per burst of writes; the filter, the selection
// and what was typed in the form survive it (also into the changed schema); the tool
// list marks the changed tool; the Changes view lists the edit, classified, with its
// diff.
func TestWatchKeepsTheScreen(t *testing.T) {
	h, d := watchedHarnessDebounce(t, Options{}, 2*time.Second)
	h.press("/")
	h.typeText("gre")
	h.press("enter", "enter") // close the filter; open greet's form
	if h.m.formTool != "greet" {
		t.Fatalf("form of %q", h.m.formTool)
	}
	h.typeText("Ada")
	if v, _ := h.m.form.Value(); string(v) != `{"name":"Ada"}` {
		t.Fatalf("typed %s", v)
	}
	if n := len(d.pids(t)); n != 1 {
		t.Fatalf("%d starts before the edit", n)
	}

	// A compatible edit: a new optional parameter and a new description.
	editLikeAnEditor(t, d.tools, devToolsFile("v2: greets in a language", schemaV2))
	h.until("the edit's changes", func(m *model) bool {
		return len(m.changes.sets) > 0 && greetDesc(m) == "v2: greets in a language" && m.srv.state() == stateReady && m.form != nil
	})
	// The restart's comparison names the edited file, also when the host's own
	// list_changed (it reloads the file itself) showed the change first.
	h.until("the surface after the restart, naming the edited file", func(m *model) bool {
		for _, s := range m.changes.sets {
			if strings.Contains(s.cause, "after tools.json changed") {
				return true
			}
		}
		return false
	})
	h.until("the old server gone", func(m *model) bool { return d.live(t) == 1 })
	if n := len(d.pids(t)); n != 2 {
		t.Errorf("%d server starts for one burst of writes, want 2 (the first and one restart)", n)
	}
	if h.m.list.filter != "gre" || h.m.formTool != "greet" {
		t.Errorf("after the restart: filter %q, form of %q", h.m.list.filter, h.m.formTool)
	}
	if v, _ := h.m.form.Value(); string(v) != `{"name":"Ada"}` {
		t.Errorf("the form holds %s after the restart, want what was typed", v)
	}
	h.contains("Ada")
	// The list marks greet as changed (compatibly) until the user looks.
	h.press("esc") // to the list
	if !strings.Contains(h.screen(), "greet") || !strings.Contains(h.screen(), "~") {
		t.Errorf("no change mark on greet:\n%s", h.screen())
	}
	h.contains("Changes (") // on the tab bar now, with the count not yet seen
	h.press("C")
	if h.m.tab != tabChanges {
		t.Fatalf("C opened tab %v", h.m.tab)
	}
	h.contains("tool greet changed", "compatible", "v2: greets in a language", `+      "lang": {`)
	// The heading names the edit that set the restart off (issue 20).
	h.contains("after tools.json changed")
	if strings.Contains(h.screen(), "BREAKING") {
		t.Errorf("a compatible edit shown as breaking:\n%s", h.screen())
	}
	if len(h.m.list.marks) != 0 {
		t.Errorf("marks kept after the Changes view was seen: %v", h.m.list.marks)
	}

	// A breaking edit: greet removed. The list names it removed; the view says BREAKING.
	h.press("tab") // the list
	editLikeAnEditor(t, d.tools, `{"tools":[{"name":"other","description":"another tool","inputSchema":{"type":"object"},"run":["/bin/echo","x"]}]}`)
	h.until("greet gone", func(m *model) bool { _, ok := m.toolByName("dev", "greet"); return !ok && m.srv.state() == stateReady })
	h.until("the removal in Changes", func(m *model) bool { return len(m.list.removed) > 0 })
	h.contains("✗ removed: greet")
	h.press(":")
	h.typeText("changes")
	h.press("enter")
	h.contains("tool greet removed", "BREAKING")
}

// TestWatchBrokenEditRecovers: an edit that breaks the server shows the failure and
// its stderr; the next good edit brings the tools (and the form) back.
func TestWatchBrokenEditRecovers(t *testing.T) {
	h, d := watchedHarness(t, Options{})
	h.press("/")
	h.typeText("greet")
	h.press("enter", "enter")
	h.typeText("Bo")
	editLikeAnEditor(t, d.tools, `{"tools": [ {"name": `)
	// The state can read failed before the status event that words the notice is
	// handled (any handler about the server takes its snapshot whole, a batch of its
	// frames too): the notice is waited for, not read at once (proof round 22).
	h.until("the failed start and its notice", func(m *model) bool {
		return m.srv.state() == stateFailed && strings.Contains(m.notice, "tools.json changed and the server failed to start")
	})
	h.press("esc", "1")
	h.until("the failure's stderr", func(m *model) bool {
		s := h.screen()
		return strings.Contains(s, "Could not connect") && strings.Contains(s, "tools.json")
	})
	editLikeAnEditor(t, d.tools, devToolsFile("v3", schemaV1))
	h.until("back after the good edit", func(m *model) bool { return m.srv.state() == stateReady && greetDesc(m) == "v3" && m.form != nil })
	if v, _ := h.m.form.Value(); string(v) != `{"name":"Bo"}` || h.m.formTool != "greet" {
		t.Errorf("after recovery the form of %q holds %s", h.m.formTool, v)
	}
	h.contains("v3")
}

// TestWatchFailedStartShowsItsOwnStderr: a start that fails while the old process is
// still exiting is tried again once it is gone; the Tool view then shows the stderr
// of the last try, not of both (the first try's lines reach the screen through the
// batching pump, after the status of the second try unless the pump is flushed
// first).
func TestWatchFailedStartShowsItsOwnStderr(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	if err := os.WriteFile(tools, []byte(devToolsFile("v1", schemaV1)), 0o644); err != nil {
		t.Fatal(err)
	}
	// A good start serves and lingers a moment after the host exits; a broken one
	// fails a moment after it starts, with one stderr line naming its pid.
	script := `if grep -q BROKEN "$1"; then sleep 0.2; echo "start $$: the tool file is broken" >&2; exit 1; fi; "$0" host --tools "$1"; sleep 0.1`
	opts := Options{Name: "dev", Theme: "dark", Servers: []workbench.Spec{{Name: "dev",
		Target: target.Target{Argv: []string{"/bin/sh", "-c", script, testutil.Mcpscope(t), tools}},
		Watch:  []string{tools}, WatchDebounce: 50 * time.Millisecond}}}
	h := newHarnessWith(t, opts, 120, 40)
	h.until("the tools", func(m *model) bool { return greetDesc(m) == "v1" && m.srv.state() == stateReady })
	if err := os.WriteFile(tools, []byte("BROKEN"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.until("the failed start", func(m *model) bool { return m.srv.state() == stateFailed })
	h.press("1")
	h.until("the failure's stderr", func(m *model) bool { return strings.Contains(h.screen(), "the tool file is broken") })
	// Both tries' lines may still be arriving: wait until the screen holds every wire
	// event, then read it.
	h.until("every wire event", h.caughtUp)
	screen := h.screen()
	if n := strings.Count(screen, "the tool file is broken"); n != 1 || !strings.Contains(screen, "stderr (1 line)") {
		t.Errorf("the failed start shows %d stderr lines of starts, want the last start's one:\n%s", n, screen)
	}
}

// TestWatchInterruptsACallInFlight: a call running when an edit restarts the server
// is reported as interrupted by the restart, not as a failure of the tool.
func TestWatchInterruptsACallInFlight(t *testing.T) {
	h, d := watchedHarness(t, Options{})
	h.selectTool("slow")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"steps":2000,"delayMs":50}`))
	h.press("enter")
	h.until("the call runs", func(m *model) bool { return len(m.calls) == 1 && m.calls[0].running })
	editLikeAnEditor(t, d.tools, devToolsFile("v2", schemaV1))
	h.until("the interrupted call", func(m *model) bool { return !m.calls[0].running && m.srv.state() == stateReady })
	if st := h.m.calls[0].status(); st != "interrupted" {
		t.Errorf("the call's status is %q", st)
	}
	h.press("2")
	h.contains("Interrupted: tools.json changed and the server was restarted")
	h.press("6")
	h.contains("interrupted")
}

// TestWatchTwentyRestartsOneServer: 20 edits, 20 restarts, and after each one
// server process (the old one is always reaped; none is left at the end).
func TestWatchTwentyRestartsOneServer(t *testing.T) {
	h, d := watchedHarness(t, Options{})
	starts := 1
	for i := 0; i < 20; i++ {
		desc := fmt.Sprintf("round %d", i)
		editLikeAnEditor(t, d.tools, devToolsFile(desc, schemaV1))
		// The host reloads its tool file itself (list_changed), so the new
		// description alone does not say the restart happened: wait for a new
		// process too. A new one, not the next count: on a loaded machine an
		// edit's writes can come further apart than the debounce and make two
		// bursts, two restarts (TestWatchKeepsTheScreen holds one restart per
		// burst, with a debounce no stall reaches).
		h.until(desc+": restarted, one server process", func(m *model) bool {
			n := d.live(t)
			if n > 2 {
				t.Fatalf("%s: %d server processes", desc, n)
			}
			return m.srv.state() == stateReady && greetDesc(m) == desc && len(d.pids(t)) > starts && n == 1
		})
		starts = len(d.pids(t))
	}
	h.close()
	for _, pid := range d.pids(t) {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("process %d left running", pid)
		}
	}
}

// histHarness is the bundled host with the lasting history in dir.
func histHarness(t *testing.T, dir string, opts history.Options) *harness {
	opts.Dir = dir
	h := newHarnessWith(t, Options{Servers: []workbench.Spec{{Name: "host", Target: hostTarget(t)}}, Name: "bundled host", Theme: "dark", History: &opts}, 120, 40)
	h.until("the tools and the history", func(m *model) bool { return len(m.list.tools) > 0 && m.hist.logs["host"] != nil })
	return h
}

func (h *harness) waitStored(n int) {
	h.t.Helper()
	h.until(fmt.Sprintf("%d stored call(s)", n), func(m *model) bool { return len(m.hist.saved) == n })
}

// TestHistoryLastsAcrossRuns: calls of one run are in the next run's History (in a
// temporary state directory), searchable; an earlier entry re-runs its own tool
// under a filter that hides it; a destructive one asks first; marked entries save as
// a collection that `mcpscope replay` runs.
func TestHistoryLastsAcrossRuns(t *testing.T) {
	dir := t.TempDir()
	h := histHarness(t, dir, history.Options{})
	h.call("echo", `{"text":"first weather"}`)
	h.call("pretend_delete", `{"path":"/tmp/x"}`)
	h.waitStored(2)
	h.close()

	h2 := histHarness(t, dir, history.Options{})
	h2.until("the earlier calls", func(m *model) bool { return len(m.hist.past) == 2 })
	h2.press("6")
	h2.contains("◷ ok  echo", `{"text":"first weather"}`, "◷ ok  pretend_delete")
	// Search.
	h2.press("/")
	h2.typeText("weather")
	h2.until("the search", func(m *model) bool { return len(m.histRows()) == 1 })
	h2.contains("/weather", "echo")
	if strings.Contains(h2.screen(), "pretend_delete  {") {
		t.Errorf("the search kept a row without the word:\n%s", h2.screen())
	}
	h2.press("enter") // closes the field; the filter stays
	// A filter in the tool list that hides echo, and another tool selected.
	h2.press("tab", "/")
	h2.typeText("pretend_del")
	h2.press("enter", "tab")
	if sel, _ := h2.m.list.selected(); sel.Name != "pretend_delete" {
		t.Fatalf("selected %s", sel.Name)
	}
	h2.press("6", "enter") // re-run the earlier echo
	h2.until("the re-run", func(m *model) bool { return len(m.calls) == 1 && !m.calls[0].running })
	if o := h2.m.calls[0]; o.tool.Name != "echo" || string(o.args) != `{"text":"first weather"}` || o.server != "host" {
		t.Errorf("re-ran %s/%s with %s", o.server, o.tool.Name, o.args)
	}
	// The destructive earlier call asks first, as a fresh call does.
	h2.press("6", "esc") // clear the search
	h2.until("all rows", func(m *model) bool { return m.hist.shown == nil })
	// Newest first: this run's echo, then the first run's pretend_delete and echo.
	h2.press("end", "up")
	rows := h2.m.histRows()
	if _, tool, _ := h2.m.histCall(rows[h2.m.hist.cursor]); tool != "pretend_delete" {
		t.Fatalf("row %d is %s", h2.m.hist.cursor, tool)
	}
	h2.press("enter")
	// The arguments are checked against the schema first (in a command).
	h2.until("a destructive re-run's question", func(m *model) bool { return questionOf(m) != nil })
	h2.contains(`pretend_delete is destructive. Call it with {"path":"/tmp/x"}? y/n`)
	h2.press("n")
	if len(h2.m.calls) != 1 {
		t.Errorf("declined, yet %d calls", len(h2.m.calls))
	}
	// Mark two entries and save them as a collection.
	h2.press("6", "home", "down", "m", "down", "m")
	h2.until("the marks", func(m *model) bool { return len(m.markedEntries()["host"]) == 2 })
	h2.contains("★")
	h2.m.opts.SaveDir = t.TempDir()
	h2.press("S")
	h2.typeText("smoke")
	h2.press("enter")
	h2.until("the saved collection", func(m *model) bool { return strings.Contains(m.notice, "saved 2 calls") })
	file := filepath.Join(h2.m.opts.SaveDir, "smoke.jsonl")
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h2.m.notice, "--only echo-1,pretend_delete-1") {
		t.Errorf("notice: %s", h2.m.notice)
	}
	// The collection is a golden test: replay runs it against the server.
	out, err := exec.Command(testutil.Mcpscope(t), "replay", file).CombinedOutput()
	if err != nil {
		t.Errorf("replay of the collection: %v\n%s", err, out)
	}
	out, err = exec.Command(testutil.Mcpscope(t), "replay", file, "--only", "echo-1").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "not named by --only") && !strings.Contains(string(out), "skipped") {
		t.Errorf("replay --only echo-1: %v\n%s", err, out)
	}
}

// TestWatchHTTPRelists: an HTTP server is not restarted by an edit (it restarts
// itself); the screen says it re-lists, and keeps the session.
func TestWatchHTTPRelists(t *testing.T) {
	srv := testutil.StartNode(t, "ts-server.mjs")
	src := filepath.Join(t.TempDir(), "server.ts")
	os.WriteFile(src, []byte("v1"), 0o644)
	h := newHarnessWith(t, Options{Name: "ts", Theme: "dark", Servers: []workbench.Spec{{Name: "ts",
		Target: target.Target{URL: "http://" + srv.Addr + "/mcp"}, Watch: []string{src}, WatchDebounce: 50 * time.Millisecond}}}, 120, 40)
	h.until("connected", func(m *model) bool { return m.srv.state() == stateReady && len(m.list.tools) > 0 })
	gen := h.m.srv.gen()
	os.WriteFile(src, []byte("v2"), 0o644)
	h.until("the re-list notice", func(m *model) bool {
		return strings.Contains(m.notice, "server.ts changed: re-listing (an HTTP server restarts itself")
	})
	h.until("the comparison", func(m *model) bool { return strings.Contains(m.notice, "the edit changed nothing") })
	if h.m.srv.gen() != gen || h.m.srv.state() != stateReady {
		t.Errorf("the HTTP server was reconnected (gen %d → %d, %v)", gen, h.m.srv.gen(), h.m.srv.state())
	}
}

// TestRemovedToolsFormIsEvicted: a form is kept per (server, tool, schema) so that
// moving between tools keeps what was typed; once the server stops listing the tool
// (a restart that dropped it), that form is gone with it. When the tool comes back,
// even with the same schema, it gets a fresh form: what was typed for the old one is
// not offered again, and the removed tool's forms are not held on to meanwhile.
func TestRemovedToolsFormIsEvicted(t *testing.T) {
	h, d := watchedHarness(t, Options{})
	h.press("/")
	h.typeText("gre")
	h.press("enter", "enter") // close the filter; open greet's form
	if h.m.formTool != "greet" {
		t.Fatalf("form of %q", h.m.formTool)
	}
	h.typeText("Ada")
	h.press("esc") // to the list
	h.press("esc") // the filter cleared
	h.until("the filter cleared", func(m *model) bool { return m.list.filter == "" })

	editLikeAnEditor(t, d.tools, `{"tools":[{"name":"other","description":"another tool","inputSchema":{"type":"object"},"run":["/bin/echo","x"]}]}`)
	h.until("greet gone", func(m *model) bool { _, ok := m.toolByName("dev", "greet"); return !ok && m.srv.state() == stateReady })
	h.press("up") // off the gone tool (drawn last): it leaves the list
	h.until("greet's row gone", func(m *model) bool { return !m.list.hasGhost })
	cached := func(m *model) []string {
		var keys []string
		for k := range m.forms {
			if strings.HasPrefix(k, "dev/greet\x00") {
				keys = append(keys, k)
			}
		}
		if m.lastForms["dev/greet"] != nil {
			keys = append(keys, "last form of dev/greet")
		}
		return keys
	}
	if keys := cached(h.m); len(keys) > 0 {
		t.Errorf("greet is gone, but its forms are still held: %q", keys)
	}

	// greet comes back with the schema it had.
	editLikeAnEditor(t, d.tools, devToolsFile("v1", schemaV1))
	h.until("greet back", func(m *model) bool { _, ok := m.toolByName("dev", "greet"); return ok && m.srv.state() == stateReady })
	h.press("/")
	h.typeText("gre")
	h.press("enter", "enter")
	h.until("greet's form", func(m *model) bool { return m.formTool == "greet" && m.form != nil })
	if v, _ := h.m.form.Value(); string(v) != `{}` {
		t.Errorf("the returned tool's form holds %s, what was typed before it was removed", v)
	}
	if strings.Contains(h.screen(), "Ada") {
		t.Errorf("the returned tool's form shows what was typed before it was removed:\n%s", h.screen())
	}
}
