package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/config"
	"github.com/mcpscope/mcpscope/internal/spool"
)

// helpError is returned by a command asked for --help, -help or -h: run prints the
// command's usage and every flag it takes on stdout, and exits 0.
type helpError struct{ fs *flag.FlagSet }

func (h *helpError) Error() string { return "help requested" }

// synopses are the usage lines of the commands whose help is made from their flags.
var synopses = map[string]string{
	"mcpscope": `Usage: mcpscope [flags] [-- CMD ARGS... | URL | NAME]

Opens the workbench (a terminal UI) on a server: a command after --, a URL, or a NAME
from a client config (mcpscope servers lists them). With none, the bundled host.`,
	"inspect": `Usage: mcpscope --inspect [flags] [-- CMD ARGS... | URL | NAME]
       mcpscope --inspect NAME NAME... | --server NAME=TARGET... | --all

Lists a server's tools with their annotations and parameters (table, json, markdown).`,
	"call": `Usage: mcpscope call TOOL [--args JSON | key=value ...] [flags] [-- CMD ARGS... | URL | NAME]
       mcpscope call SERVER/TOOL (or mcp__SERVER__TOOL) [key=value ...] [--server NAME=TARGET...]

Calls one tool and prints its result (text or json). Exit 3: a JSON-RPC error,
exit 4: the tool returned isError.`,
	"open": `Usage: mcpscope open [--theme THEME] FILE

Browses a recording in the workbench: its traffic and calls, with the recording served
as a mock server.`,
	"servers": `Usage: mcpscope servers [--config FILE] [--format table|json]

Lists the servers configured for Claude, Cursor and VS Code (it runs none of them).`,
}

// writeHelp prints a command's usage and every flag its flag set holds.
func writeHelp(w io.Writer, fs *flag.FlagSet) {
	if s, ok := synopses[fs.Name()]; ok {
		fmt.Fprintln(w, s)
	} else {
		fmt.Fprintf(w, "Usage: mcpscope %s [flags]\n", fs.Name())
	}
	fmt.Fprintln(w, "\nFlags:")
	type row struct{ left, usage string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "help" || f.Name == "h" {
			return
		}
		kind, usage := flag.UnquoteUsage(f)
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		left := dash + f.Name
		if kind != "" {
			left += " " + strings.ToUpper(kind)
		}
		switch f.DefValue {
		case "", "0", "false", "0s", "[]":
		default:
			usage += " (default " + f.DefValue + ")"
		}
		rows = append(rows, row{left, usage})
		width = max(width, len(left))
	})
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %s\n", width, r.left, r.usage)
	}
	fmt.Fprintln(w, "\nExit codes: 0 ok, 1 connection or server failure, 2 usage error,\n3 JSON-RPC error from the server, 4 the tool returned isError: true.")
}

// commandWords are the words that name a command (for hoisting and suggestions).
var commandWords = []string{"inspect", "call", "open", "host", "replay", "serve", "servers", "version", "help"}

// hoistCommand lets global flags come before the command: in
// `mcpscope --trace call echo text=hi` the command word is moved to the front. Only
// the first word that is neither a flag nor a flag's value is looked at, and nothing
// after "--": `mcpscope -- node call.js` stays a program.
func hoistCommand(args []string) []string {
	fs := workbenchFlags()
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return args
		}
		if len(a) > 1 && strings.HasPrefix(a, "-") {
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			f := fs.Lookup(name)
			if hasValue || f == nil {
				continue
			}
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				continue
			}
			i++ // the flag's value
			continue
		}
		for _, w := range commandWords {
			if a == w {
				out := append([]string{a}, args[:i]...)
				return append(out, args[i+1:]...)
			}
		}
		return args
	}
	return args
}

// workbenchFlags is the workbench's flag set, which holds every global flag.
func workbenchFlags() *flag.FlagSet {
	fs := flag.NewFlagSet("mcpscope", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var c common
	c.register(fs, "table")
	var theme string
	var noConfirm bool
	keep := keepFlag(spool.DefaultKeep)
	var idle time.Duration
	registerWorkbench(fs, &theme, &noConfirm, &keep, &idle)
	var asks tuiAsks
	asks.register(fs)
	var wf watchFlag
	var noHistory bool
	registerDevLoop(fs, &wf, &noHistory)
	fs.Bool("inspect", false, "list the server's tools instead of opening the workbench")
	return fs
}

// unknownCommand tells a mistyped command from a server named by a bare word. A bare
// first word (no "--" before it) that is close to a command's name, is no program on
// $PATH, no URL or path, and no server of a client config, is taken as a mistyped
// command: `mcpscope inpsect` says "did you mean inspect?" and exits 2. Any other bare
// word keeps its documented meaning (a config NAME, or a program on $PATH), and
// `mcpscope -- WORD` always runs WORD.
func unknownCommand(ctx context.Context, args []string) error {
	fs := workbenchFlags()
	word := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil
		}
		if len(a) > 1 && strings.HasPrefix(a, "-") {
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if name == "config" {
				return nil // names come from that file: leave them to it
			}
			f := fs.Lookup(name)
			if hasValue || f == nil {
				continue
			}
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				continue
			}
			i++
			continue
		}
		word = a
		break
	}
	if word == "" || client.IsURL(word) || strings.ContainsAny(word, `/\.:=@ `) {
		return nil
	}
	best := closestCommand(word)
	if best == "" {
		return nil
	}
	if _, err := exec.LookPath(word); err == nil {
		return nil
	}
	if f, err := config.Discover(ctx, ""); err == nil {
		if _, ok, _ := f.Lookup(word); ok {
			return nil
		}
	}
	return usageErr("unknown command %q, did you mean %s? (see mcpscope --help; to run a program of that name: mcpscope -- %s)", word, best, word)
}

// closestCommand is the command word within two edits of word (or that word starts
// with), or "".
func closestCommand(word string) string {
	w := strings.ToLower(word)
	best, bestD := "", 3
	for _, c := range commandWords {
		d := editDistance(w, c)
		if len(w) >= 3 && strings.HasPrefix(c, w) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Damerau–Levenshtein distance (adjacent swaps count one).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
