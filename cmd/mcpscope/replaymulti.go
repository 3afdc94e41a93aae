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
// RunServers). Every line of the text report starts with the server's name.
func replayServers(ctx context.Context, c *common, rec *record.Recording, a replayArgs, stdout, stderr io.Writer) error {
	names, only, err := replayedServers(c, rec, a, stderr)
	if err != nil {
		return err
	}
	runs, err := serverRuns(ctx, c, rec, a, names, only, stderr)
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

// replayedServers checks what the flags ask of a recording of several and says which
// servers replay, with the exchanges --only picks of each.
func replayedServers(c *common, rec *record.Recording, a replayArgs, stderr io.Writer) ([]string, map[string][]string, error) {
	names, _, err := serverSelection(c.naming.servers)
	switch {
	case err != nil:
		return nil, nil, err
	case !rec.Several():
		return nil, nil, usageErr("%s records one server; --server picks one of a recording of several (replay it without --server)", a.file)
	case len(names) == 0:
		names = rec.ServerNames()
	}
	if len(a.argv) > 0 && len(names) != 1 {
		return nil, nil, usageErr("%s records %d servers (%s); a command or URL after -- replaces one: add --server NAME", a.file, len(rec.Header.Servers), strings.Join(rec.ServerNames(), ", "))
	}
	if a.update {
		return nil, nil, usageErr("--update is not supported yet for a recording of several servers")
	}
	if c.recordSet {
		return nil, nil, usageErr("--record is not supported yet when replaying a recording of several servers")
	}
	if len(a.only) == 0 {
		return names, nil, nil
	}
	only, skipped, err := replay.OnlyByServer(rec, names, a.only)
	if err != nil || len(skipped) == 0 {
		return names, only, err
	}
	fmt.Fprintf(stderr, "mcpscope: --only names no exchange of %s; not replayed\n", strings.Join(skipped, ", "))
	kept := names[:0:0]
	for _, n := range names {
		if len(only[n]) > 0 {
			kept = append(kept, n)
		}
	}
	return kept, only, nil
}

// serverRuns builds each server's target (--server NAME=TARGET, a command after --,
// or the recorded one) and client options (its recorded framing unless --framing is
// given; --trace with its name on each line), before any of them runs: a server that
// cannot be replayed is said before the others take their time.
func serverRuns(ctx context.Context, c *common, rec *record.Recording, a replayArgs, names []string, only map[string][]string, stderr io.Writer) ([]replay.ServerRun, error) {
	_, targets, _ := serverSelection(c.naming.servers) // checked by replayedServers
	if len(a.argv) > 0 {
		targets[names[0]] = strings.Join(quoteAll(a.argv), " ")
	}
	src, err := c.sources()
	if err != nil {
		return nil, err
	}
	red, _, err := c.redactor()
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var runs []replay.ServerRun
	for _, name := range names {
		sub, err := rec.ForServer(name)
		if err != nil {
			return nil, usageErr("%s: %v", a.file, err)
		}
		var target client.Target
		if t, ok := targets[name]; ok {
			srv, err := c.serverTarget(ctx, src, name, t)
			if err != nil {
				return nil, err
			}
			target = srv.spec.Target
		} else if target, err = recordedTarget(a.file, name, sub.Header.Target, stderr); err != nil {
			return nil, err
		}
		cc := *c
		if !a.framingGiven && sub.Header.Target.Framing != "" {
			cc.framing = sub.Header.Target.Framing
		}
		if target.URL == "" {
			warnMissingEnv(&cc, sub.Header.Target.Env, stderr)
		}
		cc.trace = false
		tap := &wire.Tap{}
		if c.trace {
			tap.Listen(traceListener(prefixWriter{&mu, stderr, "[" + name + "] "}))
		}
		opts, err := cc.options(tap, stderr)
		if err != nil {
			return nil, err
		}
		runs = append(runs, replay.ServerRun{Name: name, Target: target, Options: replay.Options{
			Client: opts, Ignore: a.ignore, StrictOrder: a.strict, Redact: red, Timeout: c.remote.timeout,
			Only: only[name],
		}})
	}
	return runs, nil
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

// saveIgnored adds --ignore's paths to the recording's header (--save-ignore) and
// writes it.
func saveIgnored(rec *record.Recording, a replayArgs, stderr io.Writer) error {
	rec.AddIgnore(a.ignore)
	if err := rec.Save(a.file); err != nil {
		return &exitError{code: exitServer, msg: fmt.Sprintf("replay: writing %s: %v", a.file, err)}
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

// serveOne is the recording serve answers from: of a recording of several, the one
// server --server names.
func serveOne(rec *record.Recording, file, server string) (*record.Recording, error) {
	if !rec.Several() {
		if server != "" {
			return nil, usageErr("%s records one server; drop --server", file)
		}
		return rec, nil
	}
	if server == "" {
		return nil, usageErr("%s records %d servers; serve one: mcpscope serve %s --server NAME (%s)", file, len(rec.Header.Servers), file, strings.Join(rec.ServerNames(), ", "))
	}
	sub, err := rec.ForServer(server)
	if err != nil {
		return nil, usageErr("%s: %v", file, err)
	}
	return sub, nil
}
