package main_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// Servers whose processes escape a process group, run under every way mcpscope can
// end. Each records the PIDs of its processes in $FAKEMCP_PIDFILE before it serves, so
// the test knows them all once the server answers.
var escapingServers = []struct {
	name   string
	script string
	pids   int    // processes recorded
	child  string // a process the server leaves behind, which the note should name
}{
	// A child moved to a session of its own, keeping the server's stdio.
	{"setsid-child", `setsid sh -c 'echo $$ >> "$FAKEMCP_PIDFILE"; exec sleep 1000' &
until [ -s "$FAKEMCP_PIDFILE" ]; do sleep 0.01; done
exec "$FAKE" progress`, 2, "sleep"},
	// A daemon: forked twice (its parent exits at once), a session of its own, stdio
	// on /dev/null.
	{"daemon", `(setsid sh -c 'echo $$ >> "$FAKEMCP_PIDFILE"; exec sleep 1000' </dev/null >/dev/null 2>&1 &)
until [ -s "$FAKEMCP_PIDFILE" ]; do sleep 0.01; done
exec "$FAKE" progress`, 2, "sleep"},
	// A wrapper (sh -c 'server; true') whose real server ignores stdin EOF and
	// SIGTERM: when mcpscope is killed, only the wrapper would get its Pdeathsig.
	{"wrapper-ignoring-eof", `echo $$ >> "$FAKEMCP_PIDFILE"
"$FAKE" stubborn-slow
true`, 2, ""},
}

// No process of the server is left once mcpscope has ended: after a normal exit, an
// error exit, SIGTERM, and SIGKILL or SIGQUIT of mcpscope itself (when none of its
// code runs: the supervisor ends the tree when its pipe to mcpscope closes).
func TestNoOrphanWhateverTheServerDoes(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	fake := testutil.Build(t, "./internal/testservers/fakemcp")
	for _, srv := range escapingServers {
		for _, how := range []string{"exit-0", "error-exit", "SIGTERM", "SIGKILL", "SIGQUIT"} {
			t.Run(srv.name+"/"+how, func(t *testing.T) {
				t.Parallel()
				pidfile, env := testutil.PIDFile(t)
				var args []string
				switch how {
				case "exit-0":
					args = []string{"call", "echo", "message=hi"}
				case "error-exit":
					args = []string{"call", "no-such-tool"}
				default:
					// No --timeout, so no progress token: the server stays silent while
					// the call runs (writing would end it with SIGPIPE once mcpscope is
					// gone, which hides the case of a server that just sits there).
					args = []string{"call", "slow", "steps=100000", "--timeout", "0"}
				}
				args = append(args, "--grace", "100ms", "--", "sh", "-c", srv.script)
				cmd := exec.Command(bin, args...)
				cmd.Env = append(os.Environ(), env, "FAKE="+fake)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				done := make(chan struct{})
				go func() { cmd.Wait(); close(done) }()
				t.Cleanup(func() {
					cmd.Process.Kill()
					<-done
					killRecorded(pidfile)
				})
				if sig, ok := map[string]syscall.Signal{"SIGTERM": syscall.SIGTERM, "SIGKILL": syscall.SIGKILL, "SIGQUIT": syscall.SIGQUIT}[how]; ok {
					waitRecorded(t, pidfile, srv.pids, done)
					cmd.Process.Signal(sig)
				}
				select {
				case <-done:
				case <-time.After(60 * time.Second):
					t.Fatalf("mcpscope did not exit; stderr:\n%s", stderr.String())
				}
				code := cmd.ProcessState.ExitCode()
				if (how == "exit-0") != (code == 0) {
					t.Errorf("exit code %d; stderr:\n%s", code, stderr.String())
				}
				pids := recorded(pidfile)
				if len(pids) < srv.pids {
					t.Fatalf("%d PIDs recorded, want %d; stderr:\n%s", len(pids), srv.pids, stderr.String())
				}
				waitGone(t, pids, stderr.String())
				if srv.child != "" && (how == "exit-0" || how == "error-exit" || how == "SIGTERM") {
					// The note names what the server left behind: its PID and name.
					if want := fmt.Sprintf("left running by the server and ended with it: PID %d (%s)", pids[0], srv.child); !strings.Contains(stderr.String(), want) {
						t.Errorf("stderr does not say %q:\n%s", want, stderr.String())
					}
				}
			})
		}
	}
}

func recorded(pidfile string) []int {
	b, _ := os.ReadFile(pidfile)
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		var n int
		if _, err := fmt.Sscan(f, &n); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

func waitRecorded(t *testing.T, pidfile string, n int, exited <-chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(recorded(pidfile)) < n {
		select {
		case <-exited:
			t.Fatalf("mcpscope exited before the server recorded %d PIDs", n)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server recorded %d PIDs in 30 s, want %d", len(recorded(pidfile)), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGone fails unless every pid has ended within 30 s.
func waitGone(t *testing.T, pids []int, stderr string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, pid := range pids {
		for testutil.Alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if testutil.Alive(pid) {
			t.Errorf("process %d of the server is still running after mcpscope ended (an orphan); stderr:\n%s", pid, stderr)
		}
	}
}

// killRecorded ends what a failed test left behind, by PID.
func killRecorded(pidfile string) {
	for _, pid := range recorded(pidfile) {
		if testutil.Alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
