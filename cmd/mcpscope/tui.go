package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/mcpscope/mcpscope/answer"
	"github.com/mcpscope/mcpscope/app"
	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/config"
	"github.com/mcpscope/mcpscope/history"
	"github.com/mcpscope/mcpscope/internal/spool"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/tui"
	"github.com/mcpscope/mcpscope/workbench"
)

// registerWorkbench adds the workbench's own flags. The command-line scanner
// (workbenchFlags) uses the same set, so that it knows which of them take a value.
func registerWorkbench(fs *flag.FlagSet, theme *string, noConfirm *bool, keep *keepFlag, idle *time.Duration) {
	fs.DurationVar(idle, "idle-disconnect", 0, "stop a server idle this long; the next call reconnects it (0: never)")
	fs.StringVar(theme, "theme", "auto", "auto, dark, light or high-contrast")
	fs.BoolVar(noConfirm, "no-confirm", false, "call destructive tools without asking")
	fs.Var(keep, "keep", "memory for traffic, logs and stderr together (older lines go to a private spill file): 64MiB, 512KiB, 1GiB")
}

// tuiAsks are the workbench's answers to what servers ask: --sampling (a dialog per
// request), --sampling-reply (no dialog), --root (declared roots, edited live in the
// Servers tab).
type tuiAsks struct {
	sampling      bool
	samplingReply string
	roots         multiFlag
}

func (a *tuiAsks) register(fs *flag.FlagSet) {
	fs.BoolVar(&a.sampling, "sampling", false, "declare the sampling capability; each request opens a dialog")
	fs.StringVar(&a.samplingReply, "sampling-reply", "", "answer sampling requests with TEXT or @FILE, without a dialog (implies --sampling)")
	fs.Var(&a.roots, "root", "declare the roots capability and offer DIR as a file:// root (repeatable)")
}

// apply checks the flags and sets them on the screen's settings.
func (a *tuiAsks) apply(o *app.Screen) error {
	o.Sampling = a.sampling
	if a.samplingReply != "" {
		data, err := valueOrFile(a.samplingReply, "--sampling-reply")
		if err != nil {
			return err
		}
		o.Sampling, o.SamplingReply = true, string(data)
		if o.SamplingReply == "" {
			return usageErr("--sampling-reply: the reply is empty")
		}
	}
	var err error
	o.Roots, err = answer.Roots(a.roots)
	return err
}

// registerScreen adds the workbench's flags (and --sampling, --sampling-reply,
// --root) into scr; apply checks the asks into it once the flags are parsed.
func registerScreen(fs *flag.FlagSet, scr *app.Screen, asks *tuiAsks) {
	scr.Keep = app.DefaultKeep
	registerWorkbench(fs, &scr.Theme, &scr.NoConfirm, (*keepFlag)(&scr.Keep), &scr.IdleDisconnect)
	asks.register(fs)
}

// session is the session of the command line's flags (package app builds every
// front end's options from it): the client options, with answers (what a one-shot
// command answers servers: --elicit, --sampling, --root) applied to every server,
// and --trace to out. A screen passes io.Discard (the trace and the one-shot login
// prompts would write over it) and sets OAuth and Screen.
func (c *common) session(out io.Writer, answers ...func(*client.Options) error) (*app.Session, error) {
	cc := *c
	cc.trace = false // set on each tap by app.Session.ClientFor
	opts, err := cc.options(&wire.Tap{}, out)
	if err != nil {
		return nil, err
	}
	opts.Tap = nil
	for _, a := range answers {
		if err := a(&opts); err != nil {
			return nil, err
		}
	}
	s := &app.Session{Client: opts}
	if c.trace && out != io.Discard {
		s.Trace = traceListener(out)
	}
	return s, nil
}

// registerDevLoop adds --watch, --watch-debounce and --no-history (the workbench's
// and the command-line scanner's, which must know that --watch-debounce takes a value).
func registerDevLoop(fs *flag.FlagSet, wf *watchFlag, noHistory *bool) *time.Duration {
	fs.BoolVar(noHistory, "no-history", false, "keep no history of calls across sessions ($XDG_STATE_HOME/mcpscope/history)")
	return registerWatchFlags(fs, wf)
}

// runTUI opens the workbench on a target.
func runTUI(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcpscope", flag.ContinueOnError)
	var c common
	c.register(fs, "table")
	var scr app.Screen
	var asks tuiAsks
	registerScreen(fs, &scr, &asks)
	var wf watchFlag
	var noHistory bool
	debounce := registerDevLoop(fs, &wf, &noHistory)
	var pf pinFlags
	pf.register(fs, false)
	args = rewriteWatchArgs(args)
	_, argv, err := parse(fs, args, func([]string, string) bool { return true })
	if err != nil {
		return err
	}
	if err := asks.apply(&scr); err != nil {
		return err
	}
	if err := app.CheckTheme(scr.Theme); err != nil {
		return err
	}
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		return usageErr("the workbench needs a terminal; in scripts use mcpscope --inspect or mcpscope call")
	}
	if argv, err = c.reparseNames(ctx, fs, args, argv); err != nil {
		return err
	}
	servers, err := c.namedServers(ctx, args, argv)
	if err != nil {
		return err
	}
	var configured []namedServer
	scr.Configured, scr.Refused, configured = c.configuredSpecs(ctx)
	if wf.active() {
		if len(servers) > 1 {
			return usageErr("--watch watches one server; %d are named (watch one, or use --inspect --watch for each)", len(servers))
		}
		if *debounce <= 0 {
			return usageErr("--watch-debounce %v: give a positive duration such as 250ms", *debounce)
		}
		if servers[0].err == nil {
			if err := watchSpec(&servers[0].spec, &wf, *debounce); err != nil {
				return err
			}
		}
	}
	if scr.History, err = historyOptions(&c, servers, noHistory); err != nil {
		return err
	}
	sess, err := c.screenSession(scr)
	if err != nil {
		return err
	}
	if len(servers) > 1 {
		return runTUIMany(ctx, &c, sess, servers, configured, !pf.off, stderr)
	}
	if servers[0].err != nil {
		return servers[0].err
	}
	target := servers[0].spec.Target
	name := strings.Join(target.Argv, " ")
	if len(argv) == 0 {
		name = "bundled host"
	}
	tap := &wire.Tap{}
	// Recording can start with --record and be switched on and off with a key; each
	// start writes a new file (a dated name in the working directory unless --record
	// named one for the first).
	// A recording started later with R begins with the handshake and lists the
	// session has by then (marked as a snapshot), so it can be opened and served.
	snap := &record.Snapshot{}
	tap.Listen(snap.Listen)
	rec := &oneRecording{c: &c, start: func() (func(), string, error) {
		return startRecordingFrom(&c, target, tap, snap)
	}}
	recording := ""
	if c.recordSet {
		if recording, err = rec.toggle(); err != nil {
			return err
		}
	}
	defer rec.stop()
	// The workbench applies the config entry's timeout (Spec.Timeout) itself.
	o := sess.TUI([]workbench.Spec{servers[0].spec}, tap)
	o.Target, o.Name = target, name
	// A watched server is the user's own, edited on purpose: its changes are the dev
	// loop's to show (the Changes view's diff of each restart), not a pin's drift.
	if !pf.off && !wf.active() {
		o.Pins, o.PinOf = pinsFor(servers[:1]), pinOf(servers[:1], configured) // lint.go
	}
	o.Recording, o.ToggleRecording = recording, rec.toggle
	return tui.Run(ctx, o)
}

// screenSession is the session of a workbench screen: no trace or login prompt
// over the screen, logins through the workbench (L), the screen's settings.
func (c *common) screenSession(scr app.Screen) (*app.Session, error) {
	sess, err := c.session(io.Discard)
	if err != nil {
		return nil, err
	}
	if sess.OAuth, err = c.workbenchOAuth(); err != nil {
		return nil, err
	}
	sess.Screen = scr
	return sess, nil
}

// oneRecording is the recording of a session of one server, started with --record
// or R and stopped with R or by quitting. R runs in a command that may still be
// running when the program quits, so toggle and stop take turns, and a toggle that
// comes after stop starts nothing (its file would never be finished).
type oneRecording struct {
	c     *common
	start func() (stop func(), path string, err error)

	mu      sync.Mutex
	stopRec func()
	done    bool
}

// toggle starts a recording (returning its file) or stops the running one
// (returning "").
func (r *oneRecording) toggle() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return "", errors.New("the session is ending; nothing more is recorded")
	}
	if r.stopRec != nil {
		r.stopRec()
		r.stopRec = nil
		r.c.record = nextRecordPlace(r.c.record)
		return "", nil
	}
	r.c.recordSet = true
	stop, path, err := r.start()
	if err != nil {
		return "", err
	}
	r.stopRec = stop
	return path, nil
}

// stop finishes the running recording, once the session has closed; no toggle
// starts another after it.
func (r *oneRecording) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = true
	if r.stopRec != nil {
		r.stopRec()
		r.stopRec = nil
	}
}

// historyOptions are the lasting history's: the default state directory, and every
// secret of the session (-e, --env-file, --bearer, credential -H, --redact, a config
// entry's environment) redacted before anything reaches the file.
func historyOptions(c *common, servers []namedServer, off bool) (*history.Options, error) {
	if off {
		return nil, nil
	}
	red, _, err := c.redactor()
	if err != nil {
		return nil, err
	}
	_, secrets, _ := c.remote.httpHeader() // a bad -H fails the session's options, said there
	specs := make([]workbench.Spec, len(servers))
	for i, s := range servers {
		specs[i] = s.spec
	}
	return app.History(red, secrets, specs), nil
}

// runTUIMany opens the workbench on several servers at once. A configured server
// that cannot be used (a placeholder without a value) is in the session, failed, with
// the reason and what to do (unusable), as --inspect reports it; one whose name the
// workbench cannot hold (white space, a "/") is said on stderr and left out. When no
// server can start, the command fails with the reasons. --record records them all
// in one file.
func runTUIMany(ctx context.Context, c *common, sess *app.Session, servers, configured []namedServer, pinned bool, stderr io.Writer) error {
	var specs []workbench.Spec
	var firstErr error
	usable := 0
	for _, s := range servers {
		if s.err == nil {
			usable++
			specs = append(specs, s.spec) // the workbench applies its own timeout
			continue
		}
		if firstErr == nil {
			firstErr = s.err
		}
		if workbench.ValidateName(s.spec.Name) != nil {
			fmt.Fprintf(stderr, "mcpscope: %s is left out: %v\n", s.spec.Name, s.err)
			continue
		}
		sp := s.spec
		sp.Unusable = unusable(s.err)
		specs = append(specs, sp)
	}
	if usable == 0 {
		for _, s := range servers {
			if s.err != nil && s.err != firstErr {
				fmt.Fprintf(stderr, "mcpscope: %s: %v\n", s.spec.Name, s.err)
			}
		}
		return firstErr
	}
	// --record records them all in one file (version 2); R starts and stops it.
	rec, err := toggleableRecording(c, servers)
	if err != nil {
		return err
	}
	defer rec.stop()
	o := sess.TUI(specs, &wire.Tap{})
	o.Recording, o.ToggleRecording, o.OnWire, o.OnAdd = rec.path(), rec.toggle, rec.listen, rec.added
	if pinned {
		o.Pins, o.PinOf = pinsFor(servers), pinOf(servers, configured) // lint.go
	}
	return tui.Run(ctx, o)
}

// configuredSpecs are the servers of the config files found, which ":add NAME" in the
// workbench offers, and the entries that cannot be used (a name config.CheckName
// refuses, a missing placeholder…), each with why, which the workbench says rather
// than leaving them out silently. A disabled entry is left out: its client has it off.
func (c *common) configuredSpecs(ctx context.Context) ([]workbench.Spec, []tui.Refused, []namedServer) {
	src, err := c.sources()
	if err != nil {
		return nil, nil, nil
	}
	all, err := src.All(ctx)
	if err != nil {
		return nil, nil, nil
	}
	var out []workbench.Spec
	var named []namedServer
	var refused []tui.Refused
	for _, srv := range all {
		if srv.Entry != nil && srv.Entry.Disabled {
			continue
		}
		if err := srv.Err; err != nil || workbench.ValidateName(srv.Name) != nil {
			if err == nil {
				err = workbench.ValidateName(srv.Name)
			}
			refused = append(refused, tui.Refused{Name: srv.Name, Why: err.Error()})
			continue
		}
		ns := fromConfig(srv)
		out, named = append(out, ns.spec), append(named, ns)
	}
	return out, refused, named
}

// runOpen shows a recording in the workbench without its server: the recorded traffic
// and calls, and the recording served as a mock (mcpscope serve) so that its tools can
// be browsed and its recorded calls made again.
func runOpen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("open", flag.ContinueOnError)
	scr := app.Screen{Keep: app.DefaultKeep}
	fs.StringVar(&scr.Theme, "theme", "auto", "auto, dark, light or high-contrast")
	fs.Var((*keepFlag)(&scr.Keep), "keep", "memory for traffic, logs and stderr together: 64MiB, 512KiB, 1GiB")
	pos, _, err := parse(fs, args, func([]string, string) bool { return false })
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr("open needs one recording: mcpscope open FILE")
	}
	if err := app.CheckTheme(scr.Theme); err != nil {
		return err
	}
	rec, err := loadRecording("cannot open the recording: ", pos[0]) // a usage error (2), as for replay, serve and export
	if err != nil {
		return err
	}
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		return usageErr("the workbench needs a terminal; in scripts use mcpscope replay or mcpscope serve")
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	// A recording of several servers: each one served as a mock under its own name
	// (mcpscope serve FILE --server NAME), its traffic and calls under that name.
	var specs []workbench.Spec
	for _, n := range rec.ServerNames() {
		specs = append(specs, workbench.Spec{Name: n, Target: target.Target{Argv: []string{self, "serve", pos[0], "--server", n}}})
	}
	// The servers are mcpscope's own mocks: none of the client flags apply.
	sess := &app.Session{Screen: scr}
	o := sess.TUI(specs, &wire.Tap{})
	o.Browse = rec
	o.Target, o.Name = target.Target{Argv: []string{self, "serve", pos[0]}}, "recording "+pos[0]
	return tui.Run(ctx, o)
}

// keepFlag is --keep: a byte size such as 64MiB.
type keepFlag int64

func (k *keepFlag) String() string { return sizeString(int64(*k)) }

func (k *keepFlag) Set(s string) error {
	n, err := spool.ParseSize(s)
	if err != nil {
		return err
	}
	if n < 1<<10 {
		return fmt.Errorf("%q is too small: keep at least 1KiB", s)
	}
	*k = keepFlag(n)
	return nil
}

// unusable is why a configured server cannot start, as the workbench shows it (the
// Servers row, the tool list's header): what is missing first, since a row is cut at
// the right, then the entry's place, then what to do. The config files are read when
// mcpscope starts, so a value given later reaches the server only through a new
// start of mcpscope; a restart in the workbench fails the same way.
func unusable(err error) error {
	var me *config.MissingError
	if !errors.As(err, &me) {
		return err
	}
	return &unusableError{err: err, msg: fmt.Sprintf("needs %s, in %s; mcpscope reads its config when it starts: give the value and start mcpscope again",
		strings.Join(me.Missing, ", "), me.Where)}
}

// unusableError is the workbench's reason, over the config's error.
type unusableError struct {
	err error
	msg string
}

func (e *unusableError) Error() string { return e.msg }
func (e *unusableError) Unwrap() error { return e.err }
