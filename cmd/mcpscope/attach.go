package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/term"

	"github.com/mcpscope/mcpscope/app"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/tap/live"
	"github.com/mcpscope/mcpscope/tui"
	"github.com/mcpscope/mcpscope/workbench"
)

// runAttach opens a tap's session in the workbench, read-only: a live tap as it
// happens, a finished one as its recording (package tap/live; tui/attach.go).
func runAttach(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("attach", flag.ContinueOnError)
	scr := app.Screen{Keep: app.DefaultKeep}
	fs.StringVar(&scr.Theme, "theme", "auto", "auto, dark, light or high-contrast")
	fs.Var((*keepFlag)(&scr.Keep), "keep", "memory for traffic, logs and stderr together: 64MiB, 512KiB, 1GiB")
	pos, _, err := parse(fs, args, func([]string, string) bool { return false })
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErr("attach takes at most one tap NAME, got %q (mcpscope taps lists them)", strings.Join(pos, " "))
	}
	if err := app.CheckTheme(scr.Theme); err != nil {
		return err
	}
	all, err := live.List()
	if err != nil {
		return &exitError{code: exitServer, msg: "cannot list the taps: " + err.Error()}
	}
	name := ""
	if len(pos) == 1 {
		name = pos[0]
	}
	tty := term.IsTerminal(os.Stdin.Fd()) && term.IsTerminal(os.Stdout.Fd())
	info, err := live.FindIn(all, name)
	if err == live.ErrChoose {
		info, err = chooseTap(all, tty, stdout, stderr)
	}
	if err != nil {
		if _, ok := err.(*exitError); ok {
			return err
		}
		return &exitError{code: exitServer, msg: err.Error()}
	}
	if !tty {
		return usageErr("the workbench needs a terminal; mcpscope taps lists the taps, and a tap's recording replays (mcpscope replay FILE)")
	}
	a, err := tui.AttachTo(info)
	if err != nil {
		return &exitError{code: exitServer, msg: err.Error()}
	}
	// mcpscope's own session to the tapped server (idle: nothing starts until a
	// tapped call is tried again); the tap itself is only read.
	sess := &app.Session{Screen: scr}
	o := sess.TUI([]workbench.Spec{tui.OwnSpec(a)}, &wire.Tap{})
	o.Attach = a
	o.Name = a.Name
	return tui.Run(ctx, o)
}

// chooseTap is attach without a NAME while several taps are live: in a terminal, the
// list to choose from by number; in a script, the list and a usage error.
func chooseTap(all []live.Info, tty bool, stdout, stderr io.Writer) (live.Info, error) {
	var running []live.Info
	for _, i := range all {
		if i.Live() {
			running = append(running, i)
		}
	}
	if !tty {
		writeTaps(stderr, running, false)
		return live.Info{}, usageErr("%d taps are live: name one (mcpscope attach NAME)", len(running))
	}
	writeTaps(stdout, running, true)
	fmt.Fprintf(stdout, "Attach to which tap (1-%d, or its name)? ", len(running))
	line, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil && line == "" {
		return live.Info{}, usageErr("no tap chosen")
	}
	line = strings.TrimSpace(line)
	if n, err := strconv.Atoi(line); err == nil && n >= 1 && n <= len(running) {
		return running[n-1], nil
	}
	for _, i := range running {
		if i.Name == line {
			return i, nil
		}
	}
	return live.Info{}, usageErr("%q is not one of the %d live taps", line, len(running))
}
