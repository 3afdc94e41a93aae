package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mcpscope/mcpscope/internal/termsafe"
	"github.com/mcpscope/mcpscope/lint"
	"github.com/mcpscope/mcpscope/surface"
)

const diffUsage = `mcpscope diff A B: compare two tool surfaces and classify every change
A and B: a saved "mcpscope --inspect --format json" file, a recording (FILE, or
FILE#SERVER for a recording of several), a URL, a configured server NAME, host (the
bundled host), or, for B only, a command after "--":
  mcpscope diff testdata/tools.json -- ./my-server
Flags: --format text|json|markdown|junit, --fail-on breaking|any|none and/or
budget:+N% or budget:+N (B's definitions may grow by at most N percent of A's
tokens, or N tokens: --fail-on breaking,budget:+10%), --no-diff,
and the connection flags of --inspect (-e, --bearer, -H, --config, ...).
Exit codes: 0 nothing that --fail-on counts changed, 1 it did (or a server failed),
2 usage error (including two things without a tool surface, and a file that
holds none).`

// diffArgs are diff's flags and the two sides it compares.
type diffArgs struct {
	failOn string
	budget *surface.Budget // --fail-on budget:…
	noDiff bool
	specs  []string // A and B; "" for B: the command after --
	argv   []string
}

// runDiff is `mcpscope diff A B`.
func runDiff(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, a, err := parseDiff(args)
	if err != nil {
		return err
	}
	if side := isServerJSONSide(a.specs); side >= 0 {
		return runDeclaredDiff(ctx, c, a, side, stdout, stderr) // registry.go
	}
	surfaces, err := loadSides(ctx, c, a, stderr)
	if err != nil {
		return err
	}
	r := surface.Compare(surfaces[0], surfaces[1])
	r.FailOn = a.failOn
	if a.budget != nil {
		r.Budget = judgeBudget(a.budget, surfaces, r.Compared)
	}
	if len(r.Compared) == 0 {
		return usageErr("nothing to compare: %s and %s have no kind of object in common (tools, resources, templates, prompts)", surfaces[0].Label, surfaces[1].Label)
	}
	if isTerminal(stdout) && c.format == surface.FormatJSON {
		stdout = termsafe.NewWriter(stdout)
	}
	if err := surface.Write(stdout, c.format, r, !a.noDiff); err != nil {
		return err
	}
	if r.Fails(a.failOn) {
		return &exitError{code: exitServer, msg: ""}
	}
	return nil
}

// diffFormats are --format's words for diff, each to the format it names.
var diffFormats = map[string]string{
	surface.FormatText: surface.FormatText, "table": surface.FormatText,
	surface.FormatJSON: surface.FormatJSON, surface.FormatMarkdown: surface.FormatMarkdown,
	"md": surface.FormatMarkdown, surface.FormatJUnit: surface.FormatJUnit,
}

// parseDiff reads diff's flags and its two sides.
// diffFailOn is the words diff's --fail-on takes beside budget:… (for completion;
// surface.ParseFailOn reads them).
var diffFailOn = []string{"breaking", "any", "none"}

func parseDiff(args []string) (*common, diffArgs, error) {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	var c common
	c.register(fs, surface.FormatText)
	var a diffArgs
	fs.StringVar(&a.failOn, "fail-on", "breaking", "breaking, any or none, and/or budget:+N% or budget:+N (tokens B may add over A): breaking,budget:+10%")
	fs.BoolVar(&a.noDiff, "no-diff", false, "text: leave out the JSON diff of each changed object")
	pos, argv, err := parse(fs, args, func([]string, string) bool { return false })
	if err != nil {
		return nil, a, err
	}
	format, ok := diffFormats[c.format]
	if !ok {
		return nil, a, usageErr("--format %q: use text, json, markdown or junit", c.format)
	}
	c.format = format
	if a.failOn, a.budget, err = surface.ParseFailOn(a.failOn); err != nil {
		return nil, a, usageErr("%v", err)
	}
	if c.multi() {
		return nil, a, usageErr("diff compares two surfaces: name A and B as positionals (a file, a URL, a NAME) or B after --, not with --server or --all")
	}
	switch {
	case len(pos) == 2 && argv == nil:
		a.specs = pos
	case len(pos) == 1 && len(argv) > 0:
		a.specs, a.argv = append(pos, ""), argv
	default:
		return nil, a, usageErr("%s", diffUsage)
	}
	return &c, a, nil
}

// loadSides loads both surfaces (surface.LoadSides: files beside the other side, live
// servers one after the other, connected with c's flags) and notes each side's
// problems on stderr.
func loadSides(ctx context.Context, c *common, a diffArgs, stderr io.Writer) ([2]*surface.Surface, error) {
	labels := [2]string{}
	if a.specs[1] == "" {
		labels[1] = strings.Join(a.argv, " ")
	}
	surfaces, errs := surface.LoadSides(ctx, [2]string(a.specs), labels, func(ctx context.Context, spec, label string) (*surface.Surface, error) {
		srv, err := liveServer(ctx, c, a, spec)
		if err != nil {
			return nil, err
		}
		return liveSurface(ctx, c, srv, label, stderr)
	})
	for i, s := range surfaces {
		if err := errs[i]; err != nil {
			if errors.Is(err, surface.ErrNoSurface) {
				return surfaces, usageErr("%v", err)
			}
			return surfaces, err
		}
		for _, p := range s.Problems {
			fmt.Fprintf(stderr, "mcpscope: note: %s: %s\n", s.Label, p)
		}
	}
	return surfaces, nil
}

// liveServer is a live side: the command after "--" (spec ""), or a URL, a config
// name or host.
func liveServer(ctx context.Context, c *common, a diffArgs, spec string) (namedServer, error) {
	if spec == "" {
		return commandServer(a.argv), nil
	}
	src, err := c.sources()
	if err != nil {
		return namedServer{}, err
	}
	return c.givenTarget(ctx, src, spec)
}

// liveSurface connects to a server and lists its surface.
func liveSurface(ctx context.Context, c *common, srv namedServer, label string, stderr io.Writer) (*surface.Surface, error) {
	if srv.err != nil {
		return nil, srv.err
	}
	s, done, err := connect(ctx, c.withTimeout(srv.spec), srv.spec.Target, stderr)
	if err != nil {
		return nil, err
	}
	defer done()
	return surface.FromSession(ctx, s, label)
}

// judgeBudget counts both sides' definitions (lint's measure, in tokens) over the
// kinds both know, and judges the new side against the budget.
func judgeBudget(b *surface.Budget, sides [2]*surface.Surface, compared []string) *surface.Budget {
	var tot [2]lint.Cost
	for i, s := range sides {
		only := &surface.Surface{Server: s.Server}
		for _, k := range compared {
			switch k {
			case "tools":
				only.Tools = s.Tools
			case "templates":
				only.Templates = s.Templates
			case "prompts":
				only.Prompts = s.Prompts
			}
		}
		_, tot[i] = lint.Measure(only, true)
	}
	b.Tokenizer = lint.TokenizerName
	for _, k := range compared {
		if k != "resources" { // a resource's listing is not a definition a model is sent
			b.Counted = append(b.Counted, k)
		}
	}
	b.Judge(tot[0].Tokens, tot[1].Tokens, tot[0].Bytes, tot[1].Bytes)
	return b
}
