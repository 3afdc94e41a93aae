package config

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpscope/mcpscope/internal/recsniff"
	"github.com/mcpscope/mcpscope/internal/shquote"
)

// NotAProgram says what to do when a server command names a file that cannot run:
// a regular file with no execute bit. exec would only say "permission denied", and the
// file is most often a recording (meant for replay, serve or open), a script (meant for
// its interpreter) or a config file (meant for --config). It is "" for anything else,
// and the start reports what it finds.
func NotAProgram(path string) string {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 != 0 {
		return ""
	}
	q := shquote.Quote(path)
	if recsniff.Sniff(path) {
		return path + " is an mcpscope recording, not a server: mcpscope replay " + q +
			" runs it against its server as a test, mcpscope serve " + q +
			" answers as its server did (a mock), mcpscope open " + q + " browses it"
	}
	var run string
	switch strings.ToLower(filepath.Ext(path)) {
	case ".py":
		run = "python3 " + q + " (or: uv run " + q + ")"
	case ".js", ".mjs", ".cjs":
		run = "node " + q
	case ".ts", ".mts", ".cts":
		run = "npx tsx " + q
	case ".sh":
		run = "sh " + q
	case ".rb":
		run = "ruby " + q
	case ".json", ".jsonc":
		return path + " is not a program: to start a server a config file names, give --config " + q + " NAME (mcpscope servers --config " + q + " lists them)"
	default:
		return path + " is not executable: chmod +x " + q + ", or give its interpreter first (mcpscope -- INTERPRETER " + q + ")"
	}
	return path + " is not executable: give its interpreter first, mcpscope -- " + run + ", or chmod +x " + q
}
