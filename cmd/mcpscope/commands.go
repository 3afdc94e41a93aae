package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/charmbracelet/x/term"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/inspect"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/termsafe"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/validate"
	"github.com/mcpscope/mcpscope/workbench"
)

// noiseNote counts the stdout lines a server wrote that were not JSON-RPC, so that a
// one-shot command can say so once at the end instead of hiding it.
type noiseNote struct {
	mu    sync.Mutex
	lines int
	first string
	size  int
	procs []string // notes about processes the server left running
}

func (n *noiseNote) listen(e wire.Event) {
	if wire.IsProcessNote(e) {
		n.mu.Lock()
		n.procs = append(n.procs, e.Text)
		n.mu.Unlock()
		return
	}
	if e.Kind != wire.KindNoise {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.lines == 0 {
		n.first, n.size = string(e.Data), e.Size
	}
	n.lines++
}

func (n *noiseNote) report(stderr io.Writer) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, p := range n.procs {
		for _, line := range strings.Split(p, "\n") {
			fmt.Fprintln(stderr, "mcpscope: note: "+line)
		}
	}
	if n.lines == 0 {
		return
	}
	first := n.first
	if len(first) > 60 {
		first = first[:60] + "…"
	}
	if n.size > 200 {
		first += " (" + wire.HumanBytes(int64(n.size)) + ")"
	}
	fmt.Fprintf(stderr, "mcpscope: note: the server wrote %s to stdout, skipped (the first: %q); use --trace to see them\n", plural.Count(n.lines, "non-JSON line"), first)
}

// connect opens a session for a one-shot command with everything the common flags
// ask for (tracing, recording). done closes the session, then finishes the recording
// and prints the note about skipped stdout lines.
func connect(ctx context.Context, c *common, target target.Target, stderr io.Writer, mods ...func(*client.Options) error) (s *client.Session, done func(), err error) {
	sess, err := c.session(stderr, mods...)
	if err != nil {
		return nil, nil, err
	}
	tap := &wire.Tap{}
	note := &noiseNote{}
	tap.Listen(note.listen)
	opts := sess.ClientFor(workbench.Spec{}, tap) // c.withTimeout applied the entry's timeout
	stopRecording, err := startRecording(c, target, tap)
	if err != nil {
		return nil, nil, err
	}
	s, err = client.Connect(ctx, target, opts)
	if err != nil {
		stopRecording()
		note.report(stderr)
		return nil, nil, err
	}
	return s, func() {
		s.Close()
		stopRecording()
		note.report(stderr)
	}, nil
}

func runInspect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	var c common
	c.register(fs, inspect.FormatTable)
	var wf watchFlag
	debounce := registerWatchFlags(fs, &wf)
	args = rewriteWatchArgs(args)
	var ia interactFlags
	ia.register(fs)
	var pf pinFlags
	pf.register(fs, true)
	tokens := fs.Bool("tokens", false, "count the definitions' o200k_base tokens beside their bytes (loads the tokenizer on the way: about 0.1 s)")
	// Without "--", the first positional starts the server command.
	_, argv, err := parse(fs, args, func([]string, string) bool { return true })
	if err != nil {
		return err
	}
	switch c.format {
	case inspect.FormatTable, inspect.FormatJSON, inspect.FormatMarkdown, "md":
	default:
		return usageErr("--format %q: use table, json or markdown", c.format)
	}
	if c.format == "md" {
		c.format = inspect.FormatMarkdown
	}
	if argv, err = c.reparseNames(ctx, fs, args, argv); err != nil {
		return err
	}
	servers, err := c.namedServers(ctx, args, argv)
	if err != nil {
		return err
	}
	if wf.active() {
		return inspectWatchOne(ctx, &c, servers, &wf, *debounce, stdout, stderr)
	}
	if len(servers) > 1 {
		return inspectMany(ctx, &c, servers, *tokens, &pf, stdout, stderr, func(o *client.Options) error { return ia.apply(o, stderr) })
	}
	s, done, err := connect(ctx, c.withTimeout(servers[0].spec), servers[0].spec.Target, stderr, func(o *client.Options) error { return ia.apply(o, stderr) })
	if err != nil {
		return err
	}
	defer done()
	list, err := s.Tools(ctx)
	if err != nil {
		return err
	}
	if isTerminal(stdout) {
		// Table and Markdown are always made safe; on a terminal, JSON is too.
		stdout = termsafe.NewWriter(stdout)
	}
	p := gatherPrimitives(ctx, s, list)
	p.CountTokens = *tokens
	surf := inspectSurface(s.HasCapability, list, p)
	surf.Client = s.Declared()
	drift, differs, note := pinCheck(pf.store(stderr), servers[0], surf)
	fmt.Fprint(stderr, note)
	p.Problems = append(p.Problems, drift...)
	if err := inspect.WriteWith(stdout, c.format, s.Info(), list, p); err != nil {
		return err
	}
	if differs && pf.strict {
		return strictPins([]string{servers[0].spec.Name})
	}
	return nil
}

func runCall(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	var c common
	c.register(fs, "text")
	var argsJSON, saveDir string
	fs.StringVar(&argsJSON, "args", "", "arguments as a JSON object")
	fs.StringVar(&saveDir, "save-dir", "", "write binary and resource blocks here")
	var ia interactFlags
	ia.register(fs)
	var asTask bool
	fs.BoolVar(&asTask, "task", false, "run the call as a task (a tool whose taskSupport is required always is)")
	var noValidate bool
	fs.BoolVar(&noValidate, "no-validate", false, "send the call even when a required argument is missing (to see what the server does); with --args JSON alone, without listing the tools first")
	// Positionals: TOOL, then key=value pairs; the first other word starts the
	// server command when "--" is not used.
	pos, argv, err := parse(fs, args, func(pos []string, arg string) bool {
		return len(pos) >= 1 && !strings.Contains(arg, "=")
	})
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErr("call needs a tool name: mcpscope call TOOL [key=value ...] -- CMD [ARGS...], or mcpscope call SERVER/TOOL [key=value ...]")
	}
	tool, pairs := pos[0], pos[1:]
	switch c.format {
	case "text", inspect.FormatJSON:
	default:
		return usageErr("--format %q: call prints text or json (table and markdown are --inspect's)", c.format)
	}
	srv, tool, err := c.callServer(ctx, args, argv, tool)
	if err != nil {
		return err
	}
	// Check the arguments' syntax before starting anything.
	if _, err := inspect.BuildArgs(client.Tool{}, argsJSON, pairs); err != nil {
		return usageErr("%v", err)
	}
	// And where the blocks will go: a tool may act, so a --save-dir that cannot be
	// written must be found before the call, not after it ran.
	if err := inspect.CheckSaveDir(saveDir); err != nil {
		return usageErr("%v", err)
	}
	s, done, err := connect(ctx, c.withTimeout(srv.spec), srv.spec.Target, stderr, func(o *client.Options) error { return ia.apply(o, stderr) })
	if err != nil {
		return err
	}
	defer done()
	// --timeout is applied per request by the session (progress restarts it).
	// The tool list gives the schema that key=value pairs are coerced by, that the
	// required arguments and the structured output are checked by, and whether the
	// tool must run as a task, and lets an unknown name fail with the names that exist.
	// --no-validate with the arguments as JSON uses none of that: the call goes out as
	// written, a round trip sooner, and the server judges it (an unknown tool, a
	// missing argument or a tool that wants a task is its error to report). --task
	// still lists, to refuse a tool that forbids tasks.
	t := client.Tool{Name: tool}
	if !noValidate || len(pairs) > 0 || asTask {
		list, err := s.Tools(ctx)
		if err != nil {
			return err
		}
		var ok bool
		t, ok = findTool(list.Tools, tool)
		if !ok {
			if why := list.RefusedWhy(tool); why != "" {
				// Listed, but not offered: say why, as --inspect does, rather than that
				// the server has no such tool.
				return usageErr("the server lists tool %q, but mcpscope refused it: %s", tool, why) // stderr is a termsafe writer
			}
			return usageErr("the server has no tool %q; it has: %s", tool, toolNames(list.Tools, tool))
		}
	}
	arguments, err := inspect.BuildArgs(t, argsJSON, pairs)
	if err != nil {
		return usageErr("%v", err)
	}
	if missing := inspect.MissingRequired(t, arguments); len(missing) > 0 && !noValidate {
		return usageErr("%s", missingRequiredMsg(tool, missing))
	}
	if !noValidate {
		// What is sent is judged whole, as the server will judge it: --args JSON is not
		// coerced, and a key=value the tool has no property for is not typed by it.
		violations, err := inspect.ArgumentViolations(t, arguments)
		if err != nil {
			fmt.Fprintf(stderr, "mcpscope: note: the arguments were not checked against tool %q's input schema: %v\n", tool, err)
		} else if len(violations) > 0 {
			return usageErr("%s", argumentViolationsMsg(t, violations))
		}
	}
	r, err := callMaybeTask(ctx, s, t, arguments, asTask, stderr)
	if err != nil {
		return ia.urlElicitationErr(err)
	}
	if err := inputRequiredErr(r); err != nil {
		return err
	}
	out := inspect.CallOutput{Format: c.format, SaveDir: saveDir, Tool: tool, Terminal: isTerminal(stdout)}
	if err := inspect.WriteResult(stdout, out, r); err != nil {
		return err
	}
	if c.format == inspect.FormatJSON {
		// The JSON is the result as sent, so where each block was saved goes to stderr.
		saved, err := inspect.SaveBlocks(out, r)
		for _, sv := range saved {
			fmt.Fprintf(stderr, "mcpscope: saved block %d (%s) to %s\n", sv.Block, sv.What, sv.Path)
		}
		if err != nil {
			return err
		}
	}
	for _, p := range r.Problems {
		fmt.Fprintln(stderr, "mcpscope: problem in the result: "+p)
	}
	checkStructured(t, r, stderr)
	if r.IsError {
		return &exitError{code: exitToolError, msg: fmt.Sprintf("tool %q returned an error result (isError: true)", tool)}
	}
	return nil
}

// missingRequiredMsg names the required arguments a call lacks and how to give them
// (or send the call anyway). The names are the server's: strconv.Quote escapes them,
// and stderr goes through termsafe besides.
func missingRequiredMsg(tool string, missing []string) string {
	quoted := make([]string, len(missing))
	for i, m := range missing {
		quoted[i] = strconv.Quote(m)
	}
	noun := "argument"
	if len(missing) > 1 {
		noun = "arguments"
	}
	return fmt.Sprintf("tool %q: missing required %s %s (give %s=VALUE; --no-validate sends the call anyway)", tool, noun, strings.Join(quoted, ", "), missing[0])
}

// argumentViolationsMsg says how the arguments break the tool's input schema, each
// violation at its argument's path, and the arguments the tool takes (a misspelt name
// is the likeliest cause of an argument the schema forbids). The paths and messages
// hold the server's names: stderr goes through termsafe.
func argumentViolationsMsg(t client.Tool, violations []validate.Violation) string {
	parts := make([]string, len(violations))
	for i, v := range violations {
		where := "arguments"
		if v.Path != "" {
			where = "argument " + strings.TrimPrefix(v.Path, "/")
		}
		parts[i] = where + ": " + v.Message
	}
	msg := fmt.Sprintf("tool %q: the arguments do not fit its input schema: %s", t.Name, strings.Join(parts, "; "))
	if names := inspect.ArgumentNames(t); len(names) > 0 {
		msg += "; it takes: " + strings.Join(names, ", ")
	}
	return msg + " (--no-validate sends the call anyway)"
}

// isTerminal reports whether w is a terminal, where a person reads the output (and a
// server's escapes must not drive it); a pipe or a file gets the exact bytes.
func isTerminal(w io.Writer) bool {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		w = u.Unwrap() // the termsafe writer around stderr
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

func findTool(tools []client.Tool, name string) (client.Tool, bool) {
	for _, t := range tools {
		if t.Name == name {
			return t, true
		}
	}
	return client.Tool{}, false
}

// toolNames lists the names, the ones that look like the wanted one first.
func toolNames(tools []client.Tool, want string) string {
	if len(tools) == 0 {
		return "no tools at all"
	}
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		names = append(names, t.Name)
	}
	w := strings.ToLower(want)
	sort.SliceStable(names, func(i, j int) bool {
		return similar(names[i], w) && !similar(names[j], w)
	})
	if len(names) > 12 {
		names = append(names[:12], fmt.Sprintf("… (%d in all)", len(tools)))
	}
	return strings.Join(names, ", ")
}

func similar(name, want string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, want) || strings.Contains(want, n)
}

// checkStructured says on stderr when structuredContent breaks the tool's outputSchema
// (the spec says clients should validate it), or is missing although one is declared.
func checkStructured(t client.Tool, r *client.CallResult, stderr io.Writer) {
	if len(t.OutputSchema) == 0 || r.IsError {
		return
	}
	if r.Structured == nil {
		fmt.Fprintf(stderr, "mcpscope: warning: tool %q declares an outputSchema but the result has no structuredContent\n", t.Name)
		return
	}
	violations, err := validate.Check(t.OutputSchema, r.Structured)
	if errors.Is(err, validate.ErrTooCostly) {
		fmt.Fprintf(stderr, "mcpscope: warning: tool %q: structuredContent %v\n", t.Name, err)
		return
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcpscope: warning: tool %q has an unusable outputSchema: %v\n", t.Name, err)
		return
	}
	for _, v := range violations {
		fmt.Fprintf(stderr, "mcpscope: warning: structuredContent does not match the outputSchema at %s\n", v)
	}
}
