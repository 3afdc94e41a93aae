//go:build unix

package proctree

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Tree is a running command and everything it started.
type Tree struct {
	// Pid is the command's PID.
	Pid int

	supervised bool
	root       int // the PID whose descendants are the tree: the supervisor's, or Pid
	pgid       int // direct mode: the command's process group
	ctl        *os.File
	ctlOnce    sync.Once

	exited chan struct{} // closed once the command has exited
	status Status        // valid after exited
	gone   chan struct{} // closed once no process of the tree is left

	mu    sync.Mutex
	swept map[int]string // processes other than the command signalled while running, and their names
}

// Start runs spec. The caller keeps its own copies of spec's files and closes them
// when it likes: the tree has its own.
func Start(spec Spec) (*Tree, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("proctree: no command")
	}
	t, err := startSupervised(spec)
	if err == nil {
		return t, nil
	}
	var se *StartError
	if errors.As(err, &se) {
		return nil, err
	}
	return startDirect(spec)
}

// Exited is closed once the command itself has exited (its descendants may live on).
func (t *Tree) Exited() <-chan struct{} { return t.exited }

// Status is how the command ended; valid once Exited is closed.
func (t *Tree) Status() Status { return t.status }

// Gone is closed once no process of the tree is left.
func (t *Tree) Gone() <-chan struct{} { return t.gone }

// Supervised reports whether the whole tree is followed (see Escaped otherwise).
func (t *Tree) Supervised() bool { return t.supervised }

// Escaped is "" when every descendant of the command is followed, and otherwise says
// what may be left running.
func (t *Tree) Escaped() string {
	if t.supervised {
		return ""
	}
	return "on this system only the command's process group is ended, so a process it moved to a group or session of its own (setsid, a daemon) is not followed"
}

// Signal sends sig to every process of the tree that is still running (in direct mode,
// to the command's process group).
func (t *Tree) Signal(sig syscall.Signal) {
	if !t.supervised {
		_ = syscall.Kill(-t.pgid, sig)
		return
	}
	for _, p := range liveDescendants(t.root) {
		if p.pid == t.Pid {
			_ = syscall.Kill(p.pid, sig)
			continue
		}
		t.mu.Lock()
		if _, ok := t.swept[p.pid]; !ok {
			t.swept[p.pid] = commName(p.pid) // before it is gone
		}
		t.mu.Unlock()
		_ = syscall.Kill(p.pid, sig)
	}
}

// Swept describes the processes other than the command itself that were still running
// when the tree was signalled (children it left behind), in PID order: "PID 12 (sleep)".
func (t *Tree) Swept() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var pids []int
	for p := range t.swept {
		pids = append(pids, p)
	}
	slices.Sort(pids)
	out := make([]string, len(pids))
	for i, p := range pids {
		out[i] = describe(p, t.swept[p])
	}
	return out
}

// End ends what is left of the tree: SIGTERM, up to grace for it to go, then SIGKILL.
// It returns once the tree is gone, or, when processes survive SIGKILL for
// several seconds (stuck in the kernel, or out of reach), with their PIDs.
func (t *Tree) End(grace time.Duration) (left []int) {
	if t.isGone() {
		t.Release()
		return nil
	}
	t.Signal(syscall.SIGTERM)
	if !t.waitGone(grace) {
		deadline := time.Now().Add(5 * time.Second)
		for !t.isGone() && time.Now().Before(deadline) {
			// Again and again: a process may have forked between scan and signal.
			t.Signal(syscall.SIGKILL)
			t.waitGone(20 * time.Millisecond)
		}
	}
	if !t.isGone() {
		left = t.alive()
	}
	t.Release()
	return left
}

// Release closes the control pipe: the supervisor then ends whatever is left of the
// tree on its own (SIGTERM, grace, SIGKILL) and exits.
func (t *Tree) Release() {
	t.ctlOnce.Do(func() {
		if t.ctl != nil {
			t.ctl.Close()
		}
	})
}

func (t *Tree) isGone() bool {
	select {
	case <-t.gone:
		return true
	default:
		return false
	}
}

func (t *Tree) waitGone(d time.Duration) bool {
	if d <= 0 {
		return t.isGone()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-t.gone:
		return true
	case <-timer.C:
		return false
	}
}

// alive lists the tree's processes that are still running.
func (t *Tree) alive() []int {
	var pids []int
	if t.supervised {
		for _, p := range liveDescendants(t.root) {
			pids = append(pids, p.pid)
		}
	} else {
		pids = groupMembers(t.pgid)
	}
	slices.Sort(pids)
	return pids
}

// startDirect runs the command in a process group of its own, with no supervisor.
func startDirect(spec Spec) (*Tree, error) {
	cmd := &exec.Cmd{Path: spec.Path, Args: spec.Argv, Env: spec.Env, Dir: spec.Dir,
		Stdin: spec.Stdin, Stdout: spec.Stdout, Stderr: spec.Stderr}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setPdeathsig(cmd.SysProcAttr)
	if err := cmd.Start(); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, startError(spec.Path, pe.Err)
		}
		return nil, startError(spec.Path, err)
	}
	t := &Tree{Pid: cmd.Process.Pid, root: cmd.Process.Pid, pgid: cmd.Process.Pid,
		exited: make(chan struct{}), gone: make(chan struct{}), swept: map[int]string{}}
	go func() {
		_ = cmd.Wait()
		t.status = statusOf(cmd.ProcessState)
		close(t.exited)
		// The group lives on while a member that outlived the leader runs.
		for syscall.Kill(-t.pgid, 0) == nil && len(groupMembers(t.pgid)) > 0 {
			time.Sleep(10 * time.Millisecond)
		}
		close(t.gone)
	}()
	return t, nil
}

func statusOf(ps *os.ProcessState) Status {
	if ps == nil {
		return Status{Code: -1}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
		return statusOfWait(ws)
	}
	return Status{Code: ps.ExitCode()}
}

func statusOfWait(ws syscall.WaitStatus) Status {
	if ws.Signaled() {
		return Status{Code: -1, Signal: ws.Signal()}
	}
	return Status{Code: ws.ExitStatus()}
}

// proc is one line of /proc/PID/stat, the fields that matter here.
type proc struct {
	pid, ppid, pgrp int
	state           byte
}

// processes reads every process's parent, group and state from /proc.
func processes() []proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]proc, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 3 || len(f[0]) != 1 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		out = append(out, proc{pid: pid, ppid: ppid, pgrp: pgrp, state: f[0][0]})
	}
	return out
}

func (p proc) running() bool { return p.state != 'Z' && p.state != 'X' }

// liveDescendants returns the running descendants of root (not root itself).
func liveDescendants(root int) []proc {
	all := processes()
	children := map[int][]int{}
	byPID := map[int]proc{}
	for _, p := range all {
		children[p.ppid] = append(children[p.ppid], p.pid)
		byPID[p.pid] = p
	}
	var out []proc
	queue := []int{root}
	seen := map[int]bool{root: true}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if seen[c] {
				continue
			}
			seen[c] = true
			queue = append(queue, c)
			if byPID[c].running() {
				out = append(out, byPID[c])
			}
		}
	}
	return out
}

// groupMembers returns the running members of a process group. Where /proc cannot be
// read it trusts a signal probe, which counts zombies too.
func groupMembers(pgid int) []int {
	all := processes()
	if all == nil {
		if syscall.Kill(-pgid, 0) == nil {
			return []int{-pgid}
		}
		return nil
	}
	var pids []int
	for _, p := range all {
		if p.pgrp == pgid && p.running() {
			pids = append(pids, p.pid)
		}
	}
	return pids
}
