package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/host"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/pollread"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/replay"
	"github.com/mcpscope/mcpscope/workbench"
)

// recordFlag is --record: a file, or a directory (such as ".") or an empty value
// (--record=) for a dated name in it. The flag package cannot take an optional value,
// so "give a directory" is how "pick a name for me" is said.
type recordFlag struct{ c *common }

func (f recordFlag) String() string {
	if f.c == nil {
		return ""
	}
	return f.c.record
}

func (f recordFlag) Set(v string) error {
	f.c.record, f.c.recordSet = v, true
	return nil
}

// registerRecordFlags adds the recording flags to every command that talks to a server.
func registerRecordFlags(fs *flag.FlagSet, c *common) {
	fs.Var(recordFlag{c}, "record", "record the session to FILE (JSON Lines); a directory such as . picks a dated name in it")
	fs.Var(&c.redact, "redact", "REGEX: replace matches by [redacted] in the recording (repeatable)")
}

// redactor builds the recording's redactor: env values passed with -e/--env-file whose
// names look like secrets, and --redact patterns. It also returns the env names.
func (c *common) redactor() (*record.Redactor, []string, error) {
	var kvs []string
	for _, f := range c.envFiles {
		kv, err := readEnvFile(f)
		if err != nil {
			return nil, nil, err
		}
		kvs = append(kvs, kv...)
	}
	kvs = append(kvs, c.env...)
	names, secrets := record.EnvSecrets(kvs)
	red, err := record.NewRedactor(secrets, c.redact)
	if err != nil {
		return nil, nil, usageErr("%v", err)
	}
	return red, names, nil
}

// startRecording starts writing the session's wire events to c.record, if set. The
// returned stop finishes the file; it is called after the session has closed.
func startRecording(c *common, target client.Target, tap *wire.Tap) (stop func(), err error) {
	if !c.recordSet {
		return func() {}, nil
	}
	stop, path, err := startRecordingAt(c, target, tap)
	if err == nil && path != c.record {
		fmt.Fprintf(os.Stderr, "mcpscope: recording to %s\n", path) // a dated name was picked
	}
	return stop, err
}

// startRecordingAt starts a recording and also says where it goes.
func startRecordingAt(c *common, target client.Target, tap *wire.Tap) (stop func(), path string, err error) {
	return startRecordingFrom(c, target, tap, nil)
}

// startRecordingFrom starts a recording that begins with what snap knows of the
// session (its handshake and lists), for a recording started mid-session.
// nextRecordPlace is where the next R records once a recording has ended
// (record.NextPlace).
func nextRecordPlace(path string) string { return record.NextPlace(path) }

func startRecordingFrom(c *common, target client.Target, tap *wire.Tap, snap *record.Snapshot) (stop func(), path string, err error) {
	red, envNames, err := c.redactor()
	if err != nil {
		return nil, "", err
	}
	// --bearer, --bearer-env and credential -H values: the wire layer masks them in
	// HTTP events already; the recorder masks them everywhere else too.
	if _, secrets, err := c.remote.httpHeader(); err == nil {
		for _, s := range secrets {
			red.AddSecret(s)
		}
	}
	// The target as the header describes it, and the secrets it carries (a config
	// entry's own environment counts like -e).
	ht, targetSecrets := c.recordTarget(target, envNames)
	for _, s := range targetSecrets {
		red.AddSecret(s)
	}
	h := record.Header{
		McpscopeVersion: client.Version,
		Target:          ht,
		Client:          &record.Peer{Name: "mcpscope", Version: client.Version},
	}
	var w *record.Writer
	path = c.record
	if path == "" {
		path = "."
	}
	if st, serr := os.Stat(path); serr == nil && st.IsDir() {
		w, err = record.CreateIn(path, h, red)
	} else {
		w, err = record.Create(path, h, red)
	}
	if err != nil {
		return nil, "", &exitError{code: exitUsage, msg: fmt.Sprintf("--record: %v", err)}
	}
	if snap != nil {
		if err := w.WriteSnapshot(snap.Events()); err != nil {
			w.Close()
			return nil, "", &exitError{code: exitUsage, msg: fmt.Sprintf("--record: %v", err)}
		}
	}
	remove := tap.Listen(w.Listen)
	return func() {
		// The session has closed, and the wire layer emits the server's exit before
		// Close returns, so the recording already ends with it.
		remove()
		if err := w.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "mcpscope: the recording %s is incomplete: %v\n", w.Path(), err)
		}
	}, w.Path(), nil
}

// runReplay runs a recording again against a live server as a golden test.
func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, a, err := parseReplay(args)
	if err != nil {
		return err
	}
	// The header says which replay this is; a recording of one is then read as it
	// replays (replay.RunFile), unless --update or --save-ignore rewrites it.
	r, err := record.Open(a.file)
	if err != nil {
		return &exitError{code: exitUsage, msg: "replay: " + err.Error()}
	}
	h := r.Header
	r.Close()
	if len(h.Servers) == 0 && len(c.naming.servers) == 0 && !a.update && !a.saveIgnore {
		return replayOne(ctx, c, h, nil, a, stdout, stderr)
	}
	rec, err := loadRecording("replay: ", a.file)
	if err != nil {
		return err
	}
	for _, w := range rec.Warnings {
		fmt.Fprintf(stderr, "mcpscope: %s: %s\n", a.file, w)
	}
	if rec.Several() || len(c.naming.servers) > 0 {
		return replayServers(ctx, c, rec, a, stdout, stderr)
	}
	return replayOne(ctx, c, rec.Header, rec, a, stdout, stderr)
}

// parseReplay reads replay's flags.
func parseReplay(args []string) (*common, replayArgs, error) {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	var c common
	c.register(fs, "text")
	var a replayArgs
	var ignore, only multiFlag
	fs.Var(&ignore, "ignore", "a JSON `PATH` to ignore in responses and notifications, with * and **, METHOD: or TOOL: (repeatable)")
	fs.Var(&only, "only", "run only these exchanges: an id (TOOL-N in a saved collection) or a tool name (repeatable, or comma-separated)")
	fs.BoolVar(&a.strict, "strict-order", false, "compare each request's notifications in order, not as a multiset")
	fs.BoolVar(&a.update, "update", false, "rewrite the recorded responses from the live server")
	fs.BoolVar(&a.saveIgnore, "save-ignore", false, "add the --ignore paths to the recording's header, so that every later replay ignores them too")
	pos, argv, err := parse(fs, args, func(pos []string, _ string) bool { return len(pos) >= 1 })
	if err != nil {
		return nil, a, err
	}
	if len(pos) != 1 {
		return nil, a, usageErr("replay needs one recording: mcpscope replay FILE [-- CMD ARGS...] (see mcpscope replay --help)")
	}
	if c.format != "text" && c.format != "json" {
		return nil, a, usageErr("--format %q: use text or json", c.format)
	}
	if err := replay.CheckPatterns(ignore); err != nil {
		return nil, a, usageErr("%v", err)
	}
	a.file, a.argv, a.ignore, a.only = pos[0], argv, ignore, splitOnly(only)
	fs.Visit(func(f *flag.Flag) { a.framingGiven = a.framingGiven || f.Name == "framing" })
	return &c, a, nil
}

// replayOne replays a recording of one server (header h): against the command or
// URL after --, or the recorded one; --update and --save-ignore rewrite the file. rec
// is the recording in memory when they do; nil, the file is read as it replays, and
// its warnings are said at the end.
func replayOne(ctx context.Context, c *common, h record.Header, rec *record.Recording, a replayArgs, stdout, stderr io.Writer) error {
	target, err := replayTarget(h, a, stderr)
	if err != nil {
		return err
	}
	if !a.framingGiven && h.Target.Framing != "" {
		c.framing = h.Target.Framing
	}
	if target.URL == "" {
		warnMissingEnv(c, h.Target.Env, stderr)
	}
	sess, err := c.session(stderr) // the client options of every front end
	if err != nil {
		return err
	}
	tap := &wire.Tap{}
	opts := sess.ClientFor(workbench.Spec{Target: target}, tap)
	red, _, err := c.redactor()
	if err != nil {
		return err
	}
	stopRecording, err := startRecording(c, target, tap)
	if err != nil {
		return err
	}
	ropts := replay.Options{
		Client: opts, Ignore: a.ignore, StrictOrder: a.strict, Update: a.update, Redact: red, Timeout: c.remote.timeout,
		Only: a.only,
	}
	var report *replay.Report
	if rec != nil {
		report, err = replay.Run(ctx, rec, target, ropts)
	} else {
		report, err = replay.RunFile(ctx, a.file, "", target, ropts)
	}
	stopRecording()
	if err != nil {
		return err
	}
	if rec == nil {
		for _, w := range report.Warnings {
			fmt.Fprintf(stderr, "mcpscope: %s: %s\n", a.file, w)
		}
	}
	text := func(w io.Writer) error { report.WriteText(w); return nil }
	if err := writeReport(c.format, stdout, report, text); err != nil {
		return err
	}
	return replayOutcome(rec, report, a, stderr)
}

// replayTarget is the server a recording of one replays against: the URL or command
// after --, or the recorded one.
func replayTarget(h record.Header, a replayArgs, stderr io.Writer) (client.Target, error) {
	switch {
	case len(a.argv) == 1 && (strings.HasPrefix(a.argv[0], "http://") || strings.HasPrefix(a.argv[0], "https://")):
		return client.Target{URL: a.argv[0]}, nil
	case len(a.argv) > 0:
		return client.Target{Argv: a.argv}, nil
	}
	return recordedTarget(a.file, "", h.Target, stderr)
}

// replayOutcome writes what --update and --save-ignore change (rec is then the
// recording in memory) and turns the report into the exit code: a difference fails
// the replay, unless --update accepted it.
func replayOutcome(rec *record.Recording, report *replay.Report, a replayArgs, stderr io.Writer) error {
	out := rec
	if a.update && !report.OK() {
		out = report.Updated
	}
	if a.saveIgnore {
		if err := saveIgnored(out, a, stderr); err != nil {
			return err
		}
	} else if out != rec {
		if err := out.Save(a.file); err != nil {
			return &exitError{code: exitServer, msg: fmt.Sprintf("replay: writing %s: %v", a.file, err)}
		}
	}
	// An operation of several requests (an input_required chain, a task's polls)
	// is not rewritten by --update (replay.runOperation warns): it still differs.
	left := 0
	for _, f := range report.Failures {
		if f.Operation != "" {
			left++
		}
	}
	switch {
	case a.update && report.OK():
		fmt.Fprintf(stderr, "mcpscope: %s already matches the server; responses not rewritten\n", a.file)
	case a.update:
		if n := len(report.Failures) - left; n > 0 {
			fmt.Fprintf(stderr, "mcpscope: updated %s: %s rewritten from the live server\n", a.file, plural.Count(n, "exchange"))
		}
		if left > 0 {
			return &exitError{code: exitServer, msg: fmt.Sprintf("%s still differs from the live server in %s of several requests, which --update does not rewrite: record it again", a.file, plural.Count(left, "operation"))}
		}
	case !report.OK():
		return &exitError{code: exitServer, msg: fmt.Sprintf("%s differs from the live server in %d of %s (--update accepts the live answers)", a.file, len(report.Failures), plural.Count(report.Replayed, "exchange"))}
	}
	return nil
}

// warnMissingEnv says which variables the recording was made with that are neither in
// the environment nor given now: their values were never recorded.
func warnMissingEnv(c *common, names []string, stderr io.Writer) {
	given := map[string]bool{}
	for _, kv := range c.env {
		k, _, _ := strings.Cut(kv, "=")
		given[k] = true
	}
	for _, f := range c.envFiles {
		kvs, _ := readEnvFile(f)
		for _, kv := range kvs {
			k, _, _ := strings.Cut(kv, "=")
			given[k] = true
		}
	}
	var missing []string
	for _, n := range names {
		if _, ok := os.LookupEnv(n); !ok && !given[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(stderr, "mcpscope: note: the recording was made with %s set for the server (values are never recorded); pass them again with -e or --env-file if it needs them\n", strings.Join(missing, ", "))
	}
}

// defaultServeAddr is where "mcpscope serve --http" listens without an address: next to
// the bundled host's default, so both can run at once.
const defaultServeAddr = "127.0.0.1:5758"

// runServe serves a recording as a mock MCP server.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var framing, httpAddr string
	fs.StringVar(&framing, "framing", replay.FramingAuto, "stdio: reply in ndjson, content-length, or auto (the client's framing)")
	fs.StringVar(&httpAddr, "http", "", "serve stateless Streamable HTTP at http://`ADDR`/mcp (a bare --http: "+defaultServeAddr+"; loopback addresses only)")
	var server string
	fs.StringVar(&server, "server", "", "serve this server of a recording of several")
	// A bare --http (last, or before another flag) means the default address.
	var pre []string
	for i, a := range args {
		if (a == "--http" || a == "-http") && (i == len(args)-1 || strings.HasPrefix(args[i+1], "-")) {
			a = "--http=" + defaultServeAddr
		}
		pre = append(pre, a)
	}
	pos, _, err := parse(fs, pre, func([]string, string) bool { return false })
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr("serve needs one recording: mcpscope serve FILE [--http [ADDR]] (see mcpscope serve --help)")
	}
	switch framing {
	case replay.FramingAuto, replay.FramingNDJSON, replay.FramingContentLength:
	case "lsp", "cl":
		framing = replay.FramingContentLength
	default:
		return usageErr("--framing %q: use auto, ndjson or content-length", framing)
	}
	rec, err := loadRecording("serve: ", pos[0])
	if err != nil {
		return err
	}
	for _, w := range rec.Warnings {
		fmt.Fprintf(stderr, "mcpscope serve: %s: %s\n", pos[0], w)
	}
	if rec, err = replay.ServeOne(rec, pos[0], server); err != nil {
		return err
	}
	mock := replay.NewMock(rec)
	mock.Log = func(note string) { fmt.Fprintf(stderr, "mcpscope serve: %s\n", note) }
	if httpAddr != "" {
		if _, _, err := net.SplitHostPort(httpAddr); err != nil {
			return usageErr("--http %q: want HOST:PORT, such as %s", httpAddr, defaultServeAddr)
		}
		if err := host.CheckBindAddr(httpAddr, false); err != nil {
			return usageErr("--http %q: the mock server listens on loopback addresses only, such as %s", httpAddr, defaultServeAddr)
		}
		return host.ServeHTTP(ctx, mock.HTTPHandler(), httpAddr, false, func(a net.Addr) {
			fmt.Fprintf(stderr, "mcpscope serve: serving %s (%d recorded requests) at http://%s/mcp\n", pos[0], mock.Requests(), a)
		})
	}
	in, undo := pollread.Stdin(os.Stdin) // not a blocking read(2) between requests (issue 14 item 9)
	defer undo()
	err = replay.ServeStdio(ctx, mock, in, stdout, framing)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil // interrupted: a normal way to stop a server
	}
	return err
}

// splitOnly reads --only a,b --only c.
func splitOnly(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// loadRecording loads the recording a command was named. A file that is missing, is
// not a regular file or is no recording is what the user named wrongly: a usage error
// (exit 2) for every command that reads one, never the code of a server that failed.
func loadRecording(prefix, path string) (*record.Recording, error) {
	rec, err := record.Load(path)
	if err != nil {
		return nil, &exitError{code: exitUsage, msg: prefix + err.Error()}
	}
	return rec, nil
}
