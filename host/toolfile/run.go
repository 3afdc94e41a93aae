package toolfile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// maxEnvArgs bounds MCPSCOPE_ARGS: Linux refuses a single environment string over
// 128 KiB, so larger arguments reach the command only on stdin.
const maxEnvArgs = 100 << 10

// waitDelay is how long a killed command's pipes may stay open (held by a grandchild
// that escaped the process group) before the host stops reading them.
const waitDelay = 2 * time.Second

var errOverflow = errors.New("output cap exceeded")

// Outcome is what a call produced besides its result, for the host's log.
type Outcome struct {
	Stderr   string // the command's stderr (capped)
	ExitCode int    // -1 when the command did not run to an exit
	Duration time.Duration
}

// Call runs the tool with args (a JSON object or nil) and returns its result. The
// command runs without a shell, in its own process group, with the call's arguments on
// stdin and in MCPSCOPE_ARGS, the host's environment and nothing else. Failures of the
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

	cmd := exec.CommandContext(runCtx, t.Run[0], t.Run[1:]...)
	cmd.Dir = t.Dir
	cmd.Env = os.Environ()
	if len(args) <= maxEnvArgs {
		cmd.Env = append(cmd.Env, "MCPSCOPE_ARGS="+string(args))
	}
	cmd.Env = append(cmd.Env, "MCPSCOPE_TOOL="+t.Name)
	cmd.Stdin = bytes.NewReader(args)
	stdout := &capBuffer{limit: t.MaxOutput, onOverflow: func() { cancelRun(errOverflow) }}
	stderr := &capBuffer{limit: t.MaxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return killProcessGroup(cmd) }
	cmd.WaitDelay = waitDelay

	start := time.Now()
	err := cmd.Run()
	out.Duration = time.Since(start)
	out.Stderr = stderr.String()
	if cmd.ProcessState != nil {
		out.ExitCode = cmd.ProcessState.ExitCode()
	}

	switch {
	case ctx.Err() != nil:
		return nil, out, ctx.Err()
	case errors.Is(context.Cause(runCtx), errOverflow):
		return errorResult(fmt.Sprintf("tool %q wrote more than %d bytes to stdout (maxOutputBytes), so its process group was killed", t.Name, t.MaxOutput)), out, nil
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		return errorResult(withStderr(fmt.Sprintf("tool %q timed out after %v (timeoutMs), so its process group was killed", t.Name, t.Timeout), out.Stderr)), out, nil
	case err != nil && cmd.ProcessState == nil:
		return errorResult(fmt.Sprintf("cannot run %s: %v", argvString(t.Run), err)), out, nil
	case err != nil:
		msg := fmt.Sprintf("tool %q failed: %v", t.Name, err)
		if out.Stderr == "" && stdout.Len() > 0 {
			return errorResult(msg + "\nstdout:\n" + stdout.String()), out, nil
		}
		return errorResult(withStderr(msg, out.Stderr)), out, nil
	}
	return resultFromStdout(stdout.Bytes()), out, nil
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
