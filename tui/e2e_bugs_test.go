package tui

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// waitGone waits until the screen no longer shows what.
func (x *tmux) waitGone(what string) string {
	x.t.Helper()
	return x.waitUntil(fmt.Sprintf("%q to leave the screen", what), func(s string) bool { return !strings.Contains(s, what) })
}

// Issue 9, items 1, 2 and 3 on npm fastmcp: History re-runs its own tool under a
// filter that hides it, a destructive re-run asks first, and a recording started
// mid-session with R opens and serves on its own.
func TestEndToEndFastMCPHistoryAndRecording(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	argv := testutil.FastMCP(t)
	x := newTmux(t, 120, 40, fmt.Sprintf("sh -c '%s -- %s; echo mcpscope-exited:$?; sleep 60'", bin, strings.Join(argv, " ")))
	x.waitFor("connected")
	x.waitFor("delete_note")

	x.openTool("lookup_weather")
	x.typeText("Paris")
	x.keys("Enter")
	x.waitFor("weather in Paris: sunny")

	x.keys("Tab")
	x.openTool("delete_note")
	x.typeText("42")
	x.keys("Enter")
	x.waitFor(`delete_note is destructive. Call it with {"id":42}? y/n`)
	x.keys("y")
	x.waitFor(`deleted note {"id":42}`)

	// Item 1: filter the list to /delete; in History pick lookup_weather's row.
	x.keys("Tab", "/")
	x.typeText("delete")
	x.keys("Enter")
	x.waitFor("/delete")
	x.keys("6")
	x.waitFor("enter re-runs")
	x.keys("g", "Down", "Enter")
	x.waitFor("weather in Paris: sunny")
	x.keys("6")
	s := x.waitFor("enter re-runs")
	if n := strings.Count(s, `lookup_weather {"city":"Paris"}`); n != 2 {
		t.Errorf("History shows lookup_weather %d time(s), want 2 (the re-run went elsewhere):\n%s", n, s)
	}
	if n := strings.Count(s, "delete_note  {"); n != 1 {
		t.Fatalf("History shows delete_note %d time(s), want 1: the re-run called it:\n%s", n, s)
	}

	// Item 2: re-running delete_note from History asks first, as the form does.
	x.keys("g", "Down", "Enter")
	x.waitFor(`delete_note is destructive. Call it with {"id":42}? y/n`)
	x.keys("n")
	x.waitFor("call not sent")

	// Item 3: a recording started now, mid-session, with one call in it.
	x.keys("R")
	x.waitFor("● REC mcpscope-")
	x.keys("6", "g", "Enter") // the newest row: lookup_weather
	x.waitFor("weather in Paris: sunny")
	x.keys("R")
	x.waitFor("recording stopped")
	x.keys("q")
	x.waitFor("mcpscope-exited:0")

	dir := strings.TrimSpace(x.run("display-message", "-p", "-t", "e2e", "#{pane_current_path}"))
	files, _ := filepath.Glob(filepath.Join(dir, "mcpscope-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("recordings in %s: %v", dir, files)
	}

	// open connects to the recording served as a mock: its tools and the call.
	o := newTmux(t, 120, 40, fmt.Sprintf("sh -c '%s open %s; echo mcpscope-exited:$?; sleep 60'", bin, files[0]))
	o.waitFor("▶ browsing a recording")
	o.waitFor("connected")
	o.waitFor("delete_note")
	o.keys("6")
	o.waitFor("▶ ok")
	o.waitFor("lookup_weather")
	o.keys("q")
	o.waitFor("mcpscope-exited:0")

	// replay accepts it: the snapshot's tools/list and the call replay against the
	// live server.
	out, err := exec.Command(bin, "replay", files[0], "--", argv[0], argv[1]).CombinedOutput()
	if err != nil {
		t.Errorf("replay of a mid-session recording: %v\n%s", err, out)
	}
}

// Item 10 on server-everything started wrong: the failure keeps Traffic and Stderr
// reachable, shows the server's stderr, and quitting exits 1.
func TestEndToEndFailedStart(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	argv := testutil.Everything(t)
	argv[len(argv)-1] = "bogus" // an unknown transport: it prints its usage and exits 1
	x := newTmux(t, 120, 40, fmt.Sprintf("sh -c '%s -- %s; echo mcpscope-exited:$?; sleep 60'", bin, strings.Join(argv, " ")))
	x.waitFor("Could not connect")
	x.waitFor("Everything Server Launcher") // the first stderr lines
	x.waitFor("Unknown transport: bogus")   // and the last
	x.keys("5")
	x.waitFor("Usage: node ./index.js")
	x.keys("3")
	x.waitFor("noise: Available transports")
	x.keys("q")
	x.waitFor("mcpscope-exited:1")
}

// Item 9 on fastmcp over Streamable HTTP: when the server dies, the status says
// disconnected and offers ctrl+r, which reconnects once it is back... or says why not.
func TestEndToEndHTTPServerDeath(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	srv := testutil.FastMCPHTTP(t)
	x := newTmux(t, 120, 40, fmt.Sprintf("sh -c '%s http://%s/mcp; echo mcpscope-exited:$?; sleep 60'", bin, srv.Addr))
	x.waitFor("connected")
	x.waitFor("fastmcp-notes")
	srv.Kill()
	x.waitFor("disconnected (ctrl+r reconnects)")
	x.waitFor("Disconnected")
	x.keys("C-r")
	x.waitFor("Could not connect")
	x.keys("q")
	x.waitFor("mcpscope-exited:0")
}

// waitAny waits until the screen shows one of whats and returns which.
func (x *tmux) waitAny(whats ...string) string {
	x.t.Helper()
	found := ""
	x.waitUntil(fmt.Sprintf("any of %q on the screen", whats), func(s string) bool {
		for _, w := range whats {
			if strings.Contains(s, w) {
				found = w
				return true
			}
		}
		return false
	})
	return found
}

// Items 7 and 14 on server-everything: esc in the tool list clears the filter and
// leaves a running call alone, x in Result cancels it; get-env's bare object schema
// takes key/value rows.
func TestEndToEndEverythingEscAndFreeForm(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	argv := testutil.Everything(t)
	x := newTmux(t, 120, 40, fmt.Sprintf("sh -c '%s -- %s; echo mcpscope-exited:$?; sleep 60'", bin, strings.Join(argv, " ")))
	x.waitFor("connected")
	x.waitFor("get-env")

	// Item 14.
	x.keys("/")
	x.typeText("get-env")
	x.keys("Enter", "Enter")
	x.waitFor("any arguments are accepted")
	x.keys("C-n")
	x.typeText("verbose")
	x.keys("Tab")
	x.typeText("true")
	x.keys("Enter")
	x.waitFor("get-env")
	x.keys("Tab", "6")
	x.waitFor(`{"verbose":true}`)

	// Item 7.
	x.keys("Tab")
	x.openTool("trigger-long")
	x.keys("Enter")
	x.waitFor("x cancels")
	x.keys("Tab") // the list, still filtered
	x.waitFor("(esc clears)")
	x.keys("Escape")
	x.waitGone("(esc clears)")
	if s := x.screen(); strings.Contains(s, "Tools 1/") || strings.Contains(s, "Cancelled") {
		t.Fatalf("esc in the list did not clear the filter, or cancelled the call:\n%s", s)
	}
	x.keys("2")
	x.waitFor("x cancels")
	x.keys("x")
	if x.waitAny("Cancelled", "It has run for") == "It has run for" {
		x.keys("y") // a slow machine: it ran past the few seconds that need a yes
	}
	x.waitFor("Cancelled")
	x.keys("q")
	x.waitFor("mcpscope-exited:0")
}
