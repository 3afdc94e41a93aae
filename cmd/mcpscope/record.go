package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/host"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/pollread"
	"github.com/mcpscope/mcpscope/internal/termsafe"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/replay"
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
// nextRecordPlace is where the next R records once a recording has ended: a new
// dated name in the same directory, or beside the file --record named (the ended
// recording holds that name). Not the current directory, unless that is where the
// user pointed.
func nextRecordPlace(path string) string {
	if path == "" {
		return ""
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return path
	}
	return filepath.Dir(path)
}

func startRecordingFrom(c *common, target client.Target, tap *wire.Tap, snap *record.Snapshot) (stop func(), path string, err error) {
	red, envNames, err := c.redactor()
	if err != nil {
		return nil, "", err
	}
	for _, s := range target.Secrets {
		red.AddSecret(s)
	}
	// --bearer, --bearer-env and credential -H values: the wire layer masks them in
	// HTTP events already; the recorder masks them everywhere else too.
	if _, secrets, err := c.remote.httpHeader(); err == nil {
		for _, s := range secrets {
			red.AddSecret(s)
		}
	}
	// A config entry's own environment counts like -e.
	targetEnv, targetSecrets := record.EnvSecrets(target.Env)
	for _, s := range targetSecrets {
		red.AddSecret(s)
	}
	h := record.Header{
		McpscopeVersion: client.Version,
		Target: record.Target{
			Transport: "stdio",
			Argv:      record.StoredArgv(target.Argv),
			Env:       append(targetEnv, envNames...),
			Dir:       target.Dir,
			Framing:   c.framing,
		},
		Client: &record.Peer{Name: "mcpscope", Version: client.Version},
	}
	if target.URL != "" {
		// HTTP: the wire layer redacts headers and the values it knows are secret;
		// the recorder redacts again, with the -e values and --redact patterns too.
		h.Target = record.Target{Transport: "http", URL: target.URL}
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
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	var c common
	c.register(fs, "text")
	var ignore multiFlag
	var strict, update, saveIgnore bool
	fs.Var(&ignore, "ignore", "a JSON `PATH` to ignore in responses and notifications, with * and **, METHOD: or TOOL: (repeatable)")
	var only multiFlag
	fs.Var(&only, "only", "run only these exchanges: an id (TOOL-N in a saved collection) or a tool name (repeatable, or comma-separated)")
	fs.BoolVar(&strict, "strict-order", false, "compare each request's notifications in order, not as a multiset")
	fs.BoolVar(&update, "update", false, "rewrite the recorded responses from the live server")
	fs.BoolVar(&saveIgnore, "save-ignore", false, "add the --ignore paths to the recording's header, so that every later replay ignores them too")
	pos, argv, err := parse(fs, args, func(pos []string, _ string) bool { return len(pos) >= 1 })
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr("replay needs one recording: mcpscope replay FILE [-- CMD ARGS...] (see mcpscope replay --help)")
	}
	switch c.format {
	case "text", "json":
	default:
		return usageErr("--format %q: use text or json", c.format)
	}
	if err := replay.CheckPatterns(ignore); err != nil {
		return usageErr("%v", err)
	}
	file := pos[0]
	rec, err := record.Load(file)
	if err != nil {
		return &exitError{code: exitUsage, msg: "replay: " + err.Error()}
	}
	for _, w := range rec.Warnings {
		fmt.Fprintf(stderr, "mcpscope: %s: %s\n", file, w)
	}
	if rec.Several() || len(c.naming.servers) > 0 {
		framingGiven := false
		fs.Visit(func(f *flag.Flag) { framingGiven = framingGiven || f.Name == "framing" })
		return replayServers(ctx, &c, rec, replayArgs{file: file, argv: argv, ignore: ignore, strict: strict, update: update, saveIgnore: saveIgnore, framingGiven: framingGiven, only: splitOnly(only)}, stdout, stderr)
	}
	var target client.Target
	switch {
	case len(argv) == 1 && (strings.HasPrefix(argv[0], "http://") || strings.HasPrefix(argv[0], "https://")):
		target.URL = argv[0]
	case len(argv) > 0:
		target.Argv = argv
	case rec.Header.Target.Transport == "http":
		if rec.Header.Target.URL == "" || strings.Contains(rec.Header.Target.URL, record.Redacted) {
			return usageErr("%s was recorded over HTTP and its URL is not usable; give one: mcpscope replay %s -- URL", file, file)
		}
		target.URL = rec.Header.Target.URL
	default:
		argv = rec.Header.Target.Argv
		if len(argv) == 0 {
			return usageErr("%s names no server command; give one: mcpscope replay %s -- CMD ARGS...", file, file)
		}
		for _, a := range argv {
			if strings.Contains(a, record.Redacted) {
				fmt.Fprintf(stderr, "mcpscope: note: the recorded command has a redacted argument; give the command after -- if the server needs it\n")
				break
			}
		}
		target.Argv, target.Dir = record.LiveArgv(argv), rec.Header.Target.Dir
	}
	explicit := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	if !explicit["framing"] && rec.Header.Target.Framing != "" {
		c.framing = rec.Header.Target.Framing
	}
	if target.URL == "" {
		warnMissingEnv(&c, rec.Header.Target.Env, stderr)
	}

	tap := &wire.Tap{}
	opts, err := c.options(tap, stderr)
	if err != nil {
		return err
	}
	red, _, err := c.redactor()
	if err != nil {
		return err
	}
	stopRecording, err := startRecording(&c, target, tap)
	if err != nil {
		return err
	}
	report, err := replay.Run(ctx, rec, target, replay.Options{
		Client: opts, Ignore: ignore, StrictOrder: strict, Update: update, Redact: red, Timeout: c.remote.timeout,
		Only: splitOnly(only),
	})
	stopRecording()
	if err != nil {
		return err
	}
	if c.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report); err != nil {
			return err
		}
	} else {
		report.WriteText(termsafe.NewWriter(stdout)) // for people: the diffs quote the server
	}
	out := rec
	if update && !report.OK() {
		out = report.Updated
	}
	if saveIgnore {
		for _, p := range ignore {
			if !slices.Contains(out.Header.Ignore, p) {
				out.Header.Ignore = append(out.Header.Ignore, p)
			}
		}
	}
	if out != rec || saveIgnore {
		if err := out.Save(file); err != nil {
			return &exitError{code: exitServer, msg: fmt.Sprintf("replay: writing %s: %v", file, err)}
		}
	}
	if saveIgnore {
		fmt.Fprintf(stderr, "mcpscope: %s ignores %s from now on\n", file, strings.Join(out.Header.Ignore, ", "))
	}
	if update {
		if report.OK() {
			fmt.Fprintf(stderr, "mcpscope: %s already matches the server; responses not rewritten\n", file)
		} else {
			fmt.Fprintf(stderr, "mcpscope: updated %s: %s rewritten from the live server\n", file, plural.Count(len(report.Failures), "exchange"))
		}
		return nil
	}
	if !report.OK() {
		return &exitError{code: exitServer, msg: fmt.Sprintf("%s differs from the live server in %d of %s (--update accepts the live answers)", file, len(report.Failures), plural.Count(report.Replayed, "exchange"))}
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
	rec, err := record.Load(pos[0])
	if err != nil {
		return &exitError{code: exitUsage, msg: "serve: " + err.Error()}
	}
	for _, w := range rec.Warnings {
		fmt.Fprintf(stderr, "mcpscope serve: %s: %s\n", pos[0], w)
	}
	if rec, err = serveOne(rec, pos[0], server); err != nil {
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
