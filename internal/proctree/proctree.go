// Package proctree runs a command as the root of a process tree that is ended as a
// whole, whatever the command does: children that leave its process group (setsid),
// daemons that double-fork, wrappers whose real server ignores stdin EOF, and the case
// where the caller itself is killed with SIGKILL.
//
// On Linux each command runs under a small supervisor: the calling binary re-executed
// (the package's init function takes over when it finds the supervisor's environment
// variable, so any binary that imports the package can be one). The supervisor is a
// child subreaper (PR_SET_CHILD_SUBREAPER): every descendant that is orphaned, however
// it escaped, is reparented to it instead of to init, so it can find the whole tree (by
// parent PIDs in /proc), signal it and reap it. It watches a pipe from the caller: when
// the caller closes it, or dies and the kernel closes it, the supervisor ends the tree
// (SIGTERM, a grace period, SIGKILL) and exits once nothing of the tree is left.
//
// Elsewhere (or when the supervisor cannot be started) the command runs in a process
// group of its own, which is all that can be ended; Tree.Escaped says so.
package proctree

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Spec says what to run.
type Spec struct {
	// Path is the program to execute (already looked up in $PATH); Argv[0] is the name
	// it sees.
	Path string
	Argv []string
	Env  []string // the complete environment
	Dir  string
	// The command's standard files (the child's ends of pipes, or files).
	Stdin, Stdout, Stderr *os.File
	// Grace is how long the tree gets between SIGTERM and SIGKILL when the supervisor
	// ends it on its own (the caller closed the tree, or died).
	Grace time.Duration
}

// Status is how the command (the tree's root) ended.
type Status struct {
	Code   int            // exit code; -1 when killed by a signal
	Signal syscall.Signal // the signal that killed it, or 0
}

func (s Status) String() string {
	if s.Signal != 0 {
		return "signal: " + SignalName(s.Signal)
	}
	return fmt.Sprintf("exit status %d", s.Code)
}

// SignalName is the conventional name of a signal (SIGKILL).
func SignalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return s.String()
}

// StartError says the command could not be started; Err is the system's reason
// (errors.Is(err, os.ErrNotExist) and os.ErrPermission work).
type StartError struct {
	Path string
	Err  error
}

func (e *StartError) Error() string { return "fork/exec " + e.Path + ": " + e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// Why words why a command could not be started, for a person: what is wrong and what
// to check. client/wire and the tap both say it, so the wording is one.
func Why(err error) string {
	var ee *exec.Error
	switch {
	case errors.As(err, &ee) && errors.Is(ee.Err, exec.ErrNotFound):
		return "no such command in $PATH; check the spelling or give the full path"
	case errors.Is(err, syscall.EISDIR):
		return "it is a directory, not a program"
	case errors.Is(err, os.ErrNotExist):
		return "no such file; check the path"
	case errors.Is(err, os.ErrPermission):
		return "permission denied; is the file executable?"
	}
	return err.Error()
}

// startError is a failed exec of path. exec of a directory fails with EACCES, which
// reads as a missing execute bit; the user named a directory where a program
// belongs, and EISDIR says that.
func startError(path string, err error) *StartError {
	if errors.Is(err, syscall.EACCES) {
		if st, serr := os.Stat(path); serr == nil && st.IsDir() {
			err = syscall.EISDIR
		}
	}
	return &StartError{Path: path, Err: err}
}

// Describe names running processes for a message: "PID 123 (sleep), PID 456 (node)".
func Describe(pids []int) string {
	s := make([]string, len(pids))
	for i, p := range pids {
		s[i] = describe(p, commName(p))
	}
	return strings.Join(s, ", ")
}

func describe(pid int, name string) string {
	if name == "" {
		return fmt.Sprintf("PID %d", pid)
	}
	return fmt.Sprintf("PID %d (%s)", pid, name)
}

func commName(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
