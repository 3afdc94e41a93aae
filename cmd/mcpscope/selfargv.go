package main

import (
	"os"
	"path/filepath"
)

// A recording made with the bundled host names it `mcpscope host`, not the path of the
// binary that ran it (under `go run` a build-cache path that exists nowhere else);
// replay runs such a command with the mcpscope that is running.

// recordedArgv is argv as a recording stores it.
func recordedArgv(argv []string) []string {
	if len(argv) < 2 || argv[1] != "host" || !isSelf(argv[0]) {
		return argv
	}
	return append([]string{"mcpscope"}, argv[1:]...)
}

// liveArgv is a recorded argv as it is run: `mcpscope ...` is this binary.
func liveArgv(argv []string) []string {
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
