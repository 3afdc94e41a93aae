package tui

import (
	"io"
	"os"
	"os/exec"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Giving the terminal to another program (the user's $EDITOR) goes through
// tea.Exec, which stops Bubble Tea's renderer, runs the program and starts the
// renderer again. In Bubble Tea v2.1.1 that has a race (charmbracelet/bubbletea
// issue 1778, open): the render loop being stopped may stop the renderer's shared
// ticker only after the restart has reset it, and from then on nothing is drawn
// while the program goes on taking keys. A program that returns at once (an editor
// that only hands the file to a window, "code" without --wait; a script) hits it
// most. So:
//
//   - an editor that cannot be found is said without giving up the terminal;
//   - a run lasts at least minTerminalRun, so that the stopped render loop has ended
//     before the restart (the race needs it to be delayed that long);
//   - and after a run, when the screen changed and nothing reached the terminal
//     within renderCheckAfter, the renderer is restarted once more (an empty run),
//     up to maxRenderKicks times.

const (
	minTerminalRun   = 50 * time.Millisecond
	renderCheckAfter = 300 * time.Millisecond
	maxRenderKicks   = 5
)

// outputCounter is the program's output (the terminal: it stays an *os.File for
// Bubble Tea), counting its writes.
type outputCounter struct {
	*os.File
	writes atomic.Int64
}

func (o *outputCounter) Write(p []byte) (int, error) {
	o.writes.Add(1)
	return o.File.Write(p)
}

// terminalRun is a program given the terminal for at least minTerminalRun.
type terminalRun struct {
	cmd *exec.Cmd // nil: an empty run, only the renderer's restart
}

func (r *terminalRun) SetStdin(in io.Reader) {
	if r.cmd != nil && r.cmd.Stdin == nil {
		r.cmd.Stdin = in
	}
}

func (r *terminalRun) SetStdout(out io.Writer) {
	if c, ok := out.(*outputCounter); ok {
		out = c.File // the terminal itself: a wrapper would make it a pipe for the editor
	}
	if r.cmd != nil && r.cmd.Stdout == nil {
		r.cmd.Stdout = out
	}
}

func (r *terminalRun) SetStderr(out io.Writer) {
	if r.cmd != nil && r.cmd.Stderr == nil {
		r.cmd.Stderr = out
	}
}

func (r *terminalRun) Run() error {
	start := time.Now()
	var err error
	if r.cmd != nil {
		err = r.cmd.Run()
	}
	if rest := minTerminalRun - time.Since(start); rest > 0 {
		time.Sleep(rest)
	}
	return err
}

// renderCheckMsg looks whether the terminal was written to since writes.
type renderCheckMsg struct {
	writes int64
	kicks  int
}

// renderKickedMsg follows an empty run that restarted the renderer.
type renderKickedMsg struct {
	writes int64
	kicks  int
}

func (msg renderCheckMsg) handle(m *model) tea.Cmd  { return m.onRenderCheck(msg) }
func (msg renderKickedMsg) handle(m *model) tea.Cmd { return m.onRenderKicked(msg) }

// checkRendered is called in Update after a run, once the screen has changed: if
// nothing reaches the terminal soon, the renderer is restarted.
func (m *model) checkRendered(kicks int) tea.Cmd {
	if m.outWrites == nil {
		return nil
	}
	writes := m.outWrites()
	return tea.Tick(renderCheckAfter, func(time.Time) tea.Msg { return renderCheckMsg{writes: writes, kicks: kicks} })
}

func (m *model) onRenderCheck(msg renderCheckMsg) tea.Cmd {
	if m.outWrites == nil || m.outWrites() != msg.writes || msg.kicks >= maxRenderKicks {
		return nil // drawn (or given up: the next key redraws nothing either, but q still quits)
	}
	return tea.Exec(&terminalRun{}, func(error) tea.Msg {
		return renderKickedMsg{writes: m.outWrites(), kicks: msg.kicks + 1}
	})
}

// onRenderKicked: a restarted renderer repaints the whole screen on its first frame.
func (m *model) onRenderKicked(msg renderKickedMsg) tea.Cmd {
	return tea.Tick(renderCheckAfter, func(time.Time) tea.Msg { return renderCheckMsg(msg) })
}
