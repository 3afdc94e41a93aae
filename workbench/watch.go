package workbench

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/surface"
	"github.com/mcpscope/mcpscope/watch"
)

// Watching a server's files: each change (a debounced burst of writes) restarts a
// stdio server, or re-lists an HTTP one (which restarts itself), and then compares the
// surface with the last one seen, as an EventSurfaceChanged. A restart that fails
// leaves the server failed with its stderr; the next change tries again. Restarts
// after failures back off (100 ms, doubling, at most maxBackoff), so a server that
// crashes on every start is never restarted in a loop even when a tool writes the
// watched files continuously.

const maxBackoff = 5 * time.Second

// overlapRestarts: a restart after an edit starts the new process while the old one
// exits (see Workbench.restart). Tests and benchmarks compare with false.
var overlapRestarts = true

// startWatchLocked starts the watch of s.spec.Watch; w.mu is held. Add calls it
// before the server's first start, and the watch is in place when it returns: an
// edit made while the server starts (it may have read the file as it was) is then a
// change like any other. Set up in the goroutine, the watch could come after such an
// edit and never see it.
func (w *Workbench) startWatchLocked(s *server) {
	if len(s.spec.Watch) == 0 {
		return
	}
	name := s.spec.Name
	paths := append([]string(nil), s.spec.Watch...)
	http := s.spec.Target.URL != ""
	wt, err := watch.New(paths, s.spec.WatchDebounce)
	if err != nil {
		w.emitLocked(Event{Server: name, Kind: EventWatch, Text: "not watching: " + err.Error()})
		return
	}
	what := "restarts it"
	if http {
		what = "re-lists it (an HTTP server restarts itself)"
	}
	w.emitLocked(Event{Server: name, Kind: EventWatch, Text: fmt.Sprintf("watching %s: a change %s", strings.Join(paths, ", "), what)})
	ctx, cancel := context.WithCancel(w.ctx)
	s.stopWatch = cancel
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer cancel()
		defer wt.Close()
		var err error
		var last *surface.Surface
		if st, err := w.Wait(ctx, name); err == nil && st.State == StateConnected {
			last, _ = w.surfaceOf(ctx, name)
		}
		fails := 0
		for {
			var ev watch.Event
			var ok bool
			select {
			case <-ctx.Done():
				return
			case ev, ok = <-wt.Events:
				if !ok {
					return
				}
			}
			switch ev.Kind {
			case watch.Missing:
				w.emit(Event{Server: name, Kind: EventWatch, Text: fmt.Sprintf("%s does not exist; watching the rest (it counts once it appears)", strings.Join(ev.Paths, ", "))})
				continue
			case watch.Failed:
				w.emit(Event{Server: name, Kind: EventWatch, Text: "watch error: " + ev.Err.Error()})
				continue
			}
			if fails > 0 {
				// Back off, and take the changes of the wait with this restart.
				delay := min(100*time.Millisecond<<min(fails-1, 10), maxBackoff)
				t := time.NewTimer(delay)
			wait:
				for {
					select {
					case <-ctx.Done():
						t.Stop()
						return
					case more, ok := <-wt.Events:
						if !ok {
							t.Stop()
							return
						}
						ev.Paths = append(ev.Paths, more.Paths...)
					case <-t.C:
						break wait
					}
				}
			}
			changed := ShortPaths(ev.Paths)
			files := uniquePaths(ev.Paths)
			at := time.Now()
			var cur *surface.Surface
			if http {
				w.emit(Event{Server: name, Kind: EventWatch, Files: files, Text: changed + " changed: re-listing (an HTTP server restarts itself; mcpscope does not)"})
				cur, err = w.surfaceOf(ctx, name)
			} else {
				w.emit(Event{Server: name, Kind: EventWatch, Files: files, Text: changed + " changed: restarting"})
				if err = w.restart(name, overlapRestarts); err != nil {
					return // removed or closed
				}
				var st Status
				if st, err = w.Wait(ctx, name); err != nil {
					return
				}
				if st.State != StateConnected {
					fails++
					continue // the status event says why, with stderr
				}
				cur, err = w.surfaceOf(ctx, name)
			}
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				fails++
				w.emit(Event{Server: name, Kind: EventWatch, Text: "listing after the change failed: " + err.Error()})
				continue
			}
			fails = 0
			r := surface.Compare(last, cur)
			if last == nil {
				r = &surface.Report{}
			}
			last = cur
			// Before and after are the same server: the heading says what changed and
			// when, not "node → node".
			r.Title = fmt.Sprintf("after %s changed (%s)", changed, at.Format("15:04:05"))
			w.emit(Event{Server: name, Kind: EventSurfaceChanged, Surface: r, Files: files, Text: r.Summary()})
		}
	}()
}

// surfaceOf lists the server's surface now.
func (w *Workbench) surfaceOf(ctx context.Context, name string) (*surface.Surface, error) {
	sess, release, err := w.Session(ctx, name)
	if err != nil {
		return nil, err
	}
	defer release()
	return surface.FromSession(ctx, sess, name)
}

// uniquePaths is paths sorted, each once (a backoff wait adds a burst's paths again).
func uniquePaths(paths []string) []string {
	out := slices.Clone(paths)
	slices.Sort(out)
	return slices.Compact(out)
}

// ShortPaths names changed files for a message: their base names, each once, the
// first three and how many more.
func ShortPaths(paths []string) string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		b := filepath.Base(p)
		if !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	if len(out) > 3 {
		return strings.Join(out[:3], ", ") + fmt.Sprintf(" and %d more", len(out)-3)
	}
	return strings.Join(out, ", ")
}
