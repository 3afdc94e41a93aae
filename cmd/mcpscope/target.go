package main

import "github.com/mcpscope/mcpscope/client"

// resolveTarget turns what the user named into a target: the words after "--" (or the
// first positional that starts a command) are a server command to run; nothing at all
// means the bundled host (see defaultTarget).
func resolveTarget(c *common, argv []string) (client.Target, error) {
	if len(argv) == 0 {
		return defaultTarget()
	}
	return client.Target{Argv: argv}, nil
}
