//go:build unix

package toolfile

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the command in a process group of its own, so a timeout kills
// whatever it spawned too.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	// The group id is the child's pid (Setpgid with Pgid 0).
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		return cmd.Process.Kill()
	}
	return nil
}
