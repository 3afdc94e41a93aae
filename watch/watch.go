// Package watch tells when files change: a file, a directory (and the directories
// under it) or a glob, debounced so that a burst of writes (an editor writing in many
// small writes, or by writing a temporary file and renaming it over the original)
// is one "changed" event. It watches directories, not files, so a file replaced by a
// rename is still watched afterwards. It uses fsnotify (inotify, kqueue, ...).
//
// What is not an edit is never told, wherever it is watched from (see ignored and
// output): mcpscope's own output (its standard output or error redirected to a file,
// its recordings, history and saved files: package ownfiles), a file a process
// mcpscope started holds open for writing (a server's log; Linux, from /proc), and
// editors' backup and temporary files. Under a directory watched whole, also what
// the .gitignore files of the directory and of its parents up to the repository's
// root ignore, version control and dependency directories (.git, node_modules,
// __pycache__, .venv, vendor, hidden directories) and logs (*.log). A server
// writing into the directory it is watched from restarted itself three times a
// second, forever (issue 20).
package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	ignore "github.com/sabhiram/go-gitignore"

	"github.com/mcpscope/mcpscope/internal/ownfiles"
	"github.com/mcpscope/mcpscope/internal/proctree"
	"github.com/mcpscope/mcpscope/internal/readfile"
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
	ignores []gitignore     // the .gitignore files that apply to the directories
	// outputs are files once seen open for writing by a process mcpscope started:
	// still its output when it next writes them after closing them in between.
	outputs map[string]bool
}

// gitignore is one .gitignore file: its patterns apply to paths under base.
type gitignore struct {
	path, base string
	gi         *ignore.GitIgnore
}

// skipDir are directories not descended into when a directory is watched, and whose
// contents are not edits: version control, dependencies, caches. (Hidden directories
// are skipped too.)
var skipDir = map[string]bool{".git": true, "node_modules": true, "__pycache__": true, ".venv": true, "vendor": true}

// noiseFile reports whether a file's name says it is no source under a directory
// watched whole: a log (a server's, npm's) or a temporary file (written, then renamed
// over the real name, which is an event of its own).
func noiseFile(base string) bool {
	return strings.HasSuffix(base, ".log") || strings.HasSuffix(base, ".tmp")
}

// editorFile reports whether a file's name is an editor's backup or probe file.
func editorFile(base string) bool {
	return strings.HasSuffix(base, "~") || strings.HasPrefix(base, ".#") || strings.HasSuffix(base, ".swp") || strings.HasSuffix(base, ".swx") || base == "4913"
}

// maxGitignore bounds the size of a .gitignore read.
const maxGitignore = 1 << 20

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
		files: map[string]bool{}, dirs: map[string]bool{}, watched: map[string]bool{}, outputs: map[string]bool{}}
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
			w.loadIgnores(abs)
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
		if p != root && (skipDir[d.Name()] || strings.HasPrefix(d.Name(), ".") || w.gitignored(p, true)) {
			return filepath.SkipDir
		}
		if n++; n > 4096 {
			return filepath.SkipAll
		}
		_ = w.addDir(p)
		return nil
	})
}

// loadIgnores reads the .gitignore files that apply under dir: its own and its
// parents' up to the repository's root (the directory holding .git), or the file
// system's root outside a repository. Only the watched directory's own are read from
// below it; nested ones deeper down are not (the common case is one at the root).
func (w *Watcher) loadIgnores(dir string) {
	for d := dir; ; {
		w.loadIgnore(filepath.Join(d, ".gitignore"))
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return
		}
		parent := filepath.Dir(d)
		if parent == d {
			return
		}
		d = parent
	}
}

// loadIgnore reads (or reads again) one .gitignore; a missing or unreadable one
// ignores nothing.
func (w *Watcher) loadIgnore(path string) {
	var gi *ignore.GitIgnore
	if b, err := readfile.Read(path, maxGitignore); err == nil {
		gi = ignore.CompileIgnoreLines(strings.Split(string(b), "\n")...)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.ignores {
		if w.ignores[i].path == path {
			w.ignores[i].gi = gi
			return
		}
	}
	if gi != nil {
		w.ignores = append(w.ignores, gitignore{path: path, base: filepath.Dir(path), gi: gi})
	}
}

// gitignored reports whether a .gitignore ignores p (a directory when dir).
func (w *Watcher) gitignored(p string, dir bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gitignoredLocked(p, dir)
}

func (w *Watcher) gitignoredLocked(p string, dir bool) bool {
	for _, g := range w.ignores {
		if g.gi == nil {
			continue
		}
		rel, err := filepath.Rel(g.base, p)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		rel = filepath.ToSlash(rel)
		if dir {
			rel += "/"
		}
		if g.gi.MatchesPath(rel) {
			return true
		}
	}
	return false
}

// relevant reports whether an event's path is one of ours and, by its name and
// place, could be an edit (see the package comment); output says whether it is
// written by mcpscope or what it started.
func (w *Watcher) relevant(p string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	base := filepath.Base(p)
	if editorFile(base) {
		return false // editor backup and probe files
	}
	if w.files[p] {
		return true
	}
	for _, g := range w.globs {
		if ok, _ := filepath.Match(g, p); ok {
			return true
		}
	}
	for d := range w.dirs {
		if p == d {
			return true
		}
		rel, ok := strings.CutPrefix(p, d+string(filepath.Separator))
		if !ok {
			continue
		}
		parts := strings.Split(rel, string(filepath.Separator))
		for _, part := range parts[:len(parts)-1] {
			if skipDir[part] || strings.HasPrefix(part, ".") {
				return false
			}
		}
		if skipDir[base] || base == ".gitignore" || noiseFile(base) {
			return false
		}
		st, err := os.Lstat(p)
		isDir := err == nil && st.IsDir()
		if isDir && strings.HasPrefix(base, ".") {
			return false
		}
		if w.gitignoredLocked(p, isDir) {
			return false
		}
		return true
	}
	return false
}

// output reports whether p is written by mcpscope itself or by a process it started
// (see the package comment); the second is remembered for the rest of the watch.
func (w *Watcher) output(p string) bool {
	if ownfiles.Is(p) {
		return true
	}
	w.mu.Lock()
	known := w.outputs[p]
	w.mu.Unlock()
	if known {
		return true
	}
	st, err := os.Stat(p)
	if err != nil || !proctree.WrittenByDescendant(st) {
		return false
	}
	w.mu.Lock()
	w.outputs[p] = true
	w.mu.Unlock()
	return true
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
	// pending are the paths changed in this burst; true for one the burst created
	// (its first event a Create). One created and gone when the burst ends was a
	// saving program's temporary file (sed -i's ./sedXXXXXX, an editor's, under any
	// name), renamed onto the file that changed: not a change itself.
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
			if filepath.Base(ev.Name) == ".gitignore" {
				w.mu.Lock()
				loaded := false
				for _, g := range w.ignores {
					loaded = loaded || g.path == ev.Name
				}
				for d := range w.dirs {
					loaded = loaded || filepath.Dir(ev.Name) == d
				}
				w.mu.Unlock()
				if loaded {
					w.loadIgnore(ev.Name)
				}
			}
			if !w.relevant(ev.Name) {
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
			if w.output(ev.Name) {
				continue
			}
			if _, seen := pending[ev.Name]; !seen {
				pending[ev.Name] = ev.Op&fsnotify.Create != 0
			}
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
			for p, created := range pending {
				if _, err := os.Lstat(p); created && errors.Is(err, fs.ErrNotExist) {
					continue // made and gone within the burst: a temporary file
				}
				paths = append(paths, p)
			}
			sort.Strings(paths)
			pending = map[string]bool{}
			if len(paths) == 0 {
				continue // nothing that was there before or is there now changed
			}
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
