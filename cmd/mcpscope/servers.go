package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcpscope/mcpscope/config"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// runServers lists the servers the config files name: mcpscope servers [--config FILE]
// [--format table|json].
func runServers(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("servers", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var c common
	format := fs.String("format", "table", "table or json")
	fs.StringVar(&c.remote.config, "config", "", "read this config file only")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &helpError{fs}
		}
		return usageErr("%s (mcpscope servers [--config FILE] [--format table|json])", flagError(fs, err))
	}
	if fs.NArg() > 0 {
		return usageErr("servers takes no arguments, got %q", fs.Arg(0))
	}
	if *format != "table" && *format != "json" {
		return usageErr("--format %q: use table or json", *format)
	}
	f, err := config.Discover(ctx, c.remote.config)
	if err != nil {
		return err
	}
	for _, b := range f.Broken {
		fmt.Fprintln(stderr, "mcpscope: warning: "+b.Error())
	}
	if *format == "json" {
		type doc struct {
			Servers []config.Entry `json:"servers"`
			Looked  []string       `json:"looked"`
			Broken  []string       `json:"broken,omitempty"`
		}
		d := doc{Servers: f.Entries, Looked: []string{}}
		if d.Servers == nil {
			d.Servers = []config.Entry{}
		}
		for _, l := range f.Looked {
			d.Looked = append(d.Looked, l.Path)
		}
		for _, b := range f.Broken {
			d.Broken = append(d.Broken, b.Error())
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	if len(f.Entries) == 0 {
		fmt.Fprintln(stdout, "No MCP servers configured. Looked in:")
		for _, l := range f.Looked {
			fmt.Fprintf(stdout, "  %s  (%s)\n", termsafe.Line(config.TildePath(l.Path)), l.Client)
		}
		return nil
	}
	// What the config files say is shown, never interpreted by the terminal.
	safe := termsafe.Line
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPE\tCOMMAND OR URL\tFROM")
	for _, e := range f.Entries {
		what := safe(e.Shown())
		if r := []rune(what); len(r) > 70 {
			what = string(r[:69]) + "…"
		}
		var notes []string
		if len(e.EnvKeys) > 0 {
			notes = append(notes, "env "+safe(strings.Join(e.EnvKeys, ",")))
		}
		if len(e.HeaderKeys) > 0 {
			notes = append(notes, "headers "+safe(strings.Join(e.HeaderKeys, ",")))
		}
		if e.Disabled {
			notes = append(notes, "disabled")
		}
		if e.Timeout > 0 {
			notes = append(notes, "request timeout "+e.TimeoutText)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s (%s)\n", safe(e.Name), safe(e.Type), what, safe(e.Where()), e.Client)
		if e.Problem != "" {
			fmt.Fprintf(tw, "\t\t! %s\t\n", safe(e.Problem))
		}
		if len(notes) > 0 {
			fmt.Fprintf(tw, "\t\t%s\t\n", strings.Join(notes, "; "))
		}
	}
	tw.Flush()
	fmt.Fprintf(stdout, "\n%s. Inspect one with: mcpscope --inspect NAME\n", plural.Count(len(f.Entries), "server"))
	return nil
}
