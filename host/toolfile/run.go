package toolfile

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// maxEnvArgs bounds MCPSCOPE_ARGS: Linux refuses a single environment string over
// 128 KiB, so larger arguments reach the command only on stdin.
const maxEnvArgs = 100 << 10

// pipeDelay is how long a finished command's pipes may stay open (held by a process
// outside its tree) before the host stops reading them.
const pipeDelay = 2 * time.Second

var errOverflow = errors.New("output cap exceeded")

// Outcome is what a call produced besides its result, for the host's log.
type Outcome struct {
	Stderr   string // the command's stderr (capped)
	ExitCode int    // -1 when the command did not run to an exit
	Duration time.Duration
}

// Call runs the tool with args (a JSON object or nil) and returns its result. The
// command runs without a shell, with the call's arguments on stdin and in
// MCPSCOPE_ARGS, the host's environment and nothing else. It runs as the root of a
// process tree of its own (see internal/proctree): when it exits, or the call ends
// early, everything it started is ended too, whether in its process group or not, and
// the result says what was left running. Failures of the
// tool (exit status, timeout, output cap, a missing program) are error results; the
// error return is only for a cancelled ctx.
func (t *Tool) Call(ctx context.Context, args json.RawMessage) (*mcp.CallToolResult, Outcome, error) {
	out := Outcome{ExitCode: -1}
	if len(t.Run) == 0 {
		return errorResult(fmt.Sprintf(`tool %q has no "run" in %s, so it can be listed but not called; add "run": ["program", "arg", …] to its entry`, t.Name, t.file)), out, nil
	}
	if len(bytes.TrimSpace(args)) == 0 || isNull(args) {
		args = json.RawMessage(`{}`)
	}
	args = compact(args)
	if t.input != nil {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
		if err != nil {
			return errorResult(fmt.Sprintf("arguments are not valid JSON: %v", err)), out, nil
		}
		if err := t.input.Validate(inst); err != nil {
			return errorResult(fmt.Sprintf("arguments do not match the inputSchema of %q, so the command was not run:\n%v", t.Name, err)), out, nil
		}
	}

	runCtx, cancelRun := context.WithCancelCause(ctx)
	defer cancelRun(nil)
	runCtx, cancelTimeout := context.WithTimeoutCause(runCtx, t.Timeout, context.DeadlineExceeded)
	defer cancelTimeout()

	env := os.Environ()
	if len(args) <= maxEnvArgs {
		env = append(env, "MCPSCOPE_ARGS="+string(args))
	}
	env = append(env, "MCPSCOPE_TOOL="+t.Name)
	stdout := &capBuffer{limit: t.MaxOutput, onOverflow: func() { cancelRun(errOverflow) }}
	stderr := &capBuffer{limit: t.MaxOutput}

	start := time.Now()
	run, err := startRun(t.Run, env, t.Dir, args, stdout, stderr)
	if err != nil {
		return errorResult(fmt.Sprintf("cannot run %s: %v", argvString(t.Run), err)), out, nil
	}
	select {
	case <-run.tree.Exited():
	case <-runCtx.Done():
		// Timed out, over the output cap, or cancelled: the whole tree goes at once.
		run.tree.Signal(syscall.SIGKILL)
		<-run.tree.Exited()
	}
	// The command has exited: whatever it left running (a "sleep 1000 &") ends with it,
	// so that nothing outlives the call and nothing holds its output open.
	left := run.finish()
	out.Duration = time.Since(start)
	out.Stderr = stderr.String()
	status := run.tree.Status()
	out.ExitCode = status.Code
	note := run.note(t.Name, left)

	switch {
	case ctx.Err() != nil:
		return nil, out, ctx.Err()
	case errors.Is(context.Cause(runCtx), errOverflow):
		return errorResult(withNote(fmt.Sprintf("tool %q wrote more than %d bytes to stdout (maxOutputBytes), so its process group was killed", t.Name, t.MaxOutput), note)), out, nil
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		return errorResult(withNote(withStderr(fmt.Sprintf("tool %q timed out after %v (timeoutMs), so its process group was killed", t.Name, t.Timeout), out.Stderr), note)), out, nil
	case status.Code != 0 || status.Signal != 0:
		msg := fmt.Sprintf("tool %q failed: %v", t.Name, status)
		if out.Stderr == "" && stdout.Len() > 0 {
			return errorResult(withNote(msg+"\nstdout:\n"+stdout.String(), note)), out, nil
		}
		return errorResult(withNote(withStderr(msg, out.Stderr), note)), out, nil
	}
	res := resultFromStdout(stdout.Bytes())
	if note != "" {
		res.Content = append(res.Content, &mcp.TextContent{Text: note})
	}
	return res, out, nil
}

// run is one command of a call, its process tree and the goroutines that feed its
// stdin and collect its output.
type run struct {
	tree   *proctree.Tree
	outR   *os.File
	errR   *os.File
	copied sync.WaitGroup
}

func startRun(argv, env []string, dir string, stdin []byte, stdout, stderr io.Writer) (*run, error) {
	path := argv[0]
	if !strings.Contains(path, "/") {
		lp, err := exec.LookPath(path)
		if err != nil {
			return nil, err
		}
		path = lp
	}
	var files [6]*os.File // in, out, err: read end, write end
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
	inR, inW, outR, outW, errR, errW := files[0], files[1], files[2], files[3], files[4], files[5]
	tree, err := proctree.Start(proctree.Spec{Path: path, Argv: argv, Env: env, Dir: dir, Stdin: inR, Stdout: outW, Stderr: errW})
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	r := &run{tree: tree, outR: outR, errR: errR}
	go func() {
		// A command that does not read its stdin gets EPIPE here once it is gone.
		inW.Write(stdin)
		inW.Close()
	}()
	r.copied.Add(2)
	go func() { defer r.copied.Done(); io.Copy(stdout, outR) }()
	go func() { defer r.copied.Done(); io.Copy(stderr, errR) }()
	return r, nil
}

// finish ends what the command left running and waits for its output to be read. It
// returns the processes that could not be ended.
func (r *run) finish() (left []int) {
	left = r.tree.End(0)
	done := make(chan struct{})
	go func() { r.copied.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(pipeDelay):
		// Something outside the tree holds the pipes (it was handed them, or could
		// not be ended): stop reading.
		r.outR.Close()
		r.errR.Close()
		<-done
	}
	r.outR.Close()
	r.errR.Close()
	return left
}

// note says what the command left running when it exited, "" when nothing.
func (r *run) note(tool string, left []int) string {
	var notes []string
	if swept := r.tree.Swept(); len(swept) > 0 {
		notes = append(notes, fmt.Sprintf("note: the command of tool %q left %s running when it exited; ended with the call", tool, strings.Join(swept, ", ")))
	}
	if len(left) > 0 {
		notes = append(notes, fmt.Sprintf("warning: %s still running after SIGKILL; the host cannot end it", proctree.Describe(left)))
	}
	if e := r.tree.Escaped(); e != "" {
		notes = append(notes, "note: "+e)
	}
	return strings.Join(notes, "\n")
}

func withNote(msg, note string) string {
	if note == "" {
		return msg
	}
	return msg + "\n" + note
}

// resultFromStdout turns a successful command's stdout into a result: a JSON object
// with a "content" array is the result as given; anything else is one text block.
func resultFromStdout(stdout []byte) *mcp.CallToolResult {
	trimmed := bytes.TrimSpace(stdout)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var probe struct {
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(trimmed, &probe) == nil && len(probe.Content) > 0 && bytes.TrimSpace(probe.Content)[0] == '[' {
			var res mcp.CallToolResult
			if err := json.Unmarshal(trimmed, &res); err != nil {
				return errorResult(fmt.Sprintf("stdout is a JSON object with a \"content\" array but not a valid tool result: %v\nstdout:\n%s", err, stdout))
			}
			if res.Content == nil {
				res.Content = []mcp.Content{}
			}
			return &res
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(stdout)}}}
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

func withStderr(msg, stderr string) string {
	if strings.TrimSpace(stderr) == "" {
		return msg
	}
	return msg + "\nstderr:\n" + stderr
}

func argvString(argv []string) string {
	b, _ := json.Marshal(argv)
	return string(b)
}

// capBuffer keeps the first limit bytes written to it and discards the rest, calling
// onOverflow once when the limit is first passed. It never fails a write, so the
// command is never blocked on a full pipe.
type capBuffer struct {
	mu         sync.Mutex
	buf        bytes.Buffer
	limit      int64
	over       bool
	onOverflow func()
}

func (c *capBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.limit - int64(c.buf.Len())
	if int64(len(p)) <= room {
		c.buf.Write(p)
		return len(p), nil
	}
	if room > 0 {
		c.buf.Write(p[:room])
	}
	if !c.over {
		c.over = true
		if c.onOverflow != nil {
			c.onOverflow()
		}
	}
	return len(p), nil
}

func (c *capBuffer) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Bytes()
}

func (c *capBuffer) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Len()
}

func (c *capBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.buf.String()
	if c.over {
		s += fmt.Sprintf("\n[truncated at %d bytes]", c.limit)
	}
	return s
}
