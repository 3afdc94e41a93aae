package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/mcpscope/mcpscope/app"
	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/readfile"
	"github.com/mcpscope/mcpscope/internal/termsafe"
	"github.com/mcpscope/mcpscope/registry"
)

// runRegistry is `mcpscope registry search|show`.
func runRegistry(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	switch first(args) {
	case "--help", "-help", "-h":
		return &helpError{flag.NewFlagSet("registry", flag.ContinueOnError)}
	case "search":
		return runRegistrySearch(ctx, args[1:], stdout, stderr)
	case "show":
		return runRegistryShow(ctx, args[1:], stdout, stderr)
	case "":
		return usageErr("registry: say what to do: mcpscope registry search QUERY, or mcpscope registry show NAME")
	}
	msg := fmt.Sprintf("registry: no command %q; use search or show", args[0])
	if s := closest(args[0], []string{"search", "show"}); s != "" {
		msg += " (did you mean " + s + "?)"
	}
	return usageErr("%s", msg)
}

// registryFlags are the flags every registry command has.
type registryFlags struct {
	url    string
	format string
}

func (f *registryFlags) register(fs *flag.FlagSet, format string) {
	fs.StringVar(&f.url, "registry", "", "the registry's base `URL` (default: $"+registry.EnvRegistry+", else "+registry.Official+")")
	fs.StringVar(&f.format, "format", format, "")
}

func (f *registryFlags) client() (*registry.Client, error) {
	base, err := registry.BaseURL(f.url)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return &registry.Client{Base: base, UserAgent: "mcpscope/" + client.Version}, nil
}

// registryParse reads a registry command's flags and its one positional (what).
func registryParse(fs *flag.FlagSet, args []string, f *registryFlags, formats []string, what string) (string, error) {
	pos, argv, err := parse(fs, args, func([]string, string) bool { return false })
	if err != nil {
		return "", err
	}
	if len(argv) > 0 || len(pos) > 1 {
		return "", usageErr("%s takes one %s, got %q", fs.Name(), what, strings.Join(append(pos, argv...), " "))
	}
	if !slices.Contains(formats, f.format) {
		return "", usageErr("--format %q: use %s", f.format, strings.Join(formats, " or "))
	}
	if len(pos) == 0 {
		return "", nil
	}
	return pos[0], nil
}

// runRegistrySearch is `mcpscope registry search QUERY`.
func runRegistrySearch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("registry search", flag.ContinueOnError)
	var f registryFlags
	f.register(fs, "table")
	all := fs.Bool("all", false, "list deprecated and deleted servers too, each with its status")
	query, err := registryParse(fs, args, &f, []string{"table", "json"}, "QUERY")
	if err != nil {
		return err
	}
	c, err := f.client()
	if err != nil {
		return err
	}
	entries, more, err := c.Search(ctx, query, *all)
	if err != nil {
		return err
	}
	if more {
		fmt.Fprintf(stderr, "mcpscope: note: the registry has more than %d pages of matches; narrow the query\n", registry.MaxPages)
	}
	if f.format == "json" {
		type remote struct {
			Type string `json:"type"`
			URL  string `json:"url"`
		}
		type row struct {
			Name        string   `json:"name"`
			Version     string   `json:"version"`
			Status      string   `json:"status"`
			Description string   `json:"description"`
			Packages    []string `json:"packages"`
			Remotes     []remote `json:"remotes"`
		}
		doc := struct {
			Registry string `json:"registry"`
			Query    string `json:"query"`
			Servers  []row  `json:"servers"`
		}{Registry: c.Base, Query: query, Servers: []row{}}
		for _, e := range entries {
			r := row{Name: e.Server.Name, Version: e.Server.Version, Status: status(e), Description: e.Server.Description, Packages: e.PackageTypes(), Remotes: []remote{}}
			if r.Packages == nil {
				r.Packages = []string{}
			}
			for _, t := range e.Server.Remotes {
				r.Remotes = append(r.Remotes, remote{t.Type, t.URL})
			}
			doc.Servers = append(doc.Servers, r)
		}
		if isTerminal(stdout) {
			stdout = termsafe.NewWriter(stdout)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	// What a registry says is shown, never interpreted by the terminal.
	safe := termsafe.Line
	if len(entries) == 0 {
		what := "active servers"
		if *all {
			what = "servers"
		}
		fmt.Fprintf(stdout, "No %s match %q in %s.\n", what, safe(query), safe(c.Base))
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tSTATUS\tPACKAGES\tREMOTES")
	for _, e := range entries {
		var remotes []string
		for _, t := range e.Server.Remotes {
			remotes = append(remotes, t.Type+" "+t.URL)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", safe(e.Server.Name), safe(e.Server.Version), safe(status(e)),
			safe(orDash(strings.Join(e.PackageTypes(), ","))), safe(orDash(strings.Join(remotes, ", "))))
	}
	tw.Flush()
	fmt.Fprintf(stdout, "\n%s in %s. Run one with: mcpscope --server NAME=registry:%s\n", plural.Count(len(entries), "server"), safe(c.Base), safe(entries[0].Server.Name))
	return nil
}

func status(e registry.Entry) string {
	if e.Status == "" {
		return "active"
	}
	return e.Status
}

// runRegistryShow is `mcpscope registry show NAME[@VERSION]`: the entry, what each of
// its packages and remotes would run, and what each asks for. It runs nothing and
// prints no value of the environment.
func runRegistryShow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("registry show", flag.ContinueOnError)
	var f registryFlags
	f.register(fs, "text")
	ref, err := registryParse(fs, args, &f, []string{"text", "json"}, "NAME[@VERSION]")
	if err != nil {
		return err
	}
	if ref == "" {
		return usageErr("registry show needs a NAME (mcpscope registry search finds it)")
	}
	name, version, _, err := registry.ParseRef(strings.TrimPrefix(ref, app.RegistryPrefix))
	if err != nil {
		return usageErr("%v", err)
	}
	c, err := f.client()
	if err != nil {
		return err
	}
	e, err := c.Get(ctx, name, version)
	if err != nil {
		return err
	}
	type choice struct {
		Kind  string   `json:"kind"`
		Argv  []string `json:"argv,omitempty"`
		URL   string   `json:"url,omitempty"`
		Needs []string `json:"needs,omitempty"`
		Error string   `json:"error,omitempty"`
	}
	var choices []choice
	kinds := slices.Clone(e.PackageTypes())
	if len(e.Server.Remotes) > 0 {
		kinds = append(kinds, "remote")
	}
	for _, k := range kinds {
		ch := choice{Kind: k}
		p, r, err := registry.Choose(e.Server, k)
		if err == nil {
			// Placeholders, not values: show never reads the environment.
			v := registry.Values{}
			for _, n := range registry.Needs(p, r) {
				ch.Needs = append(ch.Needs, needText(n))
				if n.Default == "" {
					v[n.Key] = "$" + n.Label
				}
			}
			var l registry.Launch
			if l, err = registry.Resolve(e.Server, p, r, v); err == nil {
				ch.Argv, ch.URL = l.Argv, l.URL
			}
		}
		if err != nil {
			ch.Error = err.Error()
		}
		choices = append(choices, ch)
	}
	if f.format == "json" {
		if isTerminal(stdout) {
			stdout = termsafe.NewWriter(stdout)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"registry": c.Base, "name": e.Server.Name, "version": e.Server.Version,
			"status": status(e), "description": e.Server.Description, "run": choices})
	}
	safe := termsafe.Line
	fmt.Fprintf(stdout, "%s %s (%s)\n  %s\n", safe(e.Server.Name), safe(e.Server.Version), safe(status(e)), safe(e.Server.Description))
	if e.StatusMessage != "" {
		fmt.Fprintf(stdout, "  status: %s\n", safe(e.StatusMessage))
	}
	for _, ch := range choices {
		fmt.Fprintf(stdout, "\n#%s\n", safe(ch.Kind))
		switch {
		case ch.Error != "":
			fmt.Fprintf(stdout, "  cannot run: %s\n", safe(ch.Error))
		case ch.URL != "":
			fmt.Fprintf(stdout, "  url: %s\n", safe(ch.URL))
		default:
			fmt.Fprintf(stdout, "  command: %s\n", safe(strings.Join(ch.Argv, " ")))
		}
		for _, n := range ch.Needs {
			fmt.Fprintf(stdout, "  needs %s\n", safe(n))
		}
	}
	fmt.Fprintf(stdout, "\nRun it with: mcpscope --server NAME=registry:%s[#TYPE]\n", safe(e.Server.Name))
	return nil
}

// needText is one input for people: its kind and name, required or secret, and its
// description.
func needText(n registry.Need) string {
	kind, _, _ := strings.Cut(n.Key, ":")
	s := map[string]string{"env": "environment variable", "header": "header", "arg": "argument", "var": "URL variable"}[kind] + " " + n.Label
	var tags []string
	if n.IsRequired {
		tags = append(tags, "required")
	}
	if n.IsSecret {
		tags = append(tags, "secret")
	}
	if n.Default != "" {
		tags = append(tags, "default "+n.Default)
	}
	if len(tags) > 0 {
		s += " (" + strings.Join(tags, ", ") + ")"
	}
	if n.Description != "" {
		s += ": " + n.Description
	}
	return s
}

// isServerJSONSide tells which side of diff is a server.json (0 or 1), or -1.
func isServerJSONSide(specs []string) int {
	for i, s := range specs {
		if s != "" && app.IsServerJSON(s) {
			return i
		}
	}
	return -1
}

// declaredField is one thing server.json declares that a server also says.
type declaredField struct {
	Field    string `json:"field"`
	Declared string `json:"declared"`
	Offered  string `json:"offered"`
	Verdict  string `json:"verdict"` // same, differs, or note (a difference that fails nothing)
	Why      string `json:"why,omitempty"`
}

// runDeclaredDiff is `mcpscope diff server.json -- CMD` (or server.json against a
// URL, NAME or host): what server.json declares against what the server offers. A
// server.json (schema 2025-12-11) declares no tools, prompts or resources; what is
// comparable is the name, the version (the schema calls it the equivalent of the
// server's Implementation.version), the title, the website and the transport.
func runDeclaredDiff(ctx context.Context, c *common, a diffArgs, side int, stdout, stderr io.Writer) error {
	file := a.specs[side]
	if c.format != "text" && c.format != "json" {
		return usageErr("--format %s: a server.json against a server is written as text or json", c.format)
	}
	if a.specs[1-side] != "" && isServerJSONSide(a.specs[1-side:2-side]) == 0 {
		return usageErr("diff %s %s: two server.json files declare; give a server to compare one with (-- CMD, a URL, a NAME)", file, a.specs[1-side])
	}
	data, err := readfile.Read(file, registry.MaxServerJSON)
	if err != nil {
		return usageErr("%v", err)
	}
	decl, err := registry.Validate(file, data)
	if err != nil {
		return usageErr("%v", err)
	}
	other := a.specs[1-side]
	label := other
	if other == "" {
		label = strings.Join(a.argv, " ")
	}
	srv, err := liveServer(ctx, c, a, other)
	if err != nil {
		return err
	}
	if srv.err != nil {
		return srv.err
	}
	s, done, err := connect(ctx, c.withTimeout(srv.spec), srv.spec.Target, stderr)
	if err != nil {
		return err
	}
	defer done()
	info := s.Info()
	var tools []string
	if tl, err := s.Tools(ctx); err == nil {
		for _, t := range tl.Tools {
			tools = append(tools, t.Name)
		}
	}
	fields := declaredFields(decl, info)
	failed := false
	for _, f := range fields {
		failed = failed || f.Verdict == "differs"
	}
	toolsNote := fmt.Sprintf("server.json declares no tools (its schema, %s, has no member for them); the server offers %s", registry.SchemaURL, plural.Count(len(tools), "tool"))
	if c.format == "json" {
		if isTerminal(stdout) {
			stdout = termsafe.NewWriter(stdout)
		}
		if tools == nil {
			tools = []string{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"declared": file, "offered": label, "fields": fields,
			"tools": map[string]any{"declared": nil, "offered": tools, "note": toolsNote}}); err != nil {
			return err
		}
	} else {
		safe := termsafe.Line
		fmt.Fprintf(stdout, "%s declares %s %s; %s offers %s %s\n\n", safe(file), safe(decl.Name), safe(decl.Version), safe(label), safe(info.Name), safe(info.Version))
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "FIELD\tDECLARED\tOFFERED\t")
		for _, f := range fields {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Field, safe(orDash(f.Declared)), safe(orDash(f.Offered)), safe(strings.TrimSpace(f.Verdict+" "+f.Why)))
		}
		tw.Flush()
		fmt.Fprintf(stdout, "\ntools: %s", safe(toolsNote))
		if len(tools) > 0 {
			fmt.Fprintf(stdout, ": %s", safe(strings.Join(tools, ", ")))
		}
		fmt.Fprintln(stdout)
	}
	if failed && a.failOn != "none" {
		return &exitError{code: exitServer, msg: ""}
	}
	return nil
}

// declaredFields compares what server.json declares with the server's own words.
// The version and the transport fail (the registry would send users to another
// server than this one); the name and the rest are notes: a registry name is
// NAMESPACE/NAME, a server's own name is free.
func declaredFields(d registry.Server, info client.Info) []declaredField {
	out := []declaredField{}
	name := declaredField{Field: "name", Declared: d.Name, Offered: info.Name, Verdict: "same"}
	last := d.Name[strings.LastIndex(d.Name, "/")+1:]
	switch {
	case d.Name == info.Name:
	case strings.EqualFold(last, info.Name):
		name.Why = "(the part after the namespace)"
	default:
		name.Verdict, name.Why = "note", "(a registry name is NAMESPACE/NAME; the server calls itself otherwise)"
	}
	out = append(out, name)
	version := declaredField{Field: "version", Declared: d.Version, Offered: info.Version, Verdict: "same"}
	if d.Version != info.Version {
		version.Verdict, version.Why = "differs", "(server.json's version is the server's Implementation.version)"
	}
	out = append(out, version)
	var declared []string
	for _, p := range d.Packages {
		declared = appendOnce(declared, p.Transport.Type)
	}
	for _, r := range d.Remotes {
		declared = appendOnce(declared, r.Type)
	}
	offered := info.Transport
	if offered == client.TransportSSE {
		offered = "sse"
	}
	tr := declaredField{Field: "transport", Declared: strings.Join(declared, ", "), Offered: offered, Verdict: "same"}
	if !slices.Contains(declared, offered) {
		tr.Verdict, tr.Why = "differs", "(no package or remote of server.json uses it)"
	}
	out = append(out, tr)
	for _, f := range []struct{ field, declared, offered string }{
		{"title", d.Title, info.Title}, {"websiteUrl", d.WebsiteURL, info.WebsiteURL},
	} {
		if f.declared == "" && f.offered == "" {
			continue
		}
		v := declaredField{Field: f.field, Declared: f.declared, Offered: f.offered, Verdict: "same"}
		if f.declared != f.offered {
			v.Verdict = "note"
		}
		out = append(out, v)
	}
	return out
}

func appendOnce(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
