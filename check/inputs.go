package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/plural"
)

// outcome is how a server answered one call.
type outcome struct {
	kind   string // isError, rpc (a JSON-RPC error), accepted, ended (the server died or hung)
	code   int64  // rpc
	text   string
	res    *client.CallResult
	stderr []string // ended: the server's last stderr lines
}

func (o outcome) String() string {
	switch o.kind {
	case "isError":
		return "refused with isError"
	case "rpc":
		return fmt.Sprintf("refused with JSON-RPC error %d", o.code)
	case "accepted":
		return "accepted"
	}
	return o.text
}

// call sends one tools/call, bounded by CallTimeout. A call that ends the server (it
// exits, closes its output, or does not answer) gets a new session for what follows.
func (r *runner) call(ctx context.Context, tool string, args json.RawMessage) outcome {
	if r.conn == nil {
		return outcome{kind: "ended", text: "not sent: the server could not be restarted"}
	}
	cctx, cancel := context.WithTimeout(ctx, r.o.CallTimeout)
	res, err := r.conn.Session.Call(cctx, tool, args, client.CallOptions{})
	cancel()
	var rpc *client.RPCError
	switch {
	case err == nil && res.IsError:
		return outcome{kind: "isError", res: res}
	case err == nil:
		return outcome{kind: "accepted", res: res}
	case errors.As(err, &rpc):
		return outcome{kind: "rpc", code: rpc.Code, text: rpc.Message}
	}
	o := outcome{kind: "ended", text: "the server ended: " + firstLine(err.Error())}
	var te *client.TimeoutError
	var se *client.ServerError
	switch {
	case errors.As(err, &te) || errors.Is(err, context.DeadlineExceeded):
		o.text = fmt.Sprintf("no answer within %s", r.o.CallTimeout)
	case errors.As(err, &se):
		o.text = "the server ended: " + se.Reason
		if se.Exit != nil {
			o.text += " (" + se.Exit.String() + ")"
		}
		o.stderr = head("stderr", se.Stderr)
	}
	if ctx.Err() != nil {
		return o
	}
	if rerr := r.reconnect(ctx); rerr != nil {
		o.text += "; it could not be started again: " + firstLine(rerr.Error())
		return o
	}
	o.text += "; started again, the run goes on"
	return o
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// inputs sends each callable tool its negative cases: a well-behaved server refuses
// every one (isError, or -32602) and keeps running.
func (r *runner) inputs(ctx context.Context) {
	if len(r.tools) == 0 {
		r.add(StepInputs, "tools", Skip, "the server lists no tools")
		return
	}
	var notCalled, nothing []string
	for _, t := range r.tools {
		if !r.callable(t) {
			notCalled = append(notCalled, t.Name)
			continue
		}
		if !r.inputsOf(ctx, t) {
			nothing = append(nothing, t.Name)
		}
	}
	if len(nothing) > 0 {
		r.add(StepInputs, "nothing-to-break", Skip,
			plural.Count(len(nothing), "tool")+" whose input schema has no required, typed or enum field", strings.Join(nothing, ", "))
	}
	if len(notCalled) > 0 {
		r.add(StepInputs, "not-read-only", Skip,
			plural.Count(len(notCalled), "tool")+" not marked read-only (readOnlyHint), not called; name one with --include TOOL, or use --all-tools",
			strings.Join(notCalled, ", "))
	}
}

// inputsOf checks one tool; false when its schema gives nothing to break.
func (r *runner) inputsOf(ctx context.Context, t client.Tool) bool {
	name := t.Name
	if !r.plainCall(t) {
		r.add(StepInputs, name, Skip, "execution.taskSupport is required: a call that is not a task is refused (-32601) before its arguments are read, and check runs no tasks")
		return true
	}
	cases, _, _, err := Cases(t.InputSchema)
	if err != nil {
		r.add(StepInputs, name, Warn, "no cases: the input schema cannot be read: "+err.Error())
		return true
	}
	if len(cases) == 0 {
		return false
	}
	if r.o.DryRun {
		var d []string
		for _, c := range cases {
			d = append(d, fmt.Sprintf("would send tools/call %s %s  (%s)", name, c.Args, c.What))
		}
		r.add(StepInputs, name, Skip, "--dry-run: "+plural.Count(len(cases), "case")+" not sent", d...)
		return true
	}
	var details []string
	var accepted, ended, other, isErr, invalid int
	for _, c := range cases {
		o := r.call(ctx, name, c.Args)
		switch {
		case o.kind == "isError":
			isErr++
		case o.kind == "rpc" && o.code == -32602:
			invalid++
		case o.kind == "rpc":
			other++
		case o.kind == "accepted":
			accepted++
		default:
			ended++
		}
		details = append(details, fmt.Sprintf("%s: %s  %s", c.What, o, c.Args))
		for _, l := range o.stderr {
			details = append(details, "  "+l)
		}
	}
	switch {
	case ended > 0:
		r.add(StepInputs, name, Fail, fmt.Sprintf("the server ended on %d of %s: a bad argument must be refused, not crash the server", ended, plural.Count(len(cases), "case")), details...)
	case accepted > 0:
		r.add(StepInputs, name, Fail, fmt.Sprintf("%d of %s accepted: the server does not check its input schema", accepted, plural.Count(len(cases), "invalid case")), details...)
	case other > 0:
		r.add(StepInputs, name, Warn, fmt.Sprintf("%d of %s refused with a JSON-RPC error other than -32602 (invalid params)", other, plural.Count(len(cases), "case")), details...)
	default:
		r.add(StepInputs, name, Pass, fmt.Sprintf("%s refused (%d isError, %d -32602)", plural.Count(len(cases), "case"), isErr, invalid), details...)
	}
	return true
}
