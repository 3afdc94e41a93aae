package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// threadsReadingStdin looks at the threads of process pid: it returns those that wait
// in read(2) on fd 0, and whether every thread was asleep (so that no read was about
// to start or under way where it looked).
func threadsReadingStdin(pid int) (tids []string, settled bool) {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	settled = len(tasks) > 0
	for _, task := range tasks {
		stat, err1 := os.ReadFile(task + "/stat")
		sc, err2 := os.ReadFile(task + "/syscall")
		if err1 != nil || err2 != nil {
			settled = false // a thread came or went
			continue
		}
		if f := strings.Fields(string(sc)); len(f) >= 2 && f[0] == fmt.Sprint(unix.SYS_READ) && f[1] == "0x0" {
			tids = append(tids, filepath.Base(task))
		}
		s := string(stat) // the state follows the command name, which is in parentheses
		if i := strings.LastIndexByte(s, ')'); i < 0 || i+2 >= len(s) || s[i+2] != 'S' {
			settled = false
		}
	}
	return tids, settled
}

// AssertWaitsForStdinInPoller waits until every thread of process pid, a Go server
// with nothing to do but wait for its next message on stdin, is asleep, and fails the
// test if one of them sleeps in read(2) on fd 0 instead of the runtime's poller: a
// garbage collection's stop-the-world that begins as a goroutine enters that read
// waits for it, with the whole process stopped, until the client writes again or
// about 60 s pass (see package pollread; issue 14 item 9).
func AssertWaitsForStdinInPoller(t testing.TB, pid int) {
	t.Helper()
	Eventually(t, fmt.Sprintf("every thread of process %d asleep, waiting for input", pid), func() (bool, string) {
		tids, settled := threadsReadingStdin(pid)
		if _, err := os.Stat(fmt.Sprintf("/proc/%d/task", pid)); err != nil {
			t.Fatalf("process %d is gone while it should wait for input: %v", pid, err)
		}
		if len(tids) > 0 {
			t.Fatalf("thread %v of process %d waits for its next message in read(2) on stdin: a garbage collection that starts as it enters the call stops the process until the client writes again", tids, pid)
		}
		return settled, "some thread was still running"
	})
}
