package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/termsafe"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/replay"
	"github.com/mcpscope/mcpscope/workbench"
)

// replayArgs are the flags of replay that replayServers needs.
type replayArgs struct {
	file                       string
	argv                       []string
	ignore                     []string
	strict, update, saveIgnore bool
	framingGiven               bool
	// only are --only's names: NAME (an exchange id or a tool name, in whichever
	// server has it) or SERVER/NAME (in that server only).
	only []string
}

// serverSelection reads replay's and serve's --server: NAME, or NAME=TARGET to replay
// that server against another target.
func serverSelection(values []string) (names []string, targets map[string]string, err error) {
	targets = map[string]string{}
	for _, v := range values {
		name, target, hasTarget := strings.Cut(v, "=")
		if slices.Contains(names, name) {
			return nil, nil, usageErr("--server %s is given twice", name)
		}
		names = append(names, name)
		if hasTarget {
			targets[name] = target
		}
	}
	return names, targets, nil
}

// recordedTarget is the target a recording's header names (of server, in a recording
// of several; "" for a recording of one), or a usage error that says how to give one.
func recordedTarget(file, server string, t record.Target, stderr io.Writer) (client.Target, error) {
	target, redacted, err := replay.RecordedTarget(t)
	switch {
	case server == "" && errors.Is(err, replay.ErrUnusableURL):
		return target, usageErr("%s was recorded over HTTP and its URL is not usable; give one: mcpscope replay %s -- URL", file, file)
	case server == "" && err != nil:
		return target, usageErr("%s names no server command; give one: mcpscope replay %s -- CMD ARGS...", file, file)
	case server == "" && redacted:
		fmt.Fprintf(stderr, "mcpscope: note: the recorded command has a redacted argument; give the command after -- if the server needs it\n")
	case errors.Is(err, replay.ErrUnusableURL):
		return target, usageErr("%s: server %q was recorded over HTTP and its URL is not usable; give one: mcpscope replay %s --server %s=URL", file, server, file, server)
	case err != nil:
		return target, usageErr("%s: server %q has no server command; give one: mcpscope replay %s --server %s=CMD", file, server, file, server)
	case redacted:
		fmt.Fprintf(stderr, "mcpscope: note: the recorded command of server %q has a redacted argument; give it with mcpscope replay %s --server %s='CMD ARGS' if the server needs it\n", server, file, server)
	}
	return target, nil
}

// replayServers replays a recording of several servers: each one (or those named
// with --server) against its recorded target, one after the other (package replay's
// PlanServers and RunServers). Every line of the text report starts with the
// server's name. What is here is the command line's: --server's targets, the
// client options of the session (app.Session, as every front end), the trace under
// each server's name, and what is printed.
func replayServers(ctx context.Context, c *common, rec *record.Recording, a replayArgs, stdout, stderr io.Writer) error {
	names, targets, err := serverSelection(c.naming.servers)
	if err != nil {
		return err
	}
	src, err := c.sources()
	if err != nil {
		return err
	}
	red, _, err := c.redactor()
	if err != nil {
		return err
	}
	cc := *c
	cc.trace = false // each server's trace names it: added to its tap below
	sess, err := cc.session(stderr)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	setup := func(name string, recorded record.Target) (client.Target, client.Options, error) {
		var t client.Target
		given, ok := targets[name]
		if len(a.argv) > 0 { // PlanServers let it through for one server only
			given, ok = strings.Join(quoteAll(a.argv), " "), true
		}
		if ok {
			srv, err := c.serverTarget(ctx, src, name, given)
			if err != nil {
				return t, client.Options{}, err
			}
			t = srv.spec.Target
		} else if t, err = recordedTarget(a.file, name, recorded, stderr); err != nil {
			return t, client.Options{}, err
		}
		if t.URL == "" {
			warnMissingEnv(c, recorded.Env, stderr)
		}
		tap := &wire.Tap{}
		if c.trace {
			tap.Listen(traceListener(prefixWriter{&mu, stderr, "[" + name + "] "}))
		}
		opts := sess.ClientFor(workbench.Spec{Name: name, Target: t}, tap)
		if f, ok := wire.ParseFraming(recorded.Framing); ok && !a.framingGiven && recorded.Framing != "" {
			opts.Framing = f // the framing it was recorded with, unless --framing says otherwise
		}
		return t, opts, nil
	}
	runs, notes, err := replay.PlanServers(rec, replay.Several{
		File: a.file, Servers: names, Argv: a.argv, Only: a.only, Update: a.update, Record: c.recordSet,
		Options: replay.Options{Ignore: a.ignore, StrictOrder: a.strict, Redact: red, Timeout: c.remote.timeout},
	}, setup)
	for _, n := range notes {
		fmt.Fprintf(stderr, "mcpscope: %s\n", n)
	}
	if err != nil {
		return err
	}
	report, err := replay.RunServers(ctx, rec, runs)
	if err != nil {
		return err
	}
	if err := writeReport(c.format, stdout, report, report.WriteText); err != nil {
		return err
	}
	if a.saveIgnore {
		if err := saveIgnored(rec, a, stderr); err != nil {
			return err
		}
	}
	if !report.OK() {
		return &exitError{code: exitServer, msg: fmt.Sprintf("%s differs from the live servers: %s", a.file, report.Differs())}
	}
	return nil
}

// writeReport writes a replay's report: indented JSON, or text for people (through
// termsafe: the diffs quote the server).
func writeReport(format string, stdout io.Writer, report any, text func(io.Writer) error) error {
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(report)
	}
	return text(termsafe.NewWriter(stdout))
}

// saveIgnored writes --ignore's paths into the recording's header (--save-ignore)
// and says so.
func saveIgnored(rec *record.Recording, a replayArgs, stderr io.Writer) error {
	if err := replay.SaveIgnored(rec, a.file, a.ignore); err != nil {
		return &exitError{code: exitServer, msg: err.Error()}
	}
	fmt.Fprintf(stderr, "mcpscope: %s ignores %s from now on\n", a.file, strings.Join(rec.Header.Ignore, ", "))
	return nil
}

// quoteAll quotes words for shellSplit.
func quoteAll(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return out
}
