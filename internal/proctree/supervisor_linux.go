package proctree

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/mcpscope/mcpscope/internal/idlemem"
)

// envSupervisor, when set (to the grace period), makes this binary a supervisor.
const envSupervisor = "MCPSCOPE_PROCTREE_SUPERVISOR"

// The supervisor's inherited files: the command's stdin, stdout and stderr, the read
// end of the control pipe and the write end of the status pipe.
const (
	fdStdin = 3 + iota
	fdStdout
	fdStderr
	fdControl
	fdStatus
)

func init() {
	v, ok := os.LookupEnv(envSupervisor)
	if !ok {
		return
	}
	// syscall.Exit, not os.Exit: under the race detector os.Exit sleeps a second
	// before exiting (atexit_sleep_ms), and the caller waits for this exit.
	syscall.Exit(supervise(v))
}

func setPdeathsig(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// Supported reports whether trees are followed whole on this system.
func Supported() bool { return true }

// startSupervised starts the supervisor, which starts the command.
func startSupervised(spec Spec) (*Tree, error) {
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stR, stW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return nil, err
	}
	grace := spec.Grace
	if grace <= 0 {
		grace = 500 * time.Millisecond
	}
	cmd := exec.Command("/proc/self/exe", append([]string{spec.Path}, spec.Argv...)...)
	cmd.Args[0] = "mcpscope-supervisor"
	cmd.Env = append(append([]string(nil), spec.Env...), envSupervisor+"="+grace.String())
	cmd.Dir = spec.Dir
	cmd.ExtraFiles = []*os.File{spec.Stdin, spec.Stdout, spec.Stderr, ctlR, stW}
	// A group of its own: a Ctrl-C in the terminal, or a signal to the command's
	// group, does not reach it. No Pdeathsig: when the caller dies, the control pipe's
	// end is how the supervisor learns of it, and it must live to clean up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	ctlR.Close()
	stW.Close()
	if err != nil {
		ctlW.Close()
		stR.Close()
		return nil, err
	}
	r := bufio.NewReader(stR)
	first, _ := r.ReadString('\n')
	verb, arg, _ := strings.Cut(strings.TrimSpace(first), " ")
	switch verb {
	case "pid":
	case "err":
		ctlW.Close()
		stR.Close()
		cmd.Wait()
		n, _ := strconv.Atoi(arg)
		return nil, startError(spec.Path, syscall.Errno(n))
	default:
		ctlW.Close()
		stR.Close()
		cmd.Wait()
		return nil, fmt.Errorf("proctree: the supervisor did not start (%q)", first)
	}
	pid, _ := strconv.Atoi(arg)
	t := &Tree{Pid: pid, supervised: true, root: cmd.Process.Pid, ctl: ctlW,
		exited: make(chan struct{}), gone: make(chan struct{}), swept: map[int]string{}}
	go func() {
		reported := false
		for {
			line, err := r.ReadString('\n')
			if verb, arg, _ := strings.Cut(strings.TrimSpace(line), " "); verb == "exit" && !reported {
				code, sig, _ := strings.Cut(arg, " ")
				t.status.Code, _ = strconv.Atoi(code)
				n, _ := strconv.Atoi(sig)
				t.status.Signal = syscall.Signal(n)
				reported = true
				close(t.exited)
			}
			if err != nil {
				break
			}
		}
		// The status pipe ends when the supervisor exits, which it does once nothing
		// of the tree is left (or when it is killed).
		stR.Close()
		if !reported {
			// The supervisor died without saying (someone killed it); the command got
			// its Pdeathsig.
			t.status = Status{Code: -1, Signal: syscall.SIGKILL}
			close(t.exited)
		}
		close(t.gone)
		cmd.Wait()
	}()
	return t, nil
}

// supervise is the supervisor's main: start the command as a subreaper's child, report
// its PID and exit status, reap everything that is reparented here, and end the tree
// when the control pipe closes. It exits once nothing of the tree is left.
func supervise(graceArg string) int {
	grace, err := time.ParseDuration(graceArg)
	if err != nil {
		grace = 500 * time.Millisecond
	}
	status := os.NewFile(fdStatus, "status")
	ctl := os.NewFile(fdControl, "control")
	for fd := fdStdin; fd <= fdStatus; fd++ {
		syscall.CloseOnExec(fd)
	}
	// Pdeathsig is tied to the thread that forks: keep this one for good.
	runtime.LockOSThread()
	_ = unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&[]byte("mcpscope-sv\x00")[0])), 0, 0, 0)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(status, "err %d\n", errnoOf(err))
		return 127
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envSupervisor+"=") {
			env = append(env, kv)
		}
	}
	if len(os.Args) < 3 {
		fmt.Fprintf(status, "err %d\n", syscall.EINVAL)
		return 127
	}
	pid, err := syscall.ForkExec(os.Args[1], os.Args[2:], &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{fdStdin, fdStdout, fdStderr},
		Sys:   &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		fmt.Fprintf(status, "err %d\n", errnoOf(err))
		return 127
	}
	for _, fd := range []int{fdStdin, fdStdout, fdStderr} {
		syscall.Close(fd)
	}
	fmt.Fprintf(status, "pid %d\n", pid)

	// The end comes when the caller closes the control pipe (or dies), or when
	// someone asks the supervisor itself to stop.
	stop := make(chan struct{})
	go func() {
		io.Copy(io.Discard, ctl)
		close(stop)
	}()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		select {
		case <-stop:
		case <-sigs:
		}
		self := os.Getpid()
		signalAll(self, syscall.SIGTERM)
		deadline := time.Now().Add(grace)
		for time.Now().Before(deadline) && len(liveDescendants(self)) > 0 {
			time.Sleep(10 * time.Millisecond)
		}
		for {
			signalAll(self, syscall.SIGKILL)
			time.Sleep(20 * time.Millisecond)
		}
	}()

	// From here on the supervisor waits, for as long as the server runs: the binary's
	// pages that its start touched are dropped now, once (package idlemem says why that
	// is safe): its RSS falls from about 12 MiB to 3.
	idlemem.ReleaseFilePages()
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			// ECHILD: no child left, and so (every orphan being reparented here) no
			// descendant at all.
			return 0
		}
		if wpid == pid && (ws.Exited() || ws.Signaled()) {
			s := statusOfWait(ws)
			fmt.Fprintf(status, "exit %d %d\n", s.Code, int(s.Signal))
		}
	}
}

func signalAll(root int, sig syscall.Signal) {
	for _, p := range liveDescendants(root) {
		_ = syscall.Kill(p.pid, sig)
	}
}

func errnoOf(err error) int {
	var en syscall.Errno
	if errors.As(err, &en) {
		return int(en)
	}
	return int(syscall.EINVAL)
}
