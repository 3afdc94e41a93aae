package testutil

import "syscall"

// syscallKill ends a leftover process this test started, by PID, so that a failing
// test does not leave it behind either.
func syscallKill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
