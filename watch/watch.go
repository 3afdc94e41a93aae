// Package watch tells when files change: a file, a directory (and the directories
// under it) or a glob, debounced so that a burst of writes (an editor writing in many
// small writes, or by writing a temporary file and renaming it over the original)
// is one "changed" event. It watches directories, not files, so a file replaced by a
// rename is still watched afterwards. It uses fsnotify (inotify, kqueue, ...).
package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultDebounce is the quiet time after the last write before a change is told.
const DefaultDebounce = 250 * time.Millisecond

// Kind says what an Event is.
type Kind string

const (
	Changed Kind = "changed" // Paths changed (created, written, removed, renamed)
	Missing Kind = "missing" // a watched path does not exist (Paths); the rest is watched
	Failed  Kind = "error"   // the watcher reported an error (Err)
)

// Event is one thing the watcher tells.
type Event struct {
	Kind  Kind
	Paths []string
	Err   error
}

// Watcher watches paths until Close.
type Watcher struct {
	// Events is closed by Close.
	Events <-chan Event

	fs       *fsnotify.Watcher
	debounce time.Duration
	out      chan Event
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once

	mu      sync.Mutex
	files   map[string]bool // exact files watched (through their directory)
	dirs    map[string]bool // directories watched whole (recursively)
	globs   []string        // patterns, matched against the full path
	watched map[string]bool // directories added to fsnotify
}

// skipDir are directories not descended into when a directory is watched.
var skipDir = map[string]bool{".git": true, "node_modules": true, "__pycache__": true, ".venv": true, "vendor": true}

// New watches paths: each a file, a directory or a glob (a pattern with * ? or [).
// A path that does not exist is told as a Missing event (its parent directory is
// watched when it exists, so the file appearing later counts as a change). debounce
// 0 is DefaultDebounce.
func New(paths []string, debounce time.Duration) (*Watcher, error) {
	if len(paths) == 0 {
		return nil, errors.New("watch: no paths")
	}
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watching files: %w", err)
	}
	w := &Watcher{fs: fw, debounce: debounce, out: make(chan Event, 16), stop: make(chan struct{}), done: make(chan struct{}),
		files: map[string]bool{}, dirs: map[string]bool{}, watched: map[string]bool{}}
	w.Events = w.out
	var missing []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			missing = append(missing, p)
			continue
		}
		if strings.ContainsAny(filepath.Base(abs), "*?[") {
			if _, err := filepath.Match(abs, abs); err != nil {
				fw.Close()
				return nil, fmt.Errorf("watch %s: %v", p, err)
			}
			w.globs = append(w.globs, abs)
			if err := w.addDir(filepath.Dir(abs)); err != nil {
				missing = append(missing, p)
			}
			continue
		}
		st, err := os.Stat(abs)
		switch {
		case err != nil:
			missing = append(missing, p)
			w.files[abs] = true
			_ = w.addDir(filepath.Dir(abs)) // it may appear later
		case st.IsDir():
			w.dirs[abs] = true
			w.addTree(abs)
		default:
			w.files[abs] = true
			if err := w.addDir(filepath.Dir(abs)); err != nil {
				missing = append(missing, p)
			}
		}
	}
	if len(w.watched) == 0 {
		fw.Close()
		return nil, fmt.Errorf("watch: none of the paths exists: %s", strings.Join(missing, ", "))
	}
	go w.run(missing)
	return w, nil
}

func (w *Watcher) addDir(dir string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watched[dir] {
		return nil
	}
	if err := w.fs.Add(dir); err != nil {
		return err
	}
	w.watched[dir] = true
	return nil
}

// addTree watches a directory and the directories under it (bounded).
func (w *Watcher) addTree(root string) {
	n := 0
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != root && (skipDir[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if n++; n > 4096 {
			return filepath.SkipAll
		}
		_ = w.addDir(p)
		return nil
	})
}

// relevant reports whether an event's path is one of ours.
func (w *Watcher) relevant(p string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.files[p] {
		return true
	}
	for _, g := range w.globs {
		if ok, _ := filepath.Match(g, p); ok {
			return true
		}
	}
	base := filepath.Base(p)
	if strings.HasSuffix(base, "~") || strings.HasPrefix(base, ".#") || strings.HasSuffix(base, ".swp") || strings.HasSuffix(base, ".swx") || base == "4913" {
		return false // editor backup and probe files
	}
	for d := range w.dirs {
		if p == d || strings.HasPrefix(p, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

func (w *Watcher) run(missing []string) {
	defer close(w.done)
	defer close(w.out)
	send := func(e Event) bool {
		select {
		case w.out <- e:
			return true
		case <-w.stop:
			return false
		}
	}
	if len(missing) > 0 && !send(Event{Kind: Missing, Paths: missing}) {
		return
	}
	var timer *time.Timer
	var fire <-chan time.Time
	pending := map[string]bool{}
	for {
		select {
		case <-w.stop:
			if timer != nil {
				timer.Stop()
			}
			return
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			if !send(Event{Kind: Failed, Err: err}) {
				return
			}
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			if ev.Op == fsnotify.Chmod {
				continue
			}
			if ev.Op&fsnotify.Create != 0 {
				w.mu.Lock()
				inTree := false
				for d := range w.dirs {
					inTree = inTree || strings.HasPrefix(ev.Name, d+string(filepath.Separator))
				}
				w.mu.Unlock()
				if st, err := os.Stat(ev.Name); err == nil && st.IsDir() && inTree {
					w.addTree(ev.Name)
				}
			}
			if !w.relevant(ev.Name) {
				continue
			}
			pending[ev.Name] = true
			if timer == nil {
				timer = time.NewTimer(w.debounce)
			} else {
				timer.Stop()
				timer.Reset(w.debounce)
			}
			fire = timer.C
		case <-fire:
			fire = nil
			paths := make([]string, 0, len(pending))
			for p := range pending {
				paths = append(paths, p)
			}
			sort.Strings(paths)
			pending = map[string]bool{}
			if !send(Event{Kind: Changed, Paths: paths}) {
				return
			}
		}
	}
}

// Close stops watching and closes Events.
func (w *Watcher) Close() error {
	var err error
	w.once.Do(func() {
		close(w.stop)
		err = w.fs.Close()
		<-w.done
	})
	return err
}

// interpreters run a script named by their first non-flag argument.
var interpreters = map[string]bool{
	"node": true, "nodejs": true, "deno": true, "bun": true, "tsx": true, "ts-node": true,
	"python": true, "python3": true, "uv": true, "ruby": true, "perl": true, "php": true,
	"sh": true, "bash": true, "amber": true, "go": true,
}

// DefaultPaths are what plain --watch watches for a server command line: every
// argument that names an existing file, and for an interpreter's entry point
// (node server.js, python server.py, amber mcp tools.ts) its directory.
func DefaultPaths(argv []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		abs, err := filepath.Abs(p)
		if err == nil && !seen[abs] {
			seen[abs] = true
			out = append(out, abs)
		}
	}
	interp := len(argv) > 0 && interpreters[strings.TrimSuffix(filepath.Base(argv[0]), ".exe")]
	for i, a := range argv {
		if i == 0 && !strings.ContainsAny(a, "/\\") {
			continue // a program found on PATH: not the user's file
		}
		v := a
		if k, val, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "-") {
			v = val
		}
		st, err := os.Stat(v)
		if err != nil || v == "" || strings.HasPrefix(v, "-") && err != nil {
			continue
		}
		if st.IsDir() {
			continue // a working directory, say: too wide to watch by default
		}
		add(v)
		if interp && i > 0 {
			add(filepath.Dir(v))
		}
	}
	return out
}
