// Package check is `mcpscope check`: a server's health in one ordered report. Four
// steps, each a list of checks that pass, warn, fail or are skipped (with why):
// reach (the endpoint or the process), speak (handshake, auth metadata, every list
// to its end, 2026-07-28's order and caching), hygiene (what an HTTP endpoint must
// refuse, and how errors are reported) and inputs (negative cases built from each
// tool's input schema). A step that a failure makes meaningless is skipped, saying
// which failure.
//
// The one rule that is never relaxed: no tool is called unless it is read-only
// (readOnlyHint true) or the user named it (Include, AllTools). Calls that cannot
// reach a tool (an unknown name) are the only others sent.
package check

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/client"
)

// Status is a check's verdict.
type Status string

const (
	Pass Status = "pass"
	Warn Status = "warn"
	Fail Status = "fail"
	Skip Status = "skipped"
)

// The steps, in the report's order.
const (
	StepReach   = "reach"
	StepSpeak   = "speak"
	StepHygiene = "hygiene"
	StepInputs  = "inputs"
)

// Result is one check. Every string in it may hold what a server sent: a writer
// makes it safe for a terminal (termsafe) before showing it.
type Result struct {
	Step    string   `json:"step"`
	ID      string   `json:"id"` // step/name, e.g. hygiene/origin, inputs/echo
	Status  Status   `json:"status"`
	Why     string   `json:"why"`
	Details []string `json:"details,omitempty"`
}

// Report is one target's checks, in order.
type Report struct {
	Name   string   `json:"name"`
	Target string   `json:"target"`
	Checks []Result `json:"checks"`
}

// Count is how many checks have status s.
func (r Report) Count(s Status) int {
	n := 0
	for _, c := range r.Checks {
		if c.Status == s {
			n++
		}
	}
	return n
}

// Fails reports whether the report has a check at failOn or worse (Fail, or Warn
// for --fail-on warn).
func (r Report) Fails(failOn Status) bool {
	return r.Count(Fail) > 0 || failOn == Warn && r.Count(Warn) > 0
}

// Conn is one session on the server, with what the process said while it started.
type Conn struct {
	Session *client.Session
	// Noise is what the server printed on stdout that was not a message, and Stderr
	// its stderr lines, up to the end of the handshake (stdio): the last of them, of
	// NoiseTotal and StderrTotal lines in all.
	Noise, Stderr           []string
	NoiseTotal, StderrTotal int
	Close                   func()
}

// Options is what to check and how.
type Options struct {
	Name   string
	Desc   string // what the target is, for the report ("" : the target itself)
	Target client.Target
	// Connect opens a new session (a new process for a command): the first, and one
	// after each case that ended the server.
	Connect func(ctx context.Context) (*Conn, error)
	// HTTP sends hygiene's hand-made requests and the metadata requests; nil: one
	// with a 30 s timeout.
	HTTP *http.Client
	// Include names tools to give negative cases although they are not read-only;
	// AllTools gives them to every tool.
	Include  []string
	AllTools bool
	// DryRun sends no tools/call: the checks that would are skipped, listing what
	// they would send.
	DryRun bool
	// CallTimeout bounds each call a check sends (default 30 s): a server that hangs
	// on a case fails it and gets a new session.
	CallTimeout time.Duration
}

// runner holds one target's run.
type runner struct {
	o      Options
	out    []Result
	conn   *Conn
	info   client.Info
	tools  []client.Tool
	failed string // the check whose failure stops the dependent steps
	// needsLogin: the connection was refused for want of credentials (HTTP 401).
	needsLogin  bool
	probeStatus int // reach/http's answer to server/discover
}

// A why is one line: a reason of several (an error that says what to do on its next
// lines, a server's stderr) keeps its first line as the why and the rest as details,
// ahead of the others, so that a log shows each line as a line.
func (r *runner) add(step, name string, st Status, why string, details ...string) {
	if first, rest, ok := strings.Cut(why, "\n"); ok {
		var more []string
		for _, l := range strings.Split(rest, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				more = append(more, l)
			}
		}
		why, details = first, append(more, details...)
	}
	r.out = append(r.out, Result{Step: step, ID: step + "/" + name, Status: st, Why: why, Details: details})
}

// reason is an error as a check's why and details: the message's first line, then a
// server's stderr as the client kept it (its first lines, a count of those dropped,
// its last ones: client.ServerError), or else the message's other lines.
func reason(err error) (why string, details []string) {
	why, rest, _ := strings.Cut(err.Error(), "\n")
	var se *client.ServerError
	if errors.As(err, &se) {
		for _, l := range se.Stderr {
			details = append(details, "stderr: "+l)
		}
		return why, details
	}
	for _, l := range strings.Split(rest, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			details = append(details, l)
		}
	}
	return why, details
}

// Run checks one target. It never returns an error: what went wrong is a check.
func Run(ctx context.Context, o Options) Report {
	if o.HTTP == nil {
		o.HTTP = &http.Client{Timeout: 30 * time.Second}
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 30 * time.Second
	}
	r := &runner{o: o}
	defer func() {
		if r.conn != nil {
			r.conn.Close()
		}
	}()
	r.reach(ctx)
	if r.failed == "" {
		r.speak(ctx)
	} else {
		r.skipStep(StepSpeak, speakChecks)
		if r.needsLogin {
			// auth does not depend on a session: it says what a login would find.
			r.out = slices.DeleteFunc(r.out, func(c Result) bool { return c.ID == StepSpeak+"/auth" })
			r.auth(ctx)
			r.out = moveAuth(r.out)
		}
	}
	if r.failed == "" {
		r.hygiene(ctx)
		r.inputs(ctx)
	} else {
		r.skipStep(StepHygiene, hygieneChecks)
		r.add(StepInputs, "tools", Skip, "not run: "+r.failed+" failed")
	}
	desc := o.Desc
	if desc == "" {
		desc = o.Target.String()
	}
	return Report{Name: o.Name, Target: desc, Checks: r.out}
}

// moveAuth puts speak/auth, added last, back in its place after speak/handshake.
func moveAuth(out []Result) []Result {
	a := out[len(out)-1]
	out = out[:len(out)-1]
	i := slices.IndexFunc(out, func(c Result) bool { return c.ID == StepSpeak+"/handshake" })
	return slices.Insert(out, i+1, a)
}

// skipStep reports every check of a step as skipped after the failure that stops it.
func (r *runner) skipStep(step string, names []string) {
	for _, n := range names {
		r.add(step, n, Skip, "not run: "+r.failed+" failed")
	}
}

var (
	speakChecks   = []string{"handshake", "auth", "tools", "resources", "templates", "prompts", "order", "cache"}
	hygieneChecks = []string{"origin", "host", "content-type", "headers", "session", "unknown-tool", "missing-resource", "tool-error", "output-schema"}
)

// callable reports whether a check may call tool t: read-only, or named by the user.
func (r *runner) callable(t client.Tool) bool {
	return t.Annotations.ReadOnly.Value || r.o.AllTools || slices.Contains(r.o.Include, t.Name)
}

// plainCall reports whether t answers a call that is not a task: a 2025-11-25 tool
// whose execution.taskSupport is "required" refuses one with -32601 whatever its
// arguments. (2026-07-28 has no core tasks: such a call is answered.)
func (r *runner) plainCall(t client.Tool) bool {
	return r.info.Era == client.EraModern || t.TaskSupport() != "required"
}

// reconnect replaces a session the server ended (or that hangs) with a new one.
func (r *runner) reconnect(ctx context.Context) error {
	if r.conn != nil {
		r.conn.Close()
		r.conn = nil
	}
	c, err := r.o.Connect(ctx)
	if err != nil {
		return err
	}
	r.conn = c
	return nil
}
