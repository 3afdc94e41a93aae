package wire

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpscope/mcpscope/internal/proctree"
)

// process is one run of the server command and everything it starts. On Linux it runs
// under a supervisor (see internal/proctree) that follows every descendant, including
// those that leave the process group (setsid, double-forking daemons), and that ends
// them all even when mcpscope itself is killed with SIGKILL.
type process struct {
	tree   *proctree.Tree
	stdin  *os.File
	stdout *os.File
	stderr *os.File
	done   chan struct{} // closed once the server command itself has exited
	// written counts the bytes of whole frames written to stdin: against the bytes
	// still unread, whether the server read any of them (see retryContentLengthAtEOF).
	written atomic.Int64
	// stderrDone is closed when stderr reaches EOF (every holder of the pipe exited).
	stderrDone chan struct{}
	// reported is closed once the closed event for this process has been emitted.
	reported chan struct{}
	exit     Exit // valid after done
	// Set by stop and kill: processes the server left running that were ended with
	// it, and processes that could not be ended.
	swept []string
	left  []int
}

// StartError says the server command could not be started at all.
type StartError struct {
	Argv []string
	Err  error
}

func (e *StartError) Error() string {
	return fmt.Sprintf("cannot start %q: %s", e.Argv[0], proctree.Why(e.Err))
}

func (e *StartError) Unwrap() error { return e.Err }

// startProcessGrace starts argv; grace is what the supervisor gives the server between
// SIGTERM and SIGKILL when it has to end the tree on its own (mcpscope died).
func startProcessGrace(argv []string, env []string, dir string, grace time.Duration) (*process, error) {
	if len(argv) == 0 {
		return nil, errors.New("no server command given")
	}
	path := argv[0]
	if !strings.Contains(path, "/") {
		// Looked up in mcpscope's $PATH, as exec.Command does. A name with a slash is
		// left to the system, relative to dir.
		lp, err := exec.LookPath(path)
		if err != nil {
			return nil, &StartError{Argv: argv, Err: err}
		}
		path = lp
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
	// The child's ends are plain files, so that nothing waits on copying goroutines a
	// grandchild holding the pipes open could block forever. The server runs in a
	// process group of its own: Ctrl-C in the terminal reaches mcpscope only.
	tree, err := proctree.Start(proctree.Spec{
		Path: path, Argv: argv, Env: append(os.Environ(), env...), Dir: dir,
		Stdin: inR, Stdout: outW, Stderr: errW, Grace: grace,
	})
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		var se *proctree.StartError
		if errors.As(err, &se) {
			err = &os.PathError{Op: "fork/exec", Path: se.Path, Err: se.Err}
		}
		return nil, &StartError{Argv: argv, Err: err}
	}
	p := &process{tree: tree, stdin: inW, stdout: outR, stderr: errR, done: make(chan struct{}), stderrDone: make(chan struct{}), reported: make(chan struct{})}
	go func() {
		<-tree.Exited()
		p.exit = exitOf(tree.Status())
		close(p.done)
	}()
	return p, nil
}

func exitOf(s proctree.Status) Exit {
	if s.Signal != 0 {
		return Exit{Code: -1, Signal: proctree.SignalName(s.Signal)}
	}
	return Exit{Code: s.Code}
}

// exited reports whether the server command has exited.
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

// stop ends the process the way the spec describes: close stdin (the graceful signal),
// wait grace, SIGTERM, wait grace, SIGKILL. Then it ends what the server left running
// (a wrapper's real server, a setsid child, a daemon) the same way, and returns once
// nothing of the tree is left, or it has given up on processes SIGKILL did not end.
func (p *process) stop(grace time.Duration) {
	p.stdin.Close()
	if !p.waitExit(grace) {
		p.tree.Signal(syscall.SIGTERM)
		if !p.waitExit(grace) {
			p.tree.Signal(syscall.SIGKILL)
			<-p.done
		}
	}
	p.left = p.tree.End(grace)
	p.swept = p.tree.Swept()
}

// kill ends the whole tree at once (used when a probe restarts the server).
func (p *process) kill() {
	p.stdin.Close()
	p.tree.Signal(syscall.SIGKILL)
	<-p.done
	p.left = p.tree.End(0)
	p.swept = p.tree.Swept()
}

// leftNote says what stop found: processes the server left running that were ended,
// and any process that could not be ended (or, where descendants cannot be followed,
// that some may be left). It is "" when there is nothing to say.
func (p *process) leftNote() string {
	var notes []string
	if len(p.swept) > 0 {
		notes = append(notes, processNotePrefix+" and ended with it: "+strings.Join(p.swept, ", "))
	}
	if len(p.left) > 0 {
		notes = append(notes, fmt.Sprintf("%s and not ended by SIGKILL: %s; check with ps and end it yourself (kill -9 %s)", processNotePrefix, proctree.Describe(p.left), pidArgs(p.left)))
	}
	if e := p.tree.Escaped(); e != "" {
		notes = append(notes, processNotePrefix+", maybe: "+e)
	}
	return strings.Join(notes, "\n")
}

const processNotePrefix = "left running by the server"

// IsProcessNote reports whether e is the note Close emits about processes the server
// left running (ended with it, or out of reach), which a one-shot command should
// print.
func IsProcessNote(e Event) bool {
	return e.Kind == KindSynthetic && strings.HasPrefix(e.Text, processNotePrefix)
}

func pidArgs(pids []int) string {
	s := make([]string, len(pids))
	for i, p := range pids {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, " ")
}

// errUnreadUnknown: this system cannot say how much of a pipe its reader has not read.
// Linux answers FIONREAD on a pipe's write end with the bytes in the pipe; the BSDs and
// macOS keep a buffer per direction, so the same ioctl on the write end counts the
// other direction's (always empty) buffer, which would pass for "all read".
var errUnreadUnknown = errors.New("this system does not count a pipe's unread bytes")

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
