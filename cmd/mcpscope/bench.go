package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/mcpscope/mcpscope/bench"
	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/inspect"
	"github.com/mcpscope/mcpscope/internal/termsafe"
	"github.com/mcpscope/mcpscope/workbench"
)

// benchArgs are bench's own flags.
type benchArgs struct {
	argsJSON   string
	conc       int
	count      int
	duration   time.Duration
	rate       float64
	warmup     string
	processes  int
	allowWrite bool
	failOn     multiFlag
	pid        int
}

// runBench is `mcpscope bench TOOL [key=value ... | --args JSON] [flags] TARGET`.
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var c common
	c.register(fs, "text")
	var a benchArgs
	fs.StringVar(&a.argsJSON, "args", "", "arguments as a JSON object")
	fs.IntVar(&a.conc, "c", 1, "calls in flight at once (stdio: on one process, or spread over --processes; HTTP: each its own client and session)")
	fs.IntVar(&a.count, "n", 0, "calls to measure (default 200 when --duration is not given)")
	fs.DurationVar(&a.duration, "duration", 0, "measure for this long instead of -n calls")
	fs.Float64Var(&a.rate, "rate", 0, "open loop: start this many calls a second whatever the server does (latency counts from the scheduled time)")
	fs.StringVar(&a.warmup, "warmup", "", "calls (N) or a time (D) to run first, not counted")
	fs.IntVar(&a.processes, "processes", 1, "stdio: start this many server processes and spread the calls over them")
	fs.BoolVar(&a.allowWrite, "allow-write", false, "bench a tool that is not marked read-only (it will be called many times)")
	fs.Var(&a.failOn, "fail-on", "conditions that fail the run (exit 6), comma-separated or repeated: p99>200ms, errors>0, errors>1%, rps<500, cpu>150, rss>200MiB")
	fs.IntVar(&a.pid, "pid", 0, "an HTTP server's process ID, to report its process tree's CPU and RSS")
	pos, argv, err := parse(fs, args, func(pos []string, arg string) bool {
		return len(pos) >= 1 && !strings.Contains(arg, "=")
	})
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErr("bench needs a tool name: mcpscope bench TOOL [key=value ...] [flags] -- CMD [ARGS...] (or a URL, a NAME)")
	}
	tool, pairs := pos[0], pos[1:]
	o, thresholds, err := benchOptions(c.format, a)
	if err != nil {
		return err
	}
	if _, err := inspect.BuildArgs(client.Tool{}, a.argsJSON, pairs); err != nil {
		return usageErr("%v", err)
	}
	srv, tool, err := c.callServer(ctx, args, argv, tool)
	if err != nil {
		return err
	}
	http := srv.spec.Target.URL != ""
	if http && a.processes > 1 {
		return usageErr("--processes is for a server command (stdio); over HTTP, -c N opens N clients")
	}
	if !http && a.pid != 0 {
		return usageErr("--pid is for an HTTP server; a server command's processes are followed without it")
	}
	first, done, err := connect(ctx, c.withTimeout(srv.spec), srv.spec.Target, stderr)
	if err != nil {
		return err
	}
	defer done()
	list, err := first.Tools(ctx)
	if err != nil {
		return err
	}
	t, ok := findTool(list.Tools, tool)
	if !ok {
		if why := list.RefusedWhy(tool); why != "" {
			return usageErr("the server lists tool %q, but mcpscope refused it: %s", tool, why)
		}
		return usageErr("the server has no tool %q; it has: %s", tool, toolNames(list.Tools, tool))
	}
	// Refused before a single call: the tool list is all that was asked of the server.
	if !bench.ReadOnly(t) && !a.allowWrite {
		return usageErr("%s; pass --allow-write if that is safe", bench.WriteRefusal(strconv.Quote(srv.spec.Name), strconv.Quote(tool), benchCalls(o)))
	}
	if o.Args, err = benchArguments(t, a.argsJSON, pairs); err != nil {
		return err
	}
	o.Tool = tool
	o.Callers = []bench.Caller{first}
	// More sessions: more processes of the command, or an HTTP client per call in
	// flight. They are not recorded (--record records the first session).
	more := 0
	if http {
		more = o.Concurrency - 1
	} else {
		more = a.processes - 1
	}
	for i := 0; i < more; i++ {
		s, err := benchSession(ctx, c.withTimeout(srv.spec), srv.spec.Target, stderr)
		if err != nil {
			return fmt.Errorf("session %d of %d: %w", i+2, more+1, err)
		}
		defer s.Close()
		o.Callers = append(o.Callers, s)
	}
	switch {
	case !http:
		o.Tree = &bench.Tree{Root: os.Getpid()}
	case a.pid != 0:
		o.Tree = &bench.Tree{Root: a.pid, WithRoot: true}
	}
	for _, th := range thresholds {
		if (th.Metric == "cpu" || th.Metric == "rss") && o.Tree == nil {
			return usageErr("--fail-on %q: an HTTP server's processes are read only with --pid PID", th.Text)
		}
	}
	res, err := bench.Run(ctx, o)
	if err != nil {
		return err
	}
	rep := &bench.Report{Server: srv.spec.Name, Target: srv.desc, Transport: "stdio", Result: res, Warmup: a.warmup,
		Outcomes: bench.Judge(res, thresholds)}
	if http {
		rep.Transport = "http"
	}
	if c.format == "json" {
		if isTerminal(stdout) {
			stdout = termsafe.NewWriter(stdout)
		}
		err = bench.WriteJSON(stdout, rep)
	} else {
		err = bench.WriteText(stdout, rep, termWidth(stdout), chartStyle(stdout))
	}
	if err != nil {
		return err
	}
	if res.Interrupted {
		return ctx.Err()
	}
	if res.Ended != "" {
		return &exitError{code: exitServer, msg: termsafe.Line(res.Ended) + "; the report has the calls made before"}
	}
	if rep.Failed() {
		return &exitError{code: exitThreshold, msg: "a --fail-on condition held: " + failedConditions(rep)}
	}
	return nil
}

// exitThreshold: bench's --fail-on condition held.
const exitThreshold = 6

// benchOptions reads the flags that shape the run.
func benchOptions(format string, a benchArgs) (bench.Options, []bench.Threshold, error) {
	var o bench.Options
	switch format {
	case "text", "json":
	default:
		return o, nil, usageErr("--format %q: bench prints text or json", format)
	}
	if a.conc < 1 || a.processes < 1 || a.count < 0 || a.duration < 0 || a.rate < 0 {
		return o, nil, usageErr("-c and --processes take 1 or more; -n, --duration and --rate cannot be negative")
	}
	if a.count > 0 && a.duration > 0 {
		return o, nil, usageErr("give -n COUNT or --duration D, not both")
	}
	if a.processes > a.conc {
		return o, nil, usageErr("--processes %d with -c %d would leave processes without calls: give -c at least %d", a.processes, a.conc, a.processes)
	}
	o.Concurrency, o.Count, o.Duration, o.Rate = a.conc, a.count, a.duration, a.rate
	if o.Count == 0 && o.Duration == 0 {
		o.Count = 200
	}
	if a.warmup != "" {
		if n, err := strconv.Atoi(a.warmup); err == nil && n >= 0 {
			o.WarmupCount = n
		} else if d, err := time.ParseDuration(a.warmup); err == nil && d >= 0 {
			o.WarmupDuration = d
		} else {
			return o, nil, usageErr("--warmup %q: give a number of calls (50) or a time (2s)", a.warmup)
		}
	}
	th, err := bench.ParseThresholds(strings.Join(a.failOn, ","))
	if err != nil {
		return o, nil, usageErr("%v", err)
	}
	return o, th, nil
}

// benchArguments are the call's arguments, checked as call checks them.
func benchArguments(t client.Tool, argsJSON string, pairs []string) (json.RawMessage, error) {
	arguments, err := inspect.BuildArgs(t, argsJSON, pairs)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	if missing := inspect.MissingRequired(t, arguments); len(missing) > 0 {
		return nil, usageErr("%s", missingRequiredMsg(t.Name, missing))
	}
	return arguments, nil
}

// benchCalls says how many calls a run makes, for the refusal.
func benchCalls(o bench.Options) string {
	if o.Count > 0 {
		return fmt.Sprintf("%d times", o.Count+o.WarmupCount)
	}
	return "for " + o.Duration.String()
}

// benchSession connects one more session to the target, as connect does but without
// a recording of its own.
func benchSession(ctx context.Context, c *common, target client.Target, stderr io.Writer) (*client.Session, error) {
	sess, err := c.session(stderr)
	if err != nil {
		return nil, err
	}
	return client.Connect(ctx, target, sess.ClientFor(workbench.Spec{}, &wire.Tap{}))
}

func failedConditions(r *bench.Report) string {
	var out []string
	for _, o := range r.Outcomes {
		if o.Failed {
			out = append(out, o.Text+" (measured "+o.Measured+")")
		}
	}
	return strings.Join(out, ", ")
}

// termWidth is the terminal's width, or 80 for a pipe.
func termWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && isTerminal(w) {
		if cols, _, err := term.GetSize(f.Fd()); err == nil && cols > 20 {
			return cols
		}
	}
	return 80
}

// chartStyle colours the charts on a terminal, unless NO_COLOR is set.
func chartStyle(w io.Writer) bench.Style {
	if isTerminal(w) && os.Getenv("NO_COLOR") == "" {
		return bench.ColorStyle()
	}
	return bench.Style{}
}
