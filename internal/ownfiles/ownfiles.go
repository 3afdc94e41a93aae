// Package ownfiles knows the files this process writes: its standard output and error
// when they are files (`mcpscope … > w.out`), and the recordings, history and saved
// files it writes (their writers call Add). A file watch asks Is before it takes a
// change for an edit: mcpscope's own output in a watched directory restarted the
// server on every line it printed, forever (issue 20).
//
// It is one set for the process, not a value handed around, because what it holds is
// a property of the process (its standard files) and of writers deep in other
// packages (record, history), which cannot know whether a watch runs.
package ownfiles

import (
	"os"
	"path/filepath"
	"sync"
)

var (
	mu    sync.Mutex
	paths = map[string]bool{}
	infos []added // the files as they were when added (device and inode)
)

// added is a file Add noted: its path, and its identity then.
type added struct {
	path string
	fi   os.FileInfo
}

// Expect notes that this process is about to make the file at path: call it before the
// file is made, so that a watch knows it from its first event, and Add once it is
// made, or Forget when it was not.
func Expect(path string) {
	if abs, err := filepath.Abs(path); err == nil {
		mu.Lock()
		paths[abs] = true
		mu.Unlock()
	}
}

// Forget undoes Expect: the file at path was not made (the name was taken by another).
func Forget(path string) {
	if abs, err := filepath.Abs(path); err == nil {
		mu.Lock()
		delete(paths, abs)
		mu.Unlock()
	}
}

// Add notes that this process writes the file at path. Call it once the file exists,
// so that it is known by identity (device and inode) as well as by name.
func Add(path string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return
	}
	st, err := os.Stat(abs)
	mu.Lock()
	defer mu.Unlock()
	paths[abs] = true
	if err == nil && st.Mode().IsRegular() {
		for _, a := range infos {
			if a.path == abs && os.SameFile(a.fi, st) {
				return
			}
		}
		infos = append(infos, added{abs, st})
	}
}

// Is reports whether path (absolute) is a file this process writes: one added, or its
// standard output or error, compared by device and inode (the redirection may name it
// by another path, or through a link).
func Is(path string) bool {
	mu.Lock()
	known := paths[path]
	mu.Unlock()
	if known {
		return true
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	for _, f := range []*os.File{os.Stdout, os.Stderr} {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && os.SameFile(fi, st) {
			return true
		}
	}
	mu.Lock()
	candidates := make([]added, 0, len(infos))
	for _, a := range infos {
		if os.SameFile(a.fi, st) {
			candidates = append(candidates, a)
		}
	}
	mu.Unlock()
	// The same device and inode is the same file only while the file added is still
	// there: once it is deleted, the system gives its inode to the next file made. A
	// test process's recordings are deleted with their test's directory, and a source
	// file made later with the inode of one was taken for mcpscope's own output, so
	// its edits never restarted the server (CI saw it: TestWatchFailedStartShowsItsOwnStderr).
	for _, a := range candidates {
		if now, err := os.Stat(a.path); err == nil && os.SameFile(now, st) {
			return true
		}
	}
	return false
}
