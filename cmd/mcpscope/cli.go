package main

import (
	"context"
	"flag"
	"io"
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

// hoistCommand lets global flags come before any command of the table: in
// `mcpscope --trace call echo text=hi` the command word is moved to the front. Only
// the first word that is neither a flag nor a flag's value is looked at, and nothing
// after "--": `mcpscope -- node call.js` stays a program. --inspect before that word
// is itself the command (mcpscope --inspect NAME), so the words after it stay.
func hoistCommand(args []string) []string {
	i, word := firstWord(args)
	if word == "" || lookup(commandTable, word) == nil {
		return args
	}
	out := append([]string{word}, args[:i]...)
	return append(out, args[i+1:]...)
}

// firstWord finds the first word of args that is neither a global flag nor the value
// of one (the workbench's flag set says which flags take a value), before any "--"
// and any --inspect. It returns its index and the word, or "" when there is none.
func firstWord(args []string) (int, string) {
	fs := workbenchFlags()
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "--inspect" || a == "-inspect" {
			return -1, ""
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
		return i, a
	}
	return -1, ""
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

// flagNamed says which flag a bare word names when it is no command: `mcpscope
// record` is --record without its dashes (a flag of the workbench and of the
// commands that talk to a server), `mcpscope subscribe` is read's --subscribe. ""
// when no flag has that name.
func flagNamed(word string) string {
	if len(word) < 2 {
		return "" // -e, -H: a letter is no word anyone types for a flag
	}
	if workbenchFlags().Lookup(word) != nil {
		return "the flag --" + word
	}
	var found string
	var walk func([]*command)
	walk = func(list []*command) {
		for _, c := range list {
			if found != "" {
				return
			}
			if c.flagSet().Lookup(word) != nil {
				found = "the flag --" + word + " of mcpscope " + c.path()
				return
			}
			walk(c.subs)
		}
	}
	walk(commandTable)
	return found
}

// unknownCommand refuses a bare word that is no target. The workbench's first bare
// word (no "--" before it; commands were dispatched already) must be a URL, a path (it
// has a / or a .), or the NAME of a configured server (of --config FILE when given);
// any other word is a mistyped command or a program, and mcpscope never starts a
// program that was not given after "--": `mcpscope diff a b` once ran /usr/bin/diff
// as a server. The error suggests the closest command and how to run a program.
func unknownCommand(ctx context.Context, args []string) error {
	_, word := firstWord(args)
	if word == "" || client.IsURL(word) || strings.ContainsAny(word, `/\.`) {
		return nil
	}
	cfg := ""
	for i, a := range args {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "config" {
			if hasValue {
				cfg = value
			} else if i+1 < len(args) {
				cfg = args[i+1]
			}
		}
	}
	if f, err := config.Discover(ctx, cfg); err == nil {
		if _, ok, _ := f.Lookup(word); ok {
			return nil
		}
	} else if cfg != "" {
		return err // an unreadable --config says so itself
	}
	hint := "see mcpscope --help for the commands, mcpscope servers for the configured names"
	if best := closestCommand(word); best != "" {
		hint = "did you mean " + best + "?"
	} else if f := flagNamed(word); f != "" {
		hint = "did you mean " + f + "?"
	}
	return usageErr("unknown command %q (%s); to run a program: mcpscope -- %s", word, hint, word)
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
