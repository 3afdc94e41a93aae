package main

import (
	"fmt"
	"os"

	"github.com/mcpscope/mcpscope/target"
)

// defaultTarget is what mcpscope connects to when no server is named: its own bundled
// host (mcpscope host), run as a child over stdio like any other server, so the wire
// views show real traffic and a fresh machine needs nothing else installed.
func defaultTarget() (target.Target, error) {
	self, err := os.Executable()
	if err != nil {
		return target.Target{}, fmt.Errorf("cannot find mcpscope's own executable to run the bundled host: %w; name a server instead: mcpscope --inspect -- CMD", err)
	}
	return target.Target{Argv: []string{self, "host"}}, nil
}
