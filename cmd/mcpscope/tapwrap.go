package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/config"
	"github.com/mcpscope/mcpscope/internal/termsafe"
	"github.com/mcpscope/mcpscope/tap/wrap"
)

// tapWrapArgs are tap wrap's and tap unwrap's flags.
type tapWrapArgs struct {
	name, client, config, record, listen string
	yes                                  bool
}

func parseTapWrap(verb string, args []string) (tapWrapArgs, error) {
	fs := flag.NewFlagSet("tap "+verb, flag.ContinueOnError)
	var a tapWrapArgs
	fs.StringVar(&a.client, "client", "", "the host whose config holds NAME: "+strings.Join(wrap.Clients, ", ")+" (default: whichever has it)")
	fs.StringVar(&a.config, "config", "", "the config file to change (default: the host's usual places)")
	fs.BoolVar(&a.yes, "yes", false, "change the file without asking (for scripts)")
	if verb == "wrap" {
		fs.StringVar(&a.record, "record", "", "a stdio tap records into this directory (default: the state directory)")
		fs.StringVar(&a.listen, "listen", "", "an HTTP entry: the loopback ADDR of the tap proxy it is pointed at (default: a free port)")
	}
	pos, argv, err := parse(fs, args, func([]string, string) bool { return false })
	if err != nil {
		return a, err
	}
	if len(pos) != 1 || len(argv) > 0 {
		return a, usageErr("mcpscope tap %s NAME [--client %s] [--config FILE] [--yes]: name one configured server (mcpscope servers lists them)", verb, strings.Join(wrap.Clients, "|"))
	}
	a.name = pos[0]
	if a.record != "" {
		abs, err := filepath.Abs(a.record)
		if err != nil {
			return a, usageErr("--record %q: %v", a.record, err)
		}
		// Absolute: the host runs the tap from a directory of its own. A trailing
		// separator: the tap makes the directory on its first run (a path that does
		// not exist yet would otherwise be taken for a file).
		a.record = abs + string(filepath.Separator)
	}
	return a, nil
}

// runTapWrap is `mcpscope tap wrap NAME`: the entry NAME of a host's config runs
// through `mcpscope tap` (stdio) or points at a tap proxy (HTTP).
func runTapWrap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a, err := parseTapWrap("wrap", args)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return fmt.Errorf("the path of this mcpscope, which the host is to run: %v", err)
	}
	if strings.Contains(self, string(filepath.Separator)+"go-build") {
		// go run's binary is removed when it exits: the host could not start it.
		return usageErr("this mcpscope is a temporary build (%s), which the host could not run later; install it (go install ./cmd/mcpscope) and wrap with that one", self)
	}
	loc, file, data, mode, err := tapWrapLoad(a)
	if err != nil {
		return err
	}
	p, err := wrap.PlanWrap(ctx, loc, file, data, mode, wrap.Options{Self: self, Name: a.name, Record: a.record, Listen: a.listen})
	if err != nil {
		return tapWrapErr(err)
	}
	q := fmt.Sprintf("Wrap server %q in %s's %s so that it runs through mcpscope tap?", a.name, hostName(loc), config.TildePath(loc.Path))
	if p.Kind == "http" {
		q = fmt.Sprintf("Point server %q in %s's %s at a tap proxy on %s?", a.name, hostName(loc), config.TildePath(loc.Path), p.Listen)
	}
	done := "wrapped"
	if p.Kind == "http" {
		done = "pointed at the tap proxy"
	}
	return applyPlan(p, a, q, done, stdout, stderr)
}

// runTapUnwrap is `mcpscope tap unwrap NAME`: the entry as it was before wrap.
func runTapUnwrap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a, err := parseTapWrap("unwrap", args)
	if err != nil {
		return err
	}
	loc, file, data, mode, err := tapWrapLoad(a)
	if err != nil {
		return err
	}
	p, err := wrap.PlanUnwrap(ctx, loc, file, data, mode, a.name)
	if err != nil {
		return tapWrapErr(err)
	}
	q := fmt.Sprintf("Unwrap server %q in %s's %s (%s)?", a.name, hostName(loc), config.TildePath(loc.Path), p.Note)
	return applyPlan(p, a, q, "unwrapped", stdout, stderr)
}

func tapWrapLoad(a tapWrapArgs) (config.Location, string, []byte, os.FileMode, error) {
	loc, err := wrap.Find(a.name, a.client, a.config)
	if err != nil {
		return loc, "", nil, 0, tapWrapErr(err)
	}
	file, data, mode, err := wrap.Load(loc)
	if err != nil {
		if config.IsNotExist(err) {
			return loc, "", nil, 0, usageErr("%s: no such file", loc.Path)
		}
		return loc, "", nil, 0, usageErr("%v", err)
	}
	return loc, file, data, mode, nil
}

// hostName names the host whose file it is, for the question.
func hostName(loc config.Location) string {
	if loc.Client != "" {
		return loc.Client
	}
	return "the host"
}

func tapWrapErr(err error) error {
	var ue *wrap.UsageError
	if errors.As(err, &ue) {
		return usageErr("%s", ue.Msg)
	}
	return err
}

// applyPlan shows the change, asks (unless --yes), and writes it.
func applyPlan(p *wrap.Plan, a tapWrapArgs, question, done string, stdout, stderr io.Writer) error {
	out := stdout
	if isTerminal(stdout) {
		out = termsafe.NewWriter(stdout) // the config file's text: a person reads it
	}
	if p.Already {
		fmt.Fprintln(out, p.Note)
		return nil
	}
	fmt.Fprint(out, p.Diff())
	if !a.yes {
		if !stdinIsTerminal() {
			return usageErr("not changing %s: no terminal to ask on; run again with --yes to change it", config.TildePath(p.Loc.Path))
		}
		fmt.Fprint(stderr, termsafe.Line(question)+" [y/N] ")
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
			fmt.Fprintln(out, "nothing changed")
			return nil
		}
	}
	backup, err := p.Write(time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: server %q %s; the file as it was: %s\n", config.TildePath(p.Loc.Path), p.Name, done, config.TildePath(backup))
	switch {
	case p.Kind == "http" && done != "unwrapped":
		rec := ""
		if a.record != "" {
			rec = " --record " + a.record
		}
		fmt.Fprintf(out, "Keep the tap proxy running while the host uses it (the host sends this entry's headers to it, and it passes them on to %s):\n  mcpscope tap --listen %s%s %s\n", p.Upstream, p.Listen, rec, p.Upstream)
	case done == "wrapped":
		fmt.Fprintf(out, "Restart the host (or reload its MCP servers); mcpscope taps lists the tap when it runs; mcpscope tap unwrap %s puts the entry back.\n", p.Name)
	default:
		fmt.Fprintln(out, p.Note)
	}
	return nil
}
