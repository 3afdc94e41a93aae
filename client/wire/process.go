package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// process is one run of the server command, in a process group of its own so that a
// wrapper's children (npx, uvx, sh -c) are ended with it.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr *os.File
	pgid   int
	done   chan struct{} // closed once the leader has been reaped
	// stderrDone is closed when stderr reaches EOF (every holder of the pipe exited).
	stderrDone chan struct{}
	// reported is closed once the closed event for this process has been emitted.
	reported chan struct{}
	exit     Exit // valid after done
}

// StartError says the server command could not be started at all.
type StartError struct {
	Argv []string
	Err  error
}

func (e *StartError) Error() string {
	msg := e.Err.Error()
	var ee *exec.Error
	if errors.As(e.Err, &ee) && errors.Is(ee.Err, exec.ErrNotFound) {
		msg = "no such command in $PATH; check the spelling or give the full path"
	} else if errors.Is(e.Err, os.ErrNotExist) {
		msg = "no such file; check the path"
	} else if errors.Is(e.Err, os.ErrPermission) {
		msg = "permission denied; is the file executable?"
	}
	return fmt.Sprintf("cannot start %q: %s", e.Argv[0], msg)
}

func (e *StartError) Unwrap() error { return e.Err }

func startProcess(argv []string, env []string, dir string) (*process, error) {
	if len(argv) == 0 {
		return nil, errors.New("no server command given")
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = dir
	// The child's ends are plain files, so Wait does not wait for copying goroutines
	// that a grandchild holding the pipes open could block forever.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	// Its own process group: Ctrl-C in the terminal reaches mcpscope only, and closing
	// can signal the whole tree. Pdeathsig ends the leader even if mcpscope is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, &StartError{Argv: argv, Err: err}
	}
	p := &process{cmd: cmd, stdin: inW, stdout: outR, stderr: errR, pgid: cmd.Process.Pid, done: make(chan struct{}), stderrDone: make(chan struct{}), reported: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		p.exit = exitOf(cmd.ProcessState, err)
		close(p.done)
	}()
	return p, nil
}

func exitOf(ps *os.ProcessState, err error) Exit {
	if ps == nil {
		return Exit{Code: -1, Signal: ""}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Exit{Code: -1, Signal: signalName(ws.Signal())}
	}
	return Exit{Code: ps.ExitCode()}
}

func signalName(s syscall.Signal) string {
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
	}
	return s.String()
}

// exited reports whether the leader has been reaped.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *process) waitExit(d time.Duration) bool {
	if d <= 0 {
		return p.exited()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

// groupAlive reports whether any process of the group is left running. A signal-0
// probe answers for zombies too, which init may take its time to reap (or, in some
// containers, never), so a positive answer is checked against /proc.
func (p *process) groupAlive() bool {
	if syscall.Kill(-p.pgid, 0) != nil {
		return false
	}
	return groupHasLiveMember(p.pgid)
}

// groupHasLiveMember scans /proc for a process of the group that is not a zombie.
// Where /proc cannot be read it trusts the signal probe.
func groupHasLiveMember(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		name := e.Name()
		if name[0] < '0' || name[0] > '9' {
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
		if len(f) < 3 || f[2] != strconv.Itoa(pgid) {
			continue
		}
		if f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}

func (p *process) signalGroup(sig syscall.Signal) {
	_ = syscall.Kill(-p.pgid, sig)
}

// stop ends the process the way the spec describes: close stdin (the graceful signal),
// wait grace, SIGTERM the group, wait grace, SIGKILL the group. It returns only after
// the leader has been reaped and no member of its group is left (members that a
// wrapper left behind are signalled too, since they hold the same pgid).
func (p *process) stop(grace time.Duration) {
	p.stdin.Close()
	if !p.waitExit(grace) {
		p.signalGroup(syscall.SIGTERM)
		if !p.waitExit(grace) {
			p.signalGroup(syscall.SIGKILL)
			<-p.done
		}
	}
	p.sweepGroup(grace)
}

// kill ends the process group at once (used when a probe restarts the server).
func (p *process) kill() {
	p.stdin.Close()
	p.signalGroup(syscall.SIGKILL)
	<-p.done
	p.sweepGroup(0)
}

// sweepGroup ends group members that outlived the leader: an npx-style wrapper may exit
// while the real server, its child, keeps running.
func (p *process) sweepGroup(grace time.Duration) {
	if !p.groupAlive() {
		return
	}
	p.signalGroup(syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if !p.groupAlive() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.signalGroup(syscall.SIGKILL)
	// Orphans are reaped by init, not by us; give it a moment so that a caller checking
	// for leftovers right after Close sees none.
	for i := 0; i < 200 && p.groupAlive(); i++ {
		time.Sleep(5 * time.Millisecond)
	}
}

// unreadInput reports how many bytes written to the child's stdin it has not read yet.
// The probes use it to start their clock only once the server has consumed a request,
// so a server that is slow to start is never mistaken for a silent one.
func unreadInput(f *os.File) (int, error) {
	// SyscallConn, not Fd: Fd would switch the pipe to blocking mode, and a blocked
	// write could then hold up Close.
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int32
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	}); err != nil {
		return 0, err
	}
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// lineReader reads stderr lines of any length (long lines are cut for display).
func readLines(f *os.File, fn func(line []byte, full int)) {
	r := bufio.NewReaderSize(f, 16<<10)
	fr := &frameReader{r: r, max: 1 << 20}
	for {
		line, full, err := fr.readLine()
		if len(line) > 0 || (err == nil) {
			fn(line, full)
		}
		if err != nil {
			return
		}
	}
}
