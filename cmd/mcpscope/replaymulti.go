package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/plural"
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

// onlyByServer splits --only among the servers replayed: each name goes to the
// servers whose exchanges it picks (SERVER/NAME to that one). A name that picks no
// exchange of any of them is a usage error that lists what each server has; a
// server that no name picks is left out (said in skipped).
func onlyByServer(rec *record.Recording, names []string, only []string) (map[string][]string, []string, error) {
	subs := map[string]*record.Recording{}
	for _, n := range names {
		sub, err := rec.ForServer(n)
		if err != nil {
			return nil, nil, usageErr("%v", err)
		}
		subs[n] = sub
	}
	out := map[string][]string{}
	var missing []string
	for _, o := range only {
		server, name, qualified := strings.Cut(o, "/")
		found := false
		for _, n := range names {
			if qualified && n != server {
				continue
			}
			look := o
			if qualified {
				look = name
			}
			if replay.MatchesOnly(subs[n], look) {
				out[n] = append(out[n], look)
				found = true
			}
		}
		if !found {
			missing = append(missing, o)
		}
	}
	if len(missing) > 0 {
		var has []string
		for _, n := range names {
			list := replay.OnlyNames(subs[n])
			if len(list) > 20 {
				list = append(list[:20], "…")
			}
			has = append(has, fmt.Sprintf("%s: %s", n, strings.Join(list, ", ")))
		}
		return nil, nil, usageErr("--only %s: no exchange of the servers replayed has that id or names that tool (SERVER/NAME picks one server's); they have: %s", strings.Join(missing, ", "), strings.Join(has, "; "))
	}
	var skipped []string
	for _, n := range names {
		if len(out[n]) == 0 {
			skipped = append(skipped, n)
		}
	}
	return out, skipped, nil
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

// recordedTarget is the target a recording's header names, or why it cannot be used.
func recordedTarget(file, server string, t record.Target, stderr io.Writer) (client.Target, error) {
	give := fmt.Sprintf("mcpscope replay %s -- ", file)
	if server != "" {
		give = fmt.Sprintf("mcpscope replay %s --server %s=", file, server)
	}
	if t.Transport == "http" {
		if t.URL == "" || strings.Contains(t.URL, record.Redacted) {
			return client.Target{}, usageErr("%s: %s was recorded over HTTP and its URL is not usable; give one: %sURL", file, orOne(server), give)
		}
		return client.Target{URL: t.URL}, nil
	}
	if len(t.Argv) == 0 {
		return client.Target{}, usageErr("%s: %s has no server command; give one: %sCMD", file, orOne(server), give)
	}
	for _, a := range t.Argv {
		if strings.Contains(a, record.Redacted) {
			fmt.Fprintf(stderr, "mcpscope: note: the recorded command of %s has a redacted argument; give it with %s'CMD ARGS' if the server needs it\n", orOne(server), give)
			break
		}
	}
	return client.Target{Argv: record.LiveArgv(t.Argv), Dir: t.Dir}, nil
}

func orOne(server string) string {
	if server == "" {
		return "the recording"
	}
	return fmt.Sprintf("server %q", server)
}

// serverReport is one server's part of the replay report.
type serverReport struct {
	Server string         `json:"server"`
	Report *replay.Report `json:"report"`
}

// replayServers replays a recording of several servers: each one (or those named
// with --server) against its recorded target, one after the other. Every line of the
// text report starts with the server's name, so a difference names its server.
func replayServers(ctx context.Context, c *common, rec *record.Recording, a replayArgs, stdout, stderr io.Writer) error {
	names, targets, err := serverSelection(c.naming.servers)
	if err != nil {
		return err
	}
	if !rec.Several() {
		return usageErr("%s records one server; --server picks one of a recording of several (replay it without --server)", a.file)
	}
	if len(names) == 0 {
		names = rec.ServerNames()
	}
	if len(a.argv) > 0 {
		if len(names) != 1 {
			return usageErr("%s records %d servers (%s); a command or URL after -- replaces one: add --server NAME", a.file, len(rec.Header.Servers), strings.Join(rec.ServerNames(), ", "))
		}
		targets[names[0]] = strings.Join(quoteAll(a.argv), " ")
	}
	if a.update {
		return usageErr("--update is not supported yet for a recording of several servers")
	}
	if c.recordSet {
		return usageErr("--record is not supported yet when replaying a recording of several servers")
	}
	var only map[string][]string
	if len(a.only) > 0 {
		var skipped []string
		if only, skipped, err = onlyByServer(rec, names, a.only); err != nil {
			return err
		}
		if len(skipped) > 0 {
			fmt.Fprintf(stderr, "mcpscope: --only names no exchange of %s; not replayed\n", strings.Join(skipped, ", "))
			kept := names[:0:0]
			for _, n := range names {
				if len(only[n]) > 0 {
					kept = append(kept, n)
				}
			}
			names = kept
		}
	}
	src, err := c.sources()
	if err != nil {
		return err
	}
	var reports []serverReport
	failed := map[string]*replay.Report{}
	var mu sync.Mutex
	for _, name := range names {
		sub, err := rec.ForServer(name)
		if err != nil {
			return usageErr("%s: %v", a.file, err)
		}
		var target client.Target
		if t, ok := targets[name]; ok {
			srv, err := c.serverTarget(ctx, src, name, t)
			if err != nil {
				return err
			}
			target = srv.spec.Target
		} else if target, err = recordedTarget(a.file, name, sub.Header.Target, stderr); err != nil {
			return err
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
			return err
		}
		red, _, err := cc.redactor()
		if err != nil {
			return err
		}
		report, err := replay.Run(ctx, sub, target, replay.Options{
			Client: opts, Ignore: a.ignore, StrictOrder: a.strict, Redact: red, Timeout: c.remote.timeout,
			Only: only[name],
		})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("server %q: %w", name, err)
		}
		reports = append(reports, serverReport{Server: name, Report: report})
		if !report.OK() {
			failed[name] = report
		}
	}
	if c.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"servers": reports}); err != nil {
			return err
		}
	} else {
		for _, r := range reports {
			r.Report.WriteText(prefixWriter{&mu, termsafe.NewWriter(stdout), r.Server + ": "})
		}
	}
	if a.saveIgnore {
		for _, p := range a.ignore {
			if !slices.Contains(rec.Header.Ignore, p) {
				rec.Header.Ignore = append(rec.Header.Ignore, p)
			}
		}
		if err := rec.Save(a.file); err != nil {
			return &exitError{code: exitServer, msg: fmt.Sprintf("replay: writing %s: %v", a.file, err)}
		}
		fmt.Fprintf(stderr, "mcpscope: %s ignores %s from now on\n", a.file, strings.Join(rec.Header.Ignore, ", "))
	}
	if len(failed) > 0 {
		var parts []string
		for _, r := range reports {
			if f := failed[r.Server]; f != nil {
				parts = append(parts, fmt.Sprintf("server %q in %d of %s", r.Server, len(f.Failures), plural.Count(f.Replayed, "exchange")))
			}
		}
		return &exitError{code: exitServer, msg: fmt.Sprintf("%s differs from the live servers: %s", a.file, strings.Join(parts, "; "))}
	}
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
