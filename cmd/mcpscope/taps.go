package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/mcpscope/mcpscope/internal/termsafe"
	"github.com/mcpscope/mcpscope/tap/live"
)

// runTaps lists the live and finished taps (package tap/live's registry).
func runTaps(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("taps", flag.ContinueOnError)
	format := fs.String("format", "table", "table or json")
	pos, _, err := parse(fs, args, func([]string, string) bool { return false })
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr("taps takes no arguments, got %q (mcpscope taps [--format table|json])", pos[0])
	}
	if *format != "table" && *format != "json" {
		return usageErr("--format %q: use table or json", *format)
	}
	all, err := live.List()
	if err != nil {
		return &exitError{code: exitServer, msg: "cannot list the taps: " + err.Error()}
	}
	if *format == "json" {
		type tap struct {
			live.Info
			Live bool `json:"live"`
		}
		d := struct {
			Taps []tap `json:"taps"`
		}{Taps: []tap{}}
		for _, i := range all {
			d.Taps = append(d.Taps, tap{Info: i, Live: i.Live()})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	if len(all) == 0 {
		fmt.Fprintln(stdout, "No taps. Run a server through one: mcpscope tap -- CMD ARGS... (in your host's config), then mcpscope attach.")
		return nil
	}
	writeTaps(stdout, all, false)
	return nil
}

// writeTaps is the taps table (numbered: attach's list to choose from). What a tap's
// info says came from a host and a server command: never interpreted by the terminal.
func writeTaps(w io.Writer, all []live.Info, numbered bool) {
	safe := termsafe.Line
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "NAME\tSTATE\tHOST\tTARGET\tSTARTED\tRECORDING"
	if numbered {
		head = "#\t" + head
	}
	fmt.Fprintln(tw, head)
	for k, i := range all {
		state := fmt.Sprintf("live (pid %d)", i.PID)
		switch {
		case i.Crashed:
			state = "finished (crashed)"
		case !i.Live():
			state = "finished"
		}
		host := "-"
		if i.Client != nil {
			host = i.Client.Name + " " + i.Client.Version
		}
		what := i.Target()
		if r := []rune(what); len(r) > 50 {
			what = string(r[:49]) + "…"
		}
		row := fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s", safe(i.Name), state, safe(host), safe(what), i.Started.Local().Format("2006-01-02 15:04:05"), safe(i.Recording))
		if numbered {
			row = fmt.Sprintf("%d\t%s", k+1, row)
		}
		fmt.Fprintln(tw, row)
	}
	tw.Flush()
}
