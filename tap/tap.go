// Package tap runs an MCP server between a host (Claude, Cursor, any client) and
// itself: the host runs `mcpscope tap -- CMD ARGS...` in place of the server command,
// and the tap starts the server, forwards every byte both ways unchanged, passes the
// server's stderr on, and records the session as an ordinary mcpscope recording whose
// client is the host.
//
// The one rule above all: the tap never breaks the host. Bytes are forwarded as they
// are read, before anything looks at them; what the recording makes of them (framing,
// JSON, redaction, the disk) happens on a copy, after, and a recording that fails is
// said once on stderr and dropped while the forwarding goes on. The tap writes nothing
// of its own to the host's stdout.
package tap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpscope/mcpscope/internal/proctree"
	"github.com/mcpscope/mcpscope/record"
)

// Options configure a tap.
type Options struct {
	// Argv is the server command.
	Argv []string
	// Name names the tap (its live stream, its list entry); the command's base name
	// when empty.
	Name string
	// The host's side: what the host writes (the server's stdin) and where the
	// server's stdout goes.
	Stdin  io.Reader
	Stdout io.Writer
	// Stderr gets the tap's own messages ("mcpscope tap: ..."); ServerStderr the
	// server's stderr as it comes (Stderr when nil).
	Stderr, ServerStderr io.Writer
	// Record is where the recording goes (a new file; the tap writes its header
	// once the host's first message names the host).
	Record io.Writer
	// Live, when set, gets the recording's bytes too (whole lines, header first): the
	// live stream of `mcpscope attach`. A Live that fails is dropped (said once).
	Live io.Writer
	// Redact hides secrets in the recording (the server's argv secrets are added).
	Redact *record.Redactor
	// Grace is what the server gets to exit once the host closed its stdin (or the
	// tap was told to stop), before SIGTERM and again before SIGKILL.
	Grace time.Duration
	// MaxMessage is the largest message recorded whole; a larger one is forwarded all
	// the same and recorded as a note of its size. Zero means DefaultMaxMessage.
	MaxMessage int64
}

// DefaultMaxMessage is the largest message the recording holds whole by default (as
// the client's --max-frame default).
const DefaultMaxMessage = 256 << 20

// DefaultGrace is the server's time to exit after its stdin closed.
const DefaultGrace = 2 * time.Second

// Result says how the server ended.
type Result struct {
	Code   int    // the server's exit code; -1 when a signal ended it
	Signal string // the signal that ended it ("SIGKILL"), or ""
	// Stopped: the tap ended the server (the context was cancelled), it did not exit
	// on its own or after its stdin closed.
	Stopped bool
}

// ExitCode is the code the tap exits with: the server's, or 128+N for signal N (as a
// shell reports it).
func (r Result) ExitCode() int {
	if r.Signal == "" {
		return r.Code
	}
	for n := syscall.Signal(1); n < 32; n++ {
		if proctree.SignalName(n) == r.Signal {
			return 128 + int(n)
		}
	}
	return 1
}

// StartError says the server command could not be started.
type StartError struct {
	Argv []string
	Err  error
}

func (e *StartError) Error() string {
	return fmt.Sprintf("cannot start %q: %s", e.Argv[0], proctree.Why(e.Err))
}

func (e *StartError) Unwrap() error { return e.Err }

// Run starts the server and forwards until the server has exited (on its own, after
// the host closed its stdin, or ended by the tap when ctx is cancelled); then nothing
// of the server's process tree is left.
func Run(ctx context.Context, o Options) (Result, error) {
	if len(o.Argv) == 0 {
		return Result{}, errors.New("no server command given")
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.MaxMessage <= 0 {
		o.MaxMessage = DefaultMaxMessage
	}
	if o.Redact == nil {
		o.Redact = &record.Redactor{}
	}
	var sayOnce sync.Map
	say := func(msg string) {
		// Each kind of trouble once: a host's stderr is often a log file.
		if _, dup := sayOnce.LoadOrStore(strings.SplitN(msg, ":", 2)[0], true); !dup {
			fmt.Fprintln(o.Stderr, "mcpscope tap: "+msg)
		}
	}
	start := time.Now()
	p, err := startServer(o.Argv)
	if err != nil {
		return Result{}, err
	}
	var rec *recorder
	if o.Record != nil || o.Live != nil {
		h := record.Header{Target: record.Target{Transport: "stdio", Argv: record.StoredArgv(o.Argv)}, Tapped: true}
		rec = newRecorder(o.Record, o.Live, h, o.Redact, start, say)
	}
	f := &forwarder{rec: rec, max: o.MaxMessage, say: say}

	downDone := make(chan struct{})
	hostGone := make(chan struct{})
	go func() { // server -> host
		defer close(downDone)
		if !f.pump(p.stdout, o.Stdout, record.Recv) {
			// The host's stdout is gone (the host is): the server's stdin closes,
			// as when the host closes it.
			close(hostGone)
		}
	}()
	errDone := make(chan struct{})
	go func() {
		defer close(errDone)
		dst := o.ServerStderr
		if dst == nil {
			dst = o.Stderr
		}
		f.stderr(p.stderr, dst)
	}()
	hostClosed := make(chan struct{})
	go func() { // host -> server
		f.pump(o.Stdin, p.stdin, record.Send)
		// The host closed its stdin (or the server's stdin is gone): the server's
		// stdin closes too, the graceful end the MCP spec describes.
		p.stdin.Close()
		close(hostClosed)
	}()

	var res Result
	select {
	case <-p.tree.Exited():
	case <-hostGone:
		p.stdin.Close()
		stopAfterEOF(p, o.Grace)
	case <-hostClosed:
		stopAfterEOF(p, o.Grace)
	case <-ctx.Done():
		// The host (or a user) told the tap to stop: the server is told the same.
		res.Stopped = true
		p.stdin.Close()
		p.tree.Signal(syscall.SIGTERM)
		if !waitExit(p, o.Grace) {
			p.tree.Signal(syscall.SIGKILL)
			<-p.tree.Exited()
		}
	}
	// What the server wrote before it exited reaches the host; a descendant that
	// still holds the pipes is ended with the tree below, which closes them.
	drain := time.NewTimer(o.Grace)
	select {
	case <-downDone:
	case <-drain.C:
	}
	drain.Stop()
	left := p.tree.End(o.Grace)
	if len(left) > 0 {
		// A process SIGKILL did not end may hold the pipes: stop reading them.
		p.stdout.Close()
		p.stderr.Close()
	}
	<-downDone
	<-errDone
	p.stdout.Close()
	p.stderr.Close()

	st := p.tree.Status()
	res.Code = st.Code
	if st.Signal != 0 {
		res.Code, res.Signal = -1, proctree.SignalName(st.Signal)
	}
	if len(left) > 0 {
		say(fmt.Sprintf("left running by the server and not ended by SIGKILL: %s", proctree.Describe(left)))
	}
	if rec != nil {
		text := "server exited normally (code 0)"
		switch {
		case res.Signal != "":
			text = "server killed by " + res.Signal
		case res.Code != 0:
			text = fmt.Sprintf("server exited with code %d", res.Code)
		}
		rec.closed(time.Now(), res.Code, res.Signal, text)
	}
	return res, nil
}

// server is the started server: the tap's ends of its pipes and its tree.
type server struct {
	tree                  *proctree.Tree
	stdin, stdout, stderr *os.File
}

// startServer starts argv under proctree's supervision, as client/wire starts every
// server mcpscope runs: the whole tree is ended when the tap ends it, and also when
// the tap itself is killed (SIGKILL included), since the supervisor ends the tree
// when its pipe to the tap closes.
func startServer(argv []string) (*server, error) {
	path := argv[0]
	if !strings.Contains(path, "/") {
		lp, err := exec.LookPath(path)
		if err != nil {
			return nil, &StartError{Argv: argv, Err: err}
		}
		path = lp
	}
	var files [6]*os.File // inR, inW, outR, outW, errR, errW
	for i := 0; i < 6; i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			for _, f := range files[:i] {
				f.Close()
			}
			return nil, err
		}
		files[i], files[i+1] = r, w
	}
	tree, err := proctree.Start(proctree.Spec{
		Path: path, Argv: argv, Env: os.Environ(),
		Stdin: files[0], Stdout: files[3], Stderr: files[5], Grace: DefaultGrace,
	})
	files[0].Close()
	files[3].Close()
	files[5].Close()
	if err != nil {
		files[1].Close()
		files[2].Close()
		files[4].Close()
		var se *proctree.StartError
		if errors.As(err, &se) {
			err = &os.PathError{Op: "fork/exec", Path: se.Path, Err: se.Err}
		}
		return nil, &StartError{Argv: argv, Err: err}
	}
	return &server{tree: tree, stdin: files[1], stdout: files[2], stderr: files[4]}, nil
}

// stopAfterEOF gives the server grace to exit after its stdin closed, then
// SIGTERM, grace, SIGKILL.
func stopAfterEOF(p *server, grace time.Duration) {
	if !waitExit(p, grace) {
		p.tree.Signal(syscall.SIGTERM)
		if !waitExit(p, grace) {
			p.tree.Signal(syscall.SIGKILL)
			<-p.tree.Exited()
		}
	}
}

func waitExit(p *server, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.tree.Exited():
		return true
	case <-t.C:
		return false
	}
}

// forwarder copies the streams and hands the recorder a copy.
type forwarder struct {
	rec *recorder
	max int64
	say func(string)
}

// pump copies src to dst as it reads, chunk by chunk (never waiting for a whole
// message: a host's round trip gets no latency from the tap's framing), then feeds
// the chunk to the direction's splitter for the recording. It returns when src ends
// (true) or dst cannot be written (false).
func (f *forwarder) pump(src io.Reader, dst io.Writer, dir string) bool {
	var sp *splitter
	if f.rec != nil {
		sp = newSplitter(f.max, func(u unit) { f.rec.message(time.Now(), dir, u) })
	}
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if sp != nil {
				// Before it is forwarded, in both directions: whatever the other
				// side does in answer is then queued after it (see recorder.q),
				// a host's answer to a server's request as a server's answer to
				// the host's. Only queued here, not written.
				sp.write(buf[:n])
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				// The server's stdin fails when the server has exited, which Run
				// reports; the host's stdout, when the host is gone.
				if dir == record.Recv {
					f.say("the host's stdout: " + werr.Error() + "; stopping the server")
				}
				return false
			}
		}
		if err != nil {
			return true
		}
	}
}

// stderr passes the server's stderr on to the host's as it comes, and records it a
// line at a time (a line is cut at noiseKeep bytes in the recording, with its size).
func (f *forwarder) stderr(src io.Reader, dst io.Writer) {
	buf := make([]byte, 32<<10)
	var line []byte
	size := 0
	flush := func() {
		if f.rec != nil && (size > 0 || len(line) > 0) {
			f.rec.stderr(time.Now(), trimCR(line), size)
		}
		line, size = line[:0], 0
	}
	dstOK := true
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if dstOK {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					dstOK = false // the host's stderr is gone: the recording goes on
				}
			}
			p := buf[:n]
			for len(p) > 0 {
				i := indexNL(p)
				end := len(p)
				if i >= 0 {
					end = i
				}
				size += end
				if room := noiseKeep - len(line); room > 0 {
					line = append(line, p[:min(end, room)]...)
				}
				if i < 0 {
					break
				}
				flush()
				p = p[i+1:]
			}
		}
		if err != nil {
			if len(line) > 0 {
				flush()
			}
			return
		}
	}
}

func indexNL(p []byte) int {
	for i, c := range p {
		if c == '\n' {
			return i
		}
	}
	return -1
}

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}

// EnvSecrets are the values of the environment to mask in a tap's recording: the
// host's config gives its server secrets through the environment (GITHUB_TOKEN), and
// the tap has the whole of it. The shell's own variables that the secret-name
// patterns would mistake for secrets (PWD, the session bus address) are known to
// internal/redact, so no recording masks them.
func EnvSecrets(environ []string) []string {
	_, secrets := record.EnvSecrets(environ)
	return secrets
}
