package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/termsafe"
	"github.com/mcpscope/mcpscope/pins"
	"github.com/mcpscope/mcpscope/surface"
	"github.com/mcpscope/mcpscope/workbench"
)

// pinFlags are --no-pins and --strict-pins of --inspect (the workbench takes
// --no-pins only: it marks a drift, it has no exit code to fail).
type pinFlags struct {
	off, strict bool
}

func (p *pinFlags) register(fs *flag.FlagSet, strict bool) {
	fs.BoolVar(&p.off, "no-pins", false, "neither pin a server's surface on its first connection nor compare it with its pin")
	if strict {
		fs.BoolVar(&p.strict, "strict-pins", false, "a surface that differs from its pin fails the command (exit 1), after the report")
	}
}

// store is the pins' store, nil with --no-pins or when the state directory cannot
// be made (said once on stderr: a listing goes on without pins rather than fail).
func (p *pinFlags) store(stderr io.Writer) *pins.Store {
	if p.off {
		return nil
	}
	st, err := pins.Open("")
	if err != nil {
		fmt.Fprintf(stderr, "mcpscope: note: pins are off: %v\n", err)
		return nil
	}
	return st
}

// pinCheck compares a server's surface with its pin, and pins it the first time
// (issue 25: the first connection pins). It answers the drift as --inspect's
// problems (one line a definition changed, added or removed, then the command that
// accepts the new surface), whether the surface differs, and the note that says a
// pin was taken (for stderr: --inspect's stdout is a report scripts parse, and a
// pin taken is not a property of the server). A nil store compares nothing.
func pinCheck(store *pins.Store, srv namedServer, s *surface.Surface) (problems []string, differs bool, note string) {
	if store == nil || s == nil {
		return nil, false, ""
	}
	d, first, err := store.Check(srv.spec.Name, srv.desc, s, time.Now())
	switch {
	case err != nil:
		return []string{"pin: " + err.Error()}, false, ""
	case first:
		return nil, false, fmt.Sprintf("mcpscope: pinned %s's surface (%s); a later change is reported\n", termsafe.Line(srv.spec.Name), plural.Count(len(pins.Hashes(s)), "definition"))
	case d.Empty():
		return nil, false, ""
	}
	since := " since it was pinned on " + d.Pinned.Format(time.RFC3339)
	for _, k := range d.Changed {
		problems = append(problems, "pin: "+k+" changed"+since)
	}
	for _, k := range d.Added {
		problems = append(problems, "pin: "+k+" added"+since)
	}
	for _, k := range d.Removed {
		problems = append(problems, "pin: "+k+" removed"+since)
	}
	return append(problems, "pin: if the change is intended, take it: "+acceptCommand(srv)), true, ""
}

// strictPins is --strict-pins' failure: the servers whose surface differs from
// their pin (the report, written before, lists each definition).
func strictPins(names []string) error {
	if len(names) == 0 {
		return nil
	}
	return &exitError{code: exitServer, msg: fmt.Sprintf("the surface of %s differs from its pin (--strict-pins; the report's pin: problems list each definition)", termsafe.Line(strings.Join(names, ", ")))}
}

// sectionSurface is a connected section's surface as a pin holds it: its tool list,
// and the prompts and templates its session lists now (a section lists only tools).
func sectionSurface(ctx context.Context, wb *workbench.Workbench, name string, tools *client.ToolList) (*surface.Surface, error) {
	sess, release, err := wb.Session(ctx, name)
	if err != nil {
		return nil, err
	}
	defer release()
	return pins.Listed(ctx, sess, tools.Tools)
}

// withProblems is a section's tool list with more problems; the list itself, the
// workbench's, is not changed.
func withProblems(l *client.ToolList, more []string) *client.ToolList {
	if l == nil || len(more) == 0 {
		return l
	}
	c := *l
	c.Problems = append(slices.Clip(l.Problems), more...)
	return &c
}
