package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/termsafe"
	"github.com/mcpscope/mcpscope/lint"
	"github.com/mcpscope/mcpscope/surface"
)

// lintArgs are lint's flags and what it lints.
type lintArgs struct {
	profiles string
	failOn   string
	budget   int
	top      int
	rules    bool
	specs    []string
	argv     []string
}

// runLint is `mcpscope lint [TARGET | FILE ...] [-- CMD ARGS...]`.
func runLint(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, a, err := parseLint(args)
	if err != nil {
		return err
	}
	if a.rules {
		return writeRules(stdout)
	}
	var opts lint.Options
	if a.profiles != "all" {
		opts.Profiles = strings.Split(a.profiles, ",")
	}
	opts.Budget = a.budget
	in, err := lintInputs(ctx, c, a, stderr)
	if err != nil {
		return err
	}
	reports := lint.Run(in, opts)
	if isTerminal(stdout) && c.format == "json" {
		stdout = termsafe.NewWriter(stdout)
	}
	if err := lint.Write(stdout, c.format, reports, lint.WriteOptions{Top: a.top, FailOn: lint.Severity(a.failOn)}); err != nil {
		return err
	}
	if a.failOn != "none" {
		for _, r := range reports {
			if r.Fails(lint.Severity(a.failOn)) {
				return &exitError{code: exitServer, msg: ""}
			}
		}
	}
	return nil
}

func parseLint(args []string) (*common, lintArgs, error) {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	var c common
	c.register(fs, "text")
	var a lintArgs
	fs.StringVar(&a.profiles, "profile", "all", "rule groups: "+strings.Join(lint.Profiles, ",")+" or all")
	fs.StringVar(&a.failOn, "fail-on", "error", "error, warning or none")
	fs.IntVar(&a.budget, "budget", 0, "the most tokens a server's definitions may cost (0: no budget)")
	fs.IntVar(&a.top, "top", 10, "text: the heaviest N definitions of each server (0: all)")
	fs.BoolVar(&a.rules, "rules", false, "list every rule with its source, and exit")
	pos, argv, err := parse(fs, args, func([]string, string) bool { return false })
	if err != nil {
		return nil, a, err
	}
	if !slices.Contains(lint.Formats, c.format) {
		return nil, a, usageErr("--format %q: use %s", c.format, strings.Join(lint.Formats, ", "))
	}
	switch a.failOn {
	case "error", "warning", "none":
	default:
		return nil, a, usageErr("--fail-on %q: use error, warning or none", a.failOn)
	}
	if a.profiles != "all" {
		for _, p := range strings.Split(a.profiles, ",") {
			if !slices.Contains(lint.Profiles, p) {
				return nil, a, usageErr("--profile %q: use %s, or all", p, strings.Join(lint.Profiles, ", "))
			}
		}
	}
	if a.budget < 0 || a.top < 0 {
		return nil, a, usageErr("--budget and --top take a number of 0 or more")
	}
	a.specs, a.argv = pos, argv
	if !a.rules && len(pos) == 0 && len(argv) == 0 && !c.multi() {
		return nil, a, usageErr("mcpscope lint TARGET|FILE... [-- CMD ARGS...]: name what to lint: a saved --inspect file, a recording, a URL, a configured NAME, host, --server/--all, or a command after --")
	}
	return &c, a, nil
}

// lintInputs loads every surface named, one after the other (their stderr and any
// login question do not mix), each under the name a host would give it.
func lintInputs(ctx context.Context, c *common, a lintArgs, stderr io.Writer) ([]lint.Input, error) {
	var in []lint.Input
	add := func(name, file string, s *surface.Surface) {
		for _, p := range s.Problems {
			fmt.Fprintf(stderr, "mcpscope: note: %s: %s\n", s.Label, p)
		}
		in = append(in, lint.Input{Name: name, File: file, Surface: s})
	}
	for _, spec := range a.specs {
		if f, ok := surface.ParseFile(spec); ok {
			s, err := f.Load(spec)
			if err != nil {
				return nil, err
			}
			add(fileServerName(spec, s), spec, s)
			continue
		}
		if strings.ContainsAny(spec, "/\\") && !client.IsURL(spec) || strings.HasSuffix(spec, ".json") || strings.HasSuffix(spec, ".jsonl") {
			return nil, usageErr("%s: no such file", spec)
		}
		src, err := c.sources()
		if err != nil {
			return nil, err
		}
		srv, err := c.serverTarget(ctx, src, "server", spec)
		if err != nil {
			return nil, err
		}
		s, err := liveSurface(ctx, c, srv, spec, stderr)
		if err != nil {
			return nil, err
		}
		add(spec, "", s)
	}
	if len(a.argv) > 0 {
		srv := commandServer(a.argv)
		s, err := liveSurface(ctx, c, srv, strings.Join(a.argv, " "), stderr)
		if err != nil {
			return nil, err
		}
		add(srv.spec.Name, "", s)
	}
	if c.multi() {
		servers, err := c.namedServers(ctx, nil, nil)
		if err != nil {
			return nil, err
		}
		for _, srv := range servers {
			s, err := liveSurface(ctx, c, srv, srv.spec.Name, stderr)
			if err != nil {
				return nil, err
			}
			add(srv.spec.Name, "", s)
		}
	}
	return in, nil
}

// fileServerName is the name a saved surface's server goes by: the name its
// serverInfo gave (the first word of "name version"), or the file's.
func fileServerName(spec string, s *surface.Surface) string {
	if name, _, _ := strings.Cut(s.Server, " "); name != "" {
		return name
	}
	return strings.TrimSuffix(filepath.Base(spec), filepath.Ext(spec))
}

// writeRules lists every rule: id, profile, severity, what it checks, its source.
func writeRules(w io.Writer) error {
	var b strings.Builder
	for _, r := range lint.Rules() {
		fmt.Fprintf(&b, "%-38s %-11s %-7s %s\n  %s\n", r.ID, r.Provider, r.Severity, r.Checks, r.Source)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
