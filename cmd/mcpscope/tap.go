package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mcpscope/mcpscope/internal/statedir"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/tap"
	"github.com/mcpscope/mcpscope/tap/live"
)

// The other forms of `mcpscope tap` (issue 24): tap wrap/unwrap NAME and
// tap --listen ADDR URL are built in files of their own; each sets its hook here
// (tapWrap = runTapWrap, ...), so that this one command dispatches them all.
var tapWrap, tapUnwrap, tapListen commandFunc

// runTap is mcpscope tap: a host runs it in place of a server command.
func runTap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && (args[0] == "wrap" || args[0] == "unwrap") {
		run := map[string]commandFunc{"wrap": tapWrap, "unwrap": tapUnwrap}[args[0]]
		if run == nil {
			return usageErr("tap %s: not in this build", args[0])
		}
		return run(ctx, args[1:], stdout, stderr)
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--listen" || a == "-listen" || hasPrefix(a, "--listen=") || hasPrefix(a, "-listen=") {
			if tapListen == nil {
				return usageErr("tap --listen: not in this build")
			}
			return tapListen(ctx, args, stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("tap", flag.ContinueOnError)
	name := fs.String("name", "", "the tap's `NAME` (its recording and live stream); default: the server command's name")
	recordTo := fs.String("record", "", "record to `FILE|DIR`: that file, or a dated file in that directory (default: a dated file in $XDG_STATE_HOME/mcpscope/taps)")
	var redact multiFlag
	fs.Var(&redact, "redact", "replace matches of `REGEX` by [redacted] in the recording (repeatable)")
	grace := fs.Duration("grace", tap.DefaultGrace, "time the server gets to exit after the host closes stdin, and after SIGTERM")
	// The first word that is not a flag starts the server command, as "--" does: some
	// hosts take a "--" in their server's arguments as their own (the Inspector CLI
	// does), and the tap's command must still reach the server whole.
	pos, argv, err := parse(fs, args, func([]string, string) bool { return true })
	if err != nil {
		return err
	}
	if len(pos) > 0 || len(argv) == 0 {
		return usageErr("tap: give the server command after --: mcpscope tap [--record FILE|DIR] -- CMD ARGS... (see mcpscope tap --help)")
	}
	if *name == "" {
		*name = filepath.Base(argv[0])
	}
	red, err := record.NewRedactor(tap.EnvSecrets(os.Environ()), redact)
	if err != nil {
		return usageErr("tap: --redact: %v", err)
	}

	// A host's stdout may close before the tap is done (the host exiting): a write
	// then fails with EPIPE, which the tap handles, instead of SIGPIPE killing it
	// before the recording is closed and the server stopped.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)
	// A recording that reaches the file size limit (ulimit -f) fails its write
	// (EFBIG) and stops, said once; SIGXFSZ would kill the tap and the host's server.
	signal.Ignore(syscall.SIGXFSZ)

	o := tap.Options{Argv: argv, Name: *name, Stdin: os.Stdin, Stdout: stdout, Stderr: stderr,
		ServerStderr: serverStderr(stderr), Redact: red, Grace: *grace}
	file, path, rerr := openTapRecording(*recordTo)
	if rerr != nil {
		// The host must not break because its recording cannot be made: it runs
		// without one, and says so.
		fmt.Fprintln(stderr, "mcpscope tap: not recording: "+rerr.Error()+"; the server runs all the same")
	} else {
		defer file.Close()
		o.Record = file
		fmt.Fprintf(stderr, "mcpscope tap: recording %s to %s\n", *name, path)
	}
	liveInfo := live.Info{Name: *name, Argv: argv}
	if rerr == nil {
		liveInfo.Recording = path
	}
	var endLive func()
	o.Live, endLive = publishTap(liveInfo, stderr)
	defer endLive()
	res, err := tap.Run(ctx, o)
	if err != nil {
		var se *tap.StartError
		if errors.As(err, &se) {
			return &exitError{code: exitServer, msg: "tap: " + se.Error()}
		}
		return err
	}
	if code := res.ExitCode(); code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// openTapRecording makes the tap's recording file: FILE, a dated file in DIR (an
// existing directory, or a path ending in a separator, made if needed: tap wrap
// --record DIR writes it so), or one in the state directory's taps.
func openTapRecording(to string) (*os.File, string, error) {
	dir := to
	if strings.HasSuffix(to, string(filepath.Separator)) {
		if err := os.MkdirAll(to, 0o700); err != nil {
			return nil, "", err
		}
	} else if to == "" {
		d, err := statedir.Path("taps", "the taps' recordings")
		if err != nil {
			return nil, "", err
		}
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, "", err
		}
		dir = d
	} else if st, err := os.Stat(to); err != nil || !st.IsDir() {
		f, err := record.OpenFile(to)
		if err != nil {
			return nil, "", err
		}
		return f, to, nil
	}
	f, err := record.OpenFileIn(dir)
	if err != nil {
		return nil, "", err
	}
	return f, f.Name(), nil
}

// serverStderr is where the server's stderr goes: the host's stderr as it is (a
// host keeps it as a log: its bytes pass unchanged) unless it is a terminal, where a
// server's bytes go through termsafe like every other server string.
func serverStderr(stderr io.Writer) io.Writer {
	if isTerminal(stderr) {
		return stderr
	}
	w := stderr
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			return w
		}
		w = u.Unwrap()
	}
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
