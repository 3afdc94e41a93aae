package record

import (
	"os"
	"path/filepath"
)

// A file mcpscope writes (a recording, a History collection) names the bundled host
// `mcpscope host ARGS`, not the path of the binary that ran it (under `go run` a
// build-cache path that exists nowhere else, otherwise a path on one machine); replay,
// serve and open run such a command with the mcpscope that is running. One rule here,
// so that every writer and every reader of the files agree.

// StoredArgv is argv as a file stores it: the running binary's `host` is `mcpscope host`.
func StoredArgv(argv []string) []string {
	if len(argv) < 2 || argv[1] != "host" || !isSelf(argv[0]) {
		return argv
	}
	return append([]string{"mcpscope"}, argv[1:]...)
}

// LiveArgv is a stored argv as it is run: `mcpscope ...` is this binary.
func LiveArgv(argv []string) []string {
	if len(argv) == 0 || argv[0] != "mcpscope" {
		return argv
	}
	self, err := os.Executable()
	if err != nil {
		return argv // run from $PATH, as written
	}
	return append([]string{self}, argv[1:]...)
}

// isSelf reports whether path is the running mcpscope binary.
func isSelf(path string) bool {
	self, err := os.Executable()
	if err != nil {
		return false
	}
	if path == self {
		return true
	}
	a, err1 := filepath.EvalSymlinks(path)
	b, err2 := filepath.EvalSymlinks(self)
	return err1 == nil && err2 == nil && a == b
}
