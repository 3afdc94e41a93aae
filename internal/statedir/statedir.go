// Package statedir names where mcpscope keeps what lasts across sessions: the call
// history, the pinned surfaces.
package statedir

import (
	"fmt"
	"os"
	"path/filepath"
)

// Path is $XDG_STATE_HOME/mcpscope/SUB (an absolute XDG_STATE_HOME only), or
// ~/.local/state/mcpscope/SUB; what names the error is what for ("the history").
func Path(sub, what string) (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "mcpscope", sub), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no state directory for %s: %v (set XDG_STATE_HOME)", what, err)
	}
	return filepath.Join(home, ".local", "state", "mcpscope", sub), nil
}
