package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/shquote"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
)

// tmux runs the built binary in a real terminal, on a tmux server of its own (its own
// socket), so nothing else on the machine is touched.
type tmux struct {
	t      testing.TB
	socket string
}

func newTmux(t testing.TB, width, height int, command string) *tmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is needed for the end-to-end tests (apt-get install tmux; .ci/run installs it)")
	}
	x := &tmux{t: t, socket: fmt.Sprintf("mcpscope-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	// Each test's lasting history starts empty (a state directory of its own).
	command = "XDG_STATE_HOME=" + shquote.Quote(t.TempDir()) + " " + command
	x.run("new-session", "-d", "-s", "e2e", "-c", t.TempDir(), "-x", strconv.Itoa(width), "-y", strconv.Itoa(height), command)
	t.Cleanup(func() {
		if t.Failed() {
			// What every process under the pane was doing: a screen that never came
			// says little by itself (a child stopped, mcpscope in some syscall).
			t.Log(x.processes())
		}
		_ = exec.Command("tmux", "-L", x.socket, "kill-server").Run()
	})
	return x
}

// processes describes the processes under the pane: state, kernel wait channel, and
// the system call each thread is in.
func (x *tmux) processes() string {
	out, err := exec.Command("tmux", "-L", x.socket, "display-message", "-p", "-t", "e2e", "#{pane_pid}").Output()
	if err != nil {
		return "no pane: " + err.Error()
	}
	pane, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	var b strings.Builder
	fmt.Fprintf(&b, "processes under the pane (%d):\n", pane)
	for _, pid := range append([]int{pane}, descendants(pane)...) {
		dir := fmt.Sprintf("/proc/%d", pid)
		stat, _ := os.ReadFile(dir + "/stat")
		wchan, _ := os.ReadFile(dir + "/wchan")
		cmdline, _ := os.ReadFile(dir + "/cmdline")
		state := ""
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 {
			if f := strings.Fields(string(stat)[i+1:]); len(f) > 0 {
				state = f[0]
			}
		}
		fmt.Fprintf(&b, "  %d %s wchan=%s %s\n", pid, state, wchan, strings.ReplaceAll(strings.TrimSpace(string(cmdline)), "\x00", " "))
		tasks, _ := os.ReadDir(dir + "/task")
		var calls []string
		for _, tk := range tasks {
			sc, _ := os.ReadFile(dir + "/task/" + tk.Name() + "/syscall")
			if f := strings.Fields(string(sc)); len(f) > 0 {
				calls = append(calls, f[0])
			}
		}
		fmt.Fprintf(&b, "    threads' syscalls: %s\n", strings.Join(calls, " "))
	}
	return b.String()
}

func (x *tmux) run(args ...string) string {
	x.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", x.socket}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (x *tmux) screen() string { return x.run("capture-pane", "-p", "-t", "e2e") }

func (x *tmux) keys(keys ...string) { x.run(append([]string{"send-keys", "-t", "e2e"}, keys...)...) }

// typeText sends literal text.
func (x *tmux) typeText(s string) { x.run("send-keys", "-t", "e2e", "-l", s) }

// openTool filters the list to tool, waits until the filter has found it (a server
// just added may still be listing its tools), opens it, and waits until its form has
// the keys ("Arguments" alone is shown from the list too).
func (x *tmux) openTool(tool string) {
	x.t.Helper()
	x.keys("/")
	x.typeText(tool)
	x.waitUntil("the filter to find "+tool, func(s string) bool {
		return strings.Contains(s, "/"+tool) && strings.Count(s, tool) >= 2 && !strings.Contains(s, "no tool matches")
	})
	x.keys("Enter", "Enter")
	x.waitFor("Arguments  enter ") // "enter calls", "enter starts a task": the form has the keys
}

// waitFor polls the screen until it shows what, for up to testutil.Patience.
func (x *tmux) waitFor(what string) string {
	x.t.Helper()
	return x.waitUntil(fmt.Sprintf("%q on the screen", what), func(s string) bool { return strings.Contains(s, what) })
}

// waitUntil waits until the screen satisfies ok and returns that screen; every
// other wait on the screen is built on it.
func (x *tmux) waitUntil(what string, ok func(screen string) bool) string {
	x.t.Helper()
	return testutil.Eventually(x.t, what, func() (bool, string) {
		s := x.screen()
		return ok(s), s
	})
}

// panePID is the PID of the program the pane runs (the shell wrapper's child chain is
// avoided by exec in the command).
func (x *tmux) panePID() int {
	n, _ := strconv.Atoi(strings.TrimSpace(x.run("display-message", "-p", "-t", "e2e", "#{pane_pid}")))
	return n
}

// descendants lists the PIDs below pid.
func descendants(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b)[i+1:])
		if len(f) > 1 {
			pp, _ := strconv.Atoi(f[1])
			children[pp] = append(children[pp], n)
		}
	}
	var out []int
	var walk func(p int)
	walk = func(p int) {
		for _, c := range children[p] {
			out = append(out, c)
			walk(c)
		}
	}
	walk(pid)
	return out
}

func e2eSession(t *testing.T, args string, tool, field, text, want string) {
	bin := testutil.Mcpscope(t)
	// exec keeps mcpscope the pane's own process; the trailing sleep keeps the pane
	// readable after it exits, to read the exit line.
	x := newTmux(t, 120, 40, fmt.Sprintf("sh -c '%s %s; echo mcpscope-exited:$?; sleep 30'", bin, args))
	x.waitFor("connected")
	shell := x.panePID()
	pids := descendants(shell)
	if len(pids) < 2 {
		t.Fatalf("expected mcpscope and its server under the pane, found %v", pids)
	}

	// Start recording with R; the status bar says so.
	x.keys("R")
	x.waitFor("● REC mcpscope-")

	// Filter to the tool, open its form, fill the field, call it, read the result.
	x.openTool(tool)
	x.typeText(text)
	x.keys("Enter")
	x.waitFor(want)

	// A slow call, cancelled with esc.
	if strings.Contains(args, "host") || args == "" {
		x.keys("Tab")
		x.openTool("slow")
		x.typeText("200")
		x.keys("Enter")
		x.waitFor("x cancels")
		x.keys("x")
		x.waitFor("Cancelled")
	}

	// Quit; mcpscope and every process it started must be gone.
	x.keys("Tab", "q")
	x.waitFor("mcpscope-exited:0")

	// The recording holds the call.
	dir := strings.TrimSpace(x.run("display-message", "-p", "-t", "e2e", "#{pane_current_path}"))
	files, _ := filepath.Glob(filepath.Join(dir, "mcpscope-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("recordings in %s: %v", dir, files)
	}
	rec, err := record.Load(files[0])
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, ex := range rec.Exchanges() {
		if ex.Method == "tools/call" && strings.Contains(string(ex.Response), want) {
			calls++
		}
	}
	if calls == 0 || !rec.Complete {
		t.Errorf("the recording lacks the call (complete=%v, warnings %v)", rec.Complete, rec.Warnings)
	}
	for _, pid := range pids {
		if testutil.Alive(pid) {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && strings.Contains(string(b), "sleep") {
				continue // the pane's own sleep
			}
			t.Errorf("process %d is still running after quitting", pid)
		}
	}
}

func TestEndToEndBundledHost(t *testing.T) {
	t.Parallel()
	e2eSession(t, "", "echo", "text", "hi from tmux", "hi from tmux")
}

func TestEndToEndServerEverything(t *testing.T) {
	t.Parallel()
	argv := testutil.Everything(t)
	e2eSession(t, "-- "+strings.Join(argv, " "), "echo", "message", "hi everything", "Echo: hi everything")
}

// BenchmarkIdleRSSEverything: mcpscope's resident memory while idle on
// server-everything, in a real terminal (target: under 30 MB).
func BenchmarkIdleRSSEverything(b *testing.B) {
	bin := testutil.Mcpscope(b)
	argv := testutil.Everything(b)
	var worst float64
	for i := 0; i < b.N; i++ {
		x := newTmux(b, 120, 40, fmt.Sprintf("exec %s -- %s", bin, strings.Join(argv, " ")))
		x.waitFor("connected")
		// Idle: the RSS is read once it has stopped moving (the same in eight polls in
		// a row), not after a fixed sleep that a loaded machine may not have finished
		// starting up in.
		status := fmt.Sprintf("/proc/%d/status", x.panePID())
		var kb float64
		same := 0
		testutil.Eventually(b, "the RSS to settle", func() (bool, string) {
			now := vmRSSKB(status)
			if now == kb {
				same++
			} else {
				kb, same = now, 0
			}
			return same >= 8 && kb > 0, fmt.Sprintf("%.0f kB", kb)
		})
		worst = max(worst, kb/1024)
		x.keys("q")
		_ = exec.Command("tmux", "-L", x.socket, "kill-server").Run()
	}
	b.ReportMetric(worst, "idle-RSS-MB")
}
