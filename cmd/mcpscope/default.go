package main

import "github.com/mcpscope/mcpscope/client"

// defaultTarget is what mcpscope connects to when no server is named.
func defaultTarget() (client.Target, error) {
	return client.Target{}, usageErr("no server given: mcpscope --inspect -- CMD [ARGS...]")
}
