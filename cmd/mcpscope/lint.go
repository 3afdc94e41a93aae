package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/inspect"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/termsafe"
	"github.com/mcpscope/mcpscope/lint"
	"github.com/mcpscope/mcpscope/pins"
	"github.com/mcpscope/mcpscope/surface"
	"github.com/mcpscope/mcpscope/tui"
	"github.com/mcpscope/mcpscope/workbench"
)

// lintArgs are lint's flags and what it lints.
type lintArgs struct {
	profiles string
	failOn   string
	budget   int
	top      int
	rules    bool
	noPins   bool
	strict   bool
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
	fs.BoolVar(&a.noPins, "no-pins", false, "neither pin a live server's surface nor compare it with its pin")
	fs.BoolVar(&a.strict, "strict-pins", false, "a definition changed since it was pinned is an error, not a warning")
	pos, argv, err := parse(fs, args, func([]string, string) bool { return false })
	if err != nil {
		return nil, a, err
	}
	if !slices.Contains(lint.Formats, c.format) {
		return nil, a, usageErr("--format %q: use %s", c.format, strings.Join(lint.Formats, ", "))
	}
	if !slices.Contains(lintFailOn, a.failOn) {
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

// lintFailOn is what lint's --fail-on takes (the table's, for completion too).
var lintFailOn = []string{"error", "warning", "none"}

// lintSource is one thing named to lint: a saved file, or a server to connect to.
type lintSource struct {
	file string
	f    surface.File
	srv  namedServer
}

// lintSources are what the command line names, in its order: the positionals (a
// file, or a URL, NAME or host), the command after --, then --server/--all.
func lintSources(ctx context.Context, c *common, a lintArgs) ([]lintSource, error) {
	var out []lintSource
	for _, spec := range a.specs {
		if f, ok := surface.ParseFile(spec); ok {
			out = append(out, lintSource{file: spec, f: f})
			continue
		}
		if strings.ContainsAny(spec, "/\\") && !client.IsURL(spec) || strings.HasSuffix(spec, ".json") || strings.HasSuffix(spec, ".jsonl") {
			return nil, usageErr("%s: no such file", spec)
		}
		src, err := c.sources()
		if err != nil {
			return nil, err
		}
		srv, err := c.givenTarget(ctx, src, spec)
		if err != nil {
			return nil, err
		}
		out = append(out, lintSource{srv: srv})
	}
	if len(a.argv) > 0 {
		out = append(out, lintSource{srv: commandServer(a.argv)})
	}
	if c.multi() {
		servers, err := c.namedServers(ctx, nil, nil)
		if err != nil {
			return nil, err
		}
		for _, srv := range servers {
			out = append(out, lintSource{srv: srv})
		}
	}
	uniqueNames(out, func(s *lintSource) *namedServer {
		if s.file != "" {
			return nil // a saved surface goes by the name it holds (fileServerName)
		}
		return &s.srv
	})
	return out, nil
}

// lintInputs loads every surface named, one after the other (their stderr and any
// login question do not mix), each under the name a host would give it; a live
// server's surface is compared with its pin (pinned on its first lint).
func lintInputs(ctx context.Context, c *common, a lintArgs, stderr io.Writer) ([]lint.Input, error) {
	sources, err := lintSources(ctx, c, a)
	if err != nil {
		return nil, err
	}
	var store *pins.Store
	if !a.noPins {
		if store, err = pins.Open(""); err != nil {
			return nil, err
		}
	}
	var in []lint.Input
	for _, src := range sources {
		var i lint.Input
		if src.file != "" {
			i.File = src.file
			if i.Surface, err = src.f.Load(src.file); err != nil {
				return nil, err
			}
			i.Name = fileServerName(src.file, i.Surface)
		} else {
			i.Name = src.srv.spec.Name
			if i.Surface, err = liveSurface(ctx, c, src.srv, src.srv.desc, stderr); err != nil {
				return nil, err
			}
			if i.Drift, err = pinDrift(store, src.srv, i.Surface, a.strict, stderr); err != nil {
				return nil, err
			}
		}
		for _, p := range i.Surface.Problems {
			fmt.Fprintf(stderr, "mcpscope: note: %s: %s\n", i.Surface.Label, p)
		}
		in = append(in, i)
	}
	return in, nil
}

// pinDrift compares a live server's surface with its pin (nil store: no pins), and
// pins it when it has none.
func pinDrift(store *pins.Store, srv namedServer, s *surface.Surface, strict bool, stderr io.Writer) (*lint.Drift, error) {
	if store == nil {
		return nil, nil
	}
	d, first, err := store.Check(srv.spec.Name, srv.desc, s, time.Now())
	if err != nil || d.Empty() {
		if first {
			fmt.Fprintf(stderr, "mcpscope: pinned %s's surface (%s); a later change is reported\n", termsafe.Line(srv.spec.Name), plural.Count(len(pins.Hashes(s)), "definition"))
		}
		return nil, err
	}
	return &lint.Drift{Pinned: d.Pinned.Format(time.RFC3339), Changed: d.Changed, Added: d.Added, Removed: d.Removed,
		Strict: strict, Accept: acceptCommand(srv)}, nil
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

// runPin is `mcpscope pin accept TARGET | NAME | -- CMD ARGS...`: connect, list the
// surface and pin it, replacing the pin lint compares with.
func runPin(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("pin", flag.ContinueOnError)
	var c common
	c.register(fs, "text")
	pos, argv, err := parse(fs, args, func([]string, string) bool { return false })
	if err != nil {
		return err
	}
	if len(pos) == 0 || pos[0] != "accept" {
		return usageErr("mcpscope pin accept TARGET|NAME [-- CMD ARGS...]: take a server's surface as it is now as its pin")
	}
	pos = pos[1:]
	var srv namedServer
	switch {
	case len(pos) == 1 && len(argv) == 0:
		src, err := c.sources()
		if err != nil {
			return err
		}
		if srv, err = c.givenTarget(ctx, src, pos[0]); err != nil {
			return err
		}
	case len(pos) == 0 && len(argv) > 0:
		srv = commandServer(argv)
	default:
		return usageErr("mcpscope pin accept TARGET|NAME [-- CMD ARGS...]: name one server")
	}
	s, err := liveSurface(ctx, &c, srv, srv.desc, stderr)
	if err != nil {
		return err
	}
	store, err := pins.Open("")
	if err != nil {
		return err
	}
	if err := store.Accept(srv.spec.Name, srv.desc, s, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "pinned %s: %s\n", termsafe.Line(srv.spec.Name), plural.Count(len(pins.Hashes(s)), "definition"))
	return nil
}

// acceptCommand is the command line that pins srv again: its name when the config
// names it, its URL, or its command after --.
func acceptCommand(srv namedServer) string {
	if len(srv.spec.Target.Argv) > 0 && srv.desc == strings.Join(srv.spec.Target.Argv, " ") {
		return "mcpscope pin accept -- " + srv.desc
	}
	if srv.spec.Target.URL != "" && srv.desc == srv.spec.Target.URL {
		return "mcpscope pin accept " + srv.desc
	}
	return "mcpscope pin accept " + srv.spec.Name
}

// inspectSurface is what --inspect listed, as a surface to compare with a pin: the
// tools, and the prompts and templates when the server offers them and they listed.
func inspectSurface(caps func(string) bool, list *client.ToolList, p *inspect.Primitives) *surface.Surface {
	s := &surface.Surface{Tools: list.Tools, HasTools: true}
	failed := strings.Join(p.Problems, "\n")
	if caps("prompts") && !strings.Contains(failed, "prompts/list failed") {
		s.HasPrompts = true
		for _, pr := range p.Prompts {
			s.Prompts = append(s.Prompts, surface.Item{Key: pr.Name, Raw: pr.Raw})
		}
	}
	if caps("resources") && !strings.Contains(failed, "resources/templates/list failed") {
		s.HasTemplates = true
		for _, t := range p.Templates {
			s.Templates = append(s.Templates, surface.Item{Key: t.URITemplate, Raw: t.Raw})
		}
	}
	return s
}

// pinsFor is how package pins knows each server of a workbench session (its name
// and target, as lint pins it) and the command that accepts its surface: the
// workbench compares each with its pin and marks the drift in its Changes view.
func pinsFor(servers []namedServer) map[string]tui.Pin {
	out := map[string]tui.Pin{}
	for _, s := range servers {
		if s.err == nil {
			out[s.spec.Name] = tui.Pin{Target: s.desc, Accept: acceptCommand(s)}
		}
	}
	return out
}

// pinOf is the workbench's pin identity of any server of its session, from its
// spec (tui.Options.PinOf): a server the command line named keeps pinsFor's; one
// added with :add gets the identity it would have had if it had been named at the
// start (a configured entry's description, a command line, a URL). Pure: the
// workbench calls it in Update, once per connection's tool list.
func pinOf(servers []namedServer, configured []namedServer) func(workbench.Spec) (tui.Pin, bool) {
	return func(sp workbench.Spec) (tui.Pin, bool) {
		for _, s := range servers {
			if s.err == nil && s.spec.Name == sp.Name && reflect.DeepEqual(s.spec.Target, sp.Target) {
				return tui.Pin{Target: s.desc, Accept: acceptCommand(s)}, true
			}
		}
		ns := namedServer{spec: sp}
		switch {
		case sp.Source == workbench.SourceConfig:
			i := slices.IndexFunc(configured, func(c namedServer) bool {
				return c.spec.Name == sp.Name && reflect.DeepEqual(c.spec.Target, sp.Target)
			})
			if i < 0 {
				return tui.Pin{}, false
			}
			ns = configured[i]
		case len(sp.Target.Argv) > 0:
			ns.desc = strings.Join(sp.Target.Argv, " ")
		case sp.Target.URL != "":
			ns.desc = sp.Target.URL
		default:
			return tui.Pin{}, false
		}
		return tui.Pin{Target: ns.desc, Accept: acceptCommand(ns)}, true
	}
}
