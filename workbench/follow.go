package workbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/termsafe"
	"github.com/mcpscope/mcpscope/surface"
)

// Follow is the text form of the developer's loop (`--inspect --watch`): it adds spec
// to w and, until ctx ends, says on out each watch event, each connection with its
// tools, each failure with its last stderr, and each classified surface diff. What
// set a restart off goes to errOut too: out may be a pipe to a file or a program, and
// a person watching the terminal asks why. Both writers get server text: Follow
// makes them termsafe. A spec that Add refuses comes back as an *AddError, so the
// caller can tell a bad spec (a usage error) from the loop's end.
func Follow(ctx context.Context, w *Workbench, spec Spec, out, errOut io.Writer) error {
	events, cancel := w.Subscribe()
	defer cancel()
	if err := w.Add(spec); err != nil {
		return &AddError{Err: err}
	}
	f := follower{ctx: ctx, w: w, spec: spec, out: termsafe.NewWriter(out), errOut: termsafe.NewWriter(errOut)}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e, ok := <-events:
			if !ok {
				return errors.New("the workbench closed")
			}
			if err := f.event(e); err != nil {
				return err
			}
		}
	}
}

// AddError is Follow's spec refused by Add (a usage error on the command line).
type AddError struct{ Err error }

func (e *AddError) Error() string { return e.Err.Error() }
func (e *AddError) Unwrap() error { return e.Err }

// follower is Follow's state: where it writes and which server it follows.
type follower struct {
	ctx         context.Context
	w           *Workbench
	spec        Spec
	out, errOut io.Writer
}

func (f *follower) say(format string, a ...any) {
	fmt.Fprintf(f.out, "[%s] "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
}

// event says one workbench event; only a failed write of a diff ends the loop.
func (f *follower) event(e Event) error {
	switch e.Kind {
	case EventWatch:
		f.say("%s", e.Text)
		if len(e.Files) > 0 {
			what := "restarting"
			if f.spec.Target.URL != "" {
				what = "re-listing"
			}
			fmt.Fprintf(f.errOut, "mcpscope: %s changed; %s\n", ShortPaths(e.Files), what)
		}
	case EventStatus:
		f.status(e.Status)
	case EventSurfaceChanged:
		if e.Surface.Empty() {
			f.say("surface unchanged")
			return nil
		}
		return surface.Write(f.out, surface.FormatText, e.Surface, true)
	}
	return nil
}

// status says a connection (with its tools, listed anew) or a failure.
func (f *follower) status(st *Status) {
	switch st.State {
	case StateConnected:
		tools, err := f.w.Tools(f.ctx, f.spec.Name)
		if err != nil {
			f.say("listing tools failed: %v", err)
			return
		}
		names := make([]string, 0, len(tools.Tools))
		for _, t := range tools.Tools {
			names = append(names, t.Name)
		}
		f.say("connected: %s: %s", plural.Count(len(names), "tool"), strings.Join(names, ", "))
	case StateFailed, StateExited:
		f.say("the server %s: %s", st.State, st.Reason)
		for _, l := range st.Stderr {
			fmt.Fprintf(f.out, "    stderr: %s\n", l)
		}
		f.say("waiting for the next change")
	}
}
