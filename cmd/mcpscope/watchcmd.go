package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/watch"
	"github.com/mcpscope/mcpscope/workbench"
)

// watchFlag is --watch (plain: the files of the server's command line) and
// --watch=PATH (repeatable: a file, a directory or a glob).
type watchFlag struct {
	plain bool
	paths []string
}

func (w *watchFlag) String() string   { return strings.Join(w.paths, ",") }
func (w *watchFlag) IsBoolFlag() bool { return true }
func (w *watchFlag) Set(v string) error {
	switch v {
	case "true", "":
		w.plain = true
	case "false":
	default:
		w.paths = append(w.paths, v)
	}
	return nil
}

func (w *watchFlag) active() bool { return w.plain || len(w.paths) > 0 }

// registerWatchFlags adds --watch and --watch-debounce to a command's flags.
func registerWatchFlags(fs *flag.FlagSet, w *watchFlag) *time.Duration {
	fs.Var(w, "watch", "restart the server when a watched file changes: --watch (the files of its command line) or --watch PATH (a file, directory or glob; repeatable)")
	return fs.Duration("watch-debounce", watch.DefaultDebounce, "quiet time after the last write before a restart")
}

// inspectWatchOne checks that one server is named and watches it.
func inspectWatchOne(ctx context.Context, c *common, servers []namedServer, w *watchFlag, debounce time.Duration, stdout, stderr io.Writer) error {
	if len(servers) != 1 {
		return usageErr("--inspect --watch watches one server; %d are named", len(servers))
	}
	if debounce <= 0 {
		return usageErr("--watch-debounce %v: give a positive duration such as 250ms", debounce)
	}
	return inspectWatch(ctx, c, servers[0], w, debounce, stdout, stderr)
}

// rewriteWatchArgs turns "--watch PATH" into "--watch=PATH" (flag reads a boolean-like
// flag's value only after "="), when PATH is not a flag and not "--": so plain
// "--watch -- CMD" and "--watch PATH -- CMD" both work.
func rewriteWatchArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--watch" || a == "-watch") && i+1 < len(args) {
			next := args[i+1]
			if next != "--" && !strings.HasPrefix(next, "-") && watchable(next) {
				out = append(out, "--watch="+next)
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// watchable reports whether s names an existing path or is a glob.
func watchable(s string) bool {
	if strings.ContainsAny(filepath.Base(s), "*?[") {
		return true
	}
	_, err := os.Stat(s)
	return err == nil
}

// watchSpec sets the spec's watch list: the paths given, or for plain --watch the
// files of a stdio server's command line.
func watchSpec(spec *workbench.Spec, w *watchFlag, debounce time.Duration) error {
	spec.Watch = append([]string(nil), w.paths...)
	if w.plain {
		if spec.Target.URL != "" {
			return usageErr("plain --watch watches the files of a server's command line; %s is a URL: give --watch PATH (mcpscope re-lists it on a change)", spec.Target.URL)
		}
		spec.Watch = append(spec.Watch, watch.DefaultPaths(spec.Target.Argv)...)
		if len(spec.Watch) == 0 {
			return usageErr("--watch: no argument of %q names a file to watch; give --watch PATH", strings.Join(spec.Target.Argv, " "))
		}
	}
	spec.WatchDebounce = debounce
	return nil
}

// inspectWatch is --inspect --watch: the tool list, then after every change to the
// watched files the restart (or HTTP re-list) and the classified surface diff, until
// interrupted (workbench.Follow says each step).
func inspectWatch(ctx context.Context, c *common, srv namedServer, w *watchFlag, debounce time.Duration, stdout, stderr io.Writer) error {
	spec := srv.spec
	if err := watchSpec(&spec, w, debounce); err != nil {
		return err
	}
	tap := &wire.Tap{}
	opts, err := c.withTimeout(spec).options(tap, stderr)
	if err != nil {
		return err
	}
	// The workbench gives each connection a tap of its own and ignores opts.Tap: the
	// wire events of every session (the first and each restart's) come through OnWire,
	// and go on to the tap the flags set up (--trace) and to the --record file.
	rec, err := startSessionRecording(c, []namedServer{{spec: spec}})
	if err != nil {
		return err
	}
	defer rec.stop() // after wb.Close (deferred below, so run first): the last session ends in the file
	onWire := func(server string, e wire.Event) {
		tap.Emit(e)
		rec.listen(server, e)
	}
	wb := workbench.New(workbench.Options{Client: opts, OnWire: onWire})
	defer wb.Close()
	err = workbench.Follow(ctx, wb, spec, stdout, stderr)
	var ae *workbench.AddError
	if errors.As(err, &ae) {
		return usageErr("%v", ae.Err)
	}
	return err
}
