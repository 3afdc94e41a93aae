package main

import (
	"context"
	"flag"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/check"
	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// checkArgs are check's flags and what it checks.
type checkArgs struct {
	failOn      string
	include     multiFlag
	allTools    bool
	dryRun      bool
	callTimeout time.Duration
	specs       []string
	argv        []string
}

// runCheck is `mcpscope check [TARGET ...] [-- CMD ARGS...]`: each target's report,
// one after the other (their processes and stderr do not mix).
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, a, err := parseCheck(args)
	if err != nil {
		return err
	}
	servers, err := checkServers(ctx, c, a)
	if err != nil {
		return err
	}
	var reports []check.Report
	for _, srv := range servers {
		connect, stop := checkConnect(c, srv, stderr)
		reports = append(reports, check.Run(ctx, check.Options{
			Name:        srv.spec.Name,
			Desc:        srv.desc,
			Target:      srv.spec.Target,
			Connect:     connect,
			Include:     a.include,
			AllTools:    a.allTools,
			DryRun:      a.dryRun,
			CallTimeout: a.callTimeout,
		}))
		stop()
	}
	if isTerminal(stdout) && c.format != "text" {
		stdout = termsafe.NewWriter(stdout)
	}
	failOn := check.Status(a.failOn)
	if err := check.Write(stdout, c.format, reports, failOn); err != nil {
		return err
	}
	for _, r := range reports {
		if r.Fails(failOn) {
			return &exitError{code: exitServer, msg: ""}
		}
	}
	return nil
}

// checkFailOn is what check's --fail-on takes (the table's, for completion too).
var checkFailOn = []string{"fail", "warn"}

func parseCheck(args []string) (*common, checkArgs, error) {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	var c common
	c.register(fs, "text")
	var a checkArgs
	fs.StringVar(&a.failOn, "fail-on", "fail", "exit 1 on a check that fails, or also on one that warns: fail or warn")
	fs.Var(&a.include, "include", "give this tool negative cases although it is not marked read-only (repeatable)")
	fs.BoolVar(&a.allTools, "all-tools", false, "give every tool negative cases, read-only or not (they are called)")
	fs.BoolVar(&a.dryRun, "dry-run", false, "send no tools/call: list what the checks that call tools would send")
	fs.DurationVar(&a.callTimeout, "call-timeout", 30*time.Second, "a call with no answer in this time fails its case, and the server gets a new session")
	pos, argv, err := parse(fs, args, func([]string, string) bool { return false })
	if err != nil {
		return nil, a, err
	}
	if !slices.Contains(check.Formats, c.format) {
		return nil, a, usageErr("--format %q: use %s", c.format, strings.Join(check.Formats, ", "))
	}
	if !slices.Contains(checkFailOn, a.failOn) {
		return nil, a, usageErr("--fail-on %q: use fail or warn", a.failOn)
	}
	if a.callTimeout <= 0 {
		return nil, a, usageErr("--call-timeout %s: give a duration above 0, e.g. 30s", a.callTimeout)
	}
	a.specs, a.argv = pos, argv
	if len(pos) == 0 && len(argv) == 0 && !c.multi() {
		return nil, a, usageErr("mcpscope check TARGET... [-- CMD ARGS...]: name what to check: a URL, a configured NAME, host, --server/--all, or a command after --")
	}
	return &c, a, nil
}

// checkServers are the servers the command line names, in its order: the
// positionals (a URL, NAME or host), the command after --, then --server/--all.
func checkServers(ctx context.Context, c *common, a checkArgs) ([]namedServer, error) {
	var out []namedServer
	for _, spec := range a.specs {
		src, err := c.sources()
		if err != nil {
			return nil, err
		}
		srv, err := c.givenTarget(ctx, src, spec)
		if err != nil {
			return nil, err
		}
		out = append(out, srv)
	}
	if len(a.argv) > 0 {
		out = append(out, commandServer(a.argv))
	}
	if c.multi() {
		servers, err := c.namedServers(ctx, nil, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, servers...)
	}
	uniqueNames(out, func(s *namedServer) *namedServer { return s })
	return out, nil
}

// maxStartLines bounds what a check keeps of a server's stdout noise and stderr.
const maxStartLines = 50

// checkConnect opens a new session on srv each time it is called (check calls it
// again after a case that ended the server), keeping what the process printed
// until the handshake ended: the reach step reports it. Every session of srv goes
// through one tap, so that --record holds the whole run of it; stop ends the
// recording.
func checkConnect(c *common, srv namedServer, stderr io.Writer) (connect func(context.Context) (*check.Conn, error), stop func()) {
	tap := &wire.Tap{}
	end := func() {} // the recording's stop, once it started
	recording := false
	return func(ctx context.Context) (*check.Conn, error) {
		if srv.err != nil {
			return nil, srv.err
		}
		sess, err := c.withTimeout(srv.spec).session(stderr)
		if err != nil {
			return nil, err
		}
		if !recording {
			if end, err = startRecording(c, srv.spec.Target, tap); err != nil {
				end = func() {}
				return nil, err
			}
			recording = true
		}
		var mu sync.Mutex
		var noise, errs []string
		var noiseTotal, errsTotal int
		keep := func(l []string, s string) []string {
			if len(l) == maxStartLines {
				l = l[1:]
			}
			return append(l, s)
		}
		remove := tap.Listen(func(e wire.Event) {
			mu.Lock()
			defer mu.Unlock()
			switch e.Kind {
			case wire.KindNoise:
				noise = keep(noise, string(e.Data))
				noiseTotal++
			case wire.KindStderr:
				errs = keep(errs, string(e.Data))
				errsTotal++
			}
		})
		s, err := client.Connect(ctx, srv.spec.Target, sess.ClientFor(srv.spec, tap))
		remove()
		if err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		return &check.Conn{Session: s, Noise: noise, Stderr: errs, NoiseTotal: noiseTotal, StderrTotal: errsTotal, Close: func() { s.Close() }}, nil
	}, func() { end() }
}
