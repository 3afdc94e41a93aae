package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
)

// multiConfig writes a config file with server-everything ("ev") and a second
// bundled host ("extra"), for --server NAME=CONFIGNAME and :add.
func multiConfig(t *testing.T, bin string) string {
	t.Helper()
	ev := testutil.Everything(t)
	cfg := fmt.Sprintf(`{"mcpServers":{"ev":{"command":%q,"args":[%q,%q]},"extra":{"command":%q,"args":["host"]}}}`, ev[0], ev[1], ev[2], bin)
	path := filepath.Join(t.TempDir(), "servers.json")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// callIn filters the tool list to server/tool, opens its form, types text into the
// first field, calls it and waits for want.
func (x *tmux) callIn(tool, text, want string) {
	x.t.Helper()
	x.openTool(tool)
	x.typeText(text)
	x.keys("Enter")
	// The answer, in the Result view: want alone may be the typed text still shown in
	// the form.
	x.waitUntil(fmt.Sprintf("the result of %s with %q", tool, want), func(s string) bool {
		return strings.Contains(s, "── [1]") && strings.Contains(s, want) && !strings.Contains(s, "Arguments")
	})
	x.keys("Tab") // back to the list
}

// Issue 10: three servers at once (the bundled host over stdio, server-everything
// over stdio, the TypeScript SDK v2 server over HTTP): their tools under their
// headers, a call on each, one killed while the others go on, :add and :remove, and
// quitting leaves no process of any server.
func TestEndToEndThreeServers(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	cfg := multiConfig(t, bin)
	web := testutil.StartNode(t, "ts-server.mjs")
	x := newTmux(t, 140, 50, fmt.Sprintf("sh -c '%s --config %s --server host=host --server ev=ev --server web=http://%s/mcp; echo mcpscope-exited:$?; sleep 30'", bin, cfg, web.Addr))
	x.waitFor("▾ host")
	x.waitFor("▾ ev")
	x.waitFor("▾ web")
	x.waitFor("host/echo")
	x.waitFor("ev/get-sum")
	x.waitFor("web/add")

	x.callIn("host/echo", "from-host", "from-host")
	x.callIn("ev/echo", "from-ev", "Echo: from-ev")
	x.callIn("web/echo", "from-web", "echo: from-web")

	// Traffic and History name the server of every row; S in Traffic filters by it
	// (all, host, ev, web).
	x.keys("3")
	x.waitFor("web  │ tools/call")
	x.waitFor("host │ tools/call")
	x.keys("S", "S")
	x.waitFor("server ev (S cycles)")
	if sc := x.screen(); strings.Contains(sc, "web  │ tools/call") || !strings.Contains(sc, "ev   │ tools/call") {
		t.Errorf("the traffic filter by server shows:\n%s", sc)
	}
	x.keys("S", "S")
	x.waitFor("server all (S cycles)")
	x.keys("6")
	x.waitFor("ev/echo")
	x.waitFor("web/echo")
	x.keys("Tab")

	// Kill server-everything's process (by PID, under the pane).
	var evPID int
	for _, pid := range descendants(x.panePID()) {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && strings.Contains(string(b), "server-everything") {
			evPID = pid
		}
	}
	if evPID == 0 {
		t.Fatal("no server-everything process under the pane")
	}
	pids := descendants(x.panePID())
	if err := syscall.Kill(evPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	x.waitFor("ev exited (killed by")
	x.keys("7")
	x.waitFor("✗ exited (killed by")
	x.keys("Tab")
	// Its tools stay listed (dimmed) under a header that says it exited, so that a
	// selection on them stays there (issue 19).
	x.keys("Escape") // clear the filter: every server's header shows
	x.waitFor("▾ ev exited (killed by")
	// The others still answer.
	x.callIn("host/echo", "+again", "from-host+again")
	x.callIn("web/echo", "+again", "echo: from-web+again") // the form kept what was typed

	// :add a configured server (tab completes its name), then :remove it.
	x.keys(":")
	x.typeText("add ex")
	x.keys("Tab")
	x.waitFor(":add extra")
	x.keys("Enter")
	x.waitFor("add extra: done")
	x.keys("Escape")      // clear the filter: every server's header shows
	x.waitFor("Tools 63") // extra's 22 tools with the others' 41 (ev's kept while it is down)
	x.keys("/")
	x.typeText("extra/ec")
	x.waitFor("extra/echo")
	x.keys("Enter") // (esc right before ":" would reach the program as alt+:)
	x.keys(":")
	x.typeText("add host")
	x.keys("Enter")
	x.waitFor("already a server named \"host\"")
	x.keys(":")
	x.typeText("remove extra")
	x.keys("Enter")
	x.waitFor("remove extra: done")
	pids = append(pids, descendants(x.panePID())...)

	x.keys("q")
	x.waitFor("mcpscope-exited:0")
	for _, pid := range pids {
		if testutil.Alive(pid) {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && strings.Contains(string(b), "sleep") {
				continue // the pane's own sleep
			}
			t.Errorf("process %d is still running after quitting", pid)
		}
	}
}

// --idle-disconnect: a server idle that long is disconnected; the next call
// reconnects it and says so.
func TestEndToEndIdleDisconnect(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	x := newTmux(t, 140, 40, fmt.Sprintf("sh -c '%s --idle-disconnect 1s --server a=host --server b=host; echo mcpscope-exited:$?; sleep 30'", bin))
	x.waitFor("a/echo")
	x.waitFor("b/echo")
	x.keys("7")
	x.waitFor("○ idle")
	x.keys("Tab")
	x.openTool("a/echo")
	x.typeText("woke")
	x.keys("Enter")
	// The notice may come and go while the call runs (a later notice replaces it):
	// seen at any point from the Enter on is what a user reads.
	const said = "a was idle and is connected again for this request"
	seen := false
	x.waitUntil("the answer, and the notice of the reconnect", func(s string) bool {
		seen = seen || strings.Contains(s, said)
		return seen && strings.Contains(s, "── [1]") && strings.Contains(s, "woke")
	})
	x.keys("Tab", "q")
	x.waitFor("mcpscope-exited:0")
}

// Issue 10: R records every server of a session of several into one file (version 2),
// started mid-session (each server's handshake and lists as a snapshot); the file
// replays green with mcpscope replay.
func TestEndToEndRecordSeveralServers(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	x := newTmux(t, 140, 40, fmt.Sprintf("sh -c '%s --server a=host --server b=host; echo mcpscope-exited:$?; sleep 30'", bin))
	x.waitFor("a/echo")
	x.waitFor("b/echo")
	x.keys("R")
	x.waitFor("● REC mcpscope-")
	x.callIn("a/echo", "rec-from-a", "rec-from-a")
	x.callIn("b/echo", "rec-from-b", "rec-from-b")
	x.keys("R")
	x.waitFor("recording stopped")
	x.keys("q")
	x.waitFor("mcpscope-exited:0")

	dir := strings.TrimSpace(x.run("display-message", "-p", "-t", "e2e", "#{pane_current_path}"))
	files, _ := filepath.Glob(filepath.Join(dir, "mcpscope-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("recordings in %s: %v", dir, files)
	}
	rec, err := record.Load(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if rec.Header.Version != record.VersionServers || strings.Join(rec.ServerNames(), ",") != "a,b" {
		t.Fatalf("header: version %d, servers %v", rec.Header.Version, rec.ServerNames())
	}
	calls := map[string]bool{}
	for _, ex := range rec.Exchanges() {
		if ex.Method == "tools/call" {
			calls[rec.Events[ex.RequestEvent].Server] = true
		}
	}
	if !calls["a"] || !calls["b"] {
		t.Errorf("the recording's tools/call came from %v, want a and b", calls)
	}
	out, err := exec.Command(bin, "replay", files[0]).CombinedOutput()
	if err != nil {
		t.Errorf("replay of the two-server recording: %v\n%s", err, out)
	}

	// open shows both servers: each served as a mock under its name, the traffic and
	// the calls of each under it.
	o := newTmux(t, 140, 40, fmt.Sprintf("sh -c '%s open %s; echo mcpscope-exited:$?; sleep 30'", bin, files[0]))
	o.waitFor("▶ browsing a recording")
	o.waitFor("▾ a")
	o.waitFor("▾ b")
	o.waitFor("b/echo")
	o.keys("6")
	o.waitFor("a/echo")
	o.waitFor("b/echo")
	o.keys("3")
	o.waitFor("a │ tools/call")
	o.waitFor("b │ tools/call")
	o.keys("q")
	o.waitFor("mcpscope-exited:0")
}

// A server added with :add while a recording runs is recorded too: a server line
// names it (the header was written before), its events carry its name, and the file
// replays green, the added server included.
func TestEndToEndRecordAddedServer(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	file := filepath.Join(t.TempDir(), "added.jsonl")
	x := newTmux(t, 140, 40, fmt.Sprintf("sh -c '%s --record %s --server a=host --server b=host; echo mcpscope-exited:$?; sleep 30'", bin, file))
	x.waitFor("a/echo")
	x.waitFor("b/echo")
	x.waitFor("● REC")
	x.keys(":")
	x.typeText("add late -- " + bin + " host")
	x.keys("Enter")
	x.waitFor("add late: done")
	x.callIn("late/echo", "rec-from-late", "rec-from-late")
	x.keys("q")
	x.waitFor("mcpscope-exited:0")

	rec, err := record.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rec.ServerNames(), ",") != "a,b,late" {
		t.Fatalf("the recording names the servers %v, want a, b and late", rec.ServerNames())
	}
	answered := false
	for _, ex := range rec.Exchanges() {
		if ex.Server == "late" && ex.Method == "tools/call" && strings.Contains(string(ex.Response), "rec-from-late") {
			answered = true
		}
	}
	if !answered {
		t.Errorf("the call on the added server is not in the recording with its answer")
	}
	out, err := exec.Command(bin, "replay", file).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "late: replay: all") {
		t.Errorf("replay of the recording with an added server: %v\n%s", err, out)
	}
}

// A configured server named on the command line under its own name (--server
// extra=extra) is the configured one: a server added under that name overrides it
// for the session, and removing that one brings the configured one back.
func TestEndToEndOverrideConfiguredName(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	cfg := multiConfig(t, bin)
	x := newTmux(t, 140, 40, fmt.Sprintf("sh -c '%s --config %s --server extra=extra --server h=host; echo mcpscope-exited:$?; sleep 30'", bin, cfg))
	x.waitFor("extra/echo")
	x.keys(":")
	x.typeText("add extra -- " + bin + " host")
	x.keys("Enter")
	x.waitFor("add extra: done")
	x.keys("7")
	x.waitFor("overrides the configured extra")
	x.keys(":")
	x.typeText("remove extra")
	x.keys("Enter")
	x.waitFor("remove extra: done")
	x.waitFor("extra  ● connected")
	// The configured server is back in its place (first), not moved to the end, and
	// no longer marked.
	screen := x.waitGone("overrides the configured")
	if e, h := strings.Index(screen, "extra  ● connected"), strings.Index(screen, "h      ● connected"); e < 0 || h < 0 || e > h {
		t.Errorf("after :remove the configured extra is not back before h:\n%s", screen)
	}
	x.keys("Tab", "q")
	x.waitFor("mcpscope-exited:0")
}

// Issue 19, item 5: --all keeps a config entry whose ${env:…} placeholder has no
// value in the session, failed, with the variable's name and what to do, instead
// of leaving it out (as --inspect --all reports it); the other entries work, a
// restart of it (ctrl+r on 7 Servers) keeps it failed, and nothing of it ever
// runs (its command would leave a file behind).
func TestEndToEndAllShowsAnUnresolvableEntryAsFailed(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	dir := t.TempDir()
	ran := filepath.Join(dir, "gh-ran")
	unset := fmt.Sprintf("MCPSCOPE_E2E_UNSET_%d", os.Getpid())
	cfg := filepath.Join(dir, "servers.json")
	body := fmt.Sprintf(`{"mcpServers":{
  "one":{"command":%q,"args":["host"]},
  "gh":{"command":"touch","args":[%q],"env":{"GITHUB_TOKEN":"${env:%s}"}},
  "two":{"command":%q,"args":["host"]}}}`, bin, ran, unset, bin)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	// env -u: the variable is unset whatever the test's own environment holds.
	x := newTmux(t, 220, 45, fmt.Sprintf("sh -c 'env -u %s %s --config %s --all; echo mcpscope-exited:$?; sleep 30'", unset, bin, cfg))
	x.waitFor("one/echo")
	x.waitFor("two/echo")
	x.callIn("two/echo", "from-two", "from-two")

	// 7 Servers: gh's row says failed and why, beside the two that connected. Its
	// failure is known before either of them connects, so once both are, it shows.
	x.keys("7")
	failedRow := func(s string) bool {
		for _, line := range strings.Split(s, "\n") {
			if strings.Contains(line, "gh    ✗ failed") && strings.Contains(line, "${env:"+unset+"}") {
				return true
			}
		}
		return false
	}
	screen := x.waitUntil("one and two connected", func(s string) bool {
		return strings.Contains(s, "one   ● connected") && strings.Contains(s, "two   ● connected") // the rows, not the detail
	})
	if !failedRow(screen) {
		t.Fatalf("the Servers view has no failed row for gh naming %s:\n%s", unset, screen)
	}

	// Its detail says it in full, with what to do; ctrl+r on it: still failed, for
	// the same reason; nothing ran.
	x.keys("Down")
	x.waitFor("› gh ")
	x.waitFor("start mcpscope again")
	failedNotice := "gh failed: needs ${env:" + unset + "}"
	if sc := x.screen(); strings.Contains(sc, failedNotice) {
		t.Fatalf("the notice of gh's first failure is still up (the call should have replaced it):\n%s", sc)
	}
	x.keys("C-r")
	// The restart's end and gh's new failure come on two paths (the restart's
	// command, the status event); the last one's notice stays.
	x.waitUntil("gh restarted and failed again", func(s string) bool {
		return (strings.Contains(s, "restart gh: done") || strings.Contains(s, failedNotice)) && failedRow(s)
	})
	if _, err := os.Stat(ran); err == nil {
		t.Error("gh's command ran")
	}
	x.keys("Tab", "q")
	x.waitFor("mcpscope-exited:0")
}
