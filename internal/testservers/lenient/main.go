// Command lenient is a stdio MCP server that accepts invalid arguments: its tools
// never check their input schema (what many hand-written servers do), so every
// negative case of mcpscope check must be caught as accepted.
package main

import (
	"fmt"
	"os"

	"github.com/mcpscope/mcpscope/internal/testservers/badinput"
)

func main() {
	badinput.Serve(os.Stdin, os.Stdout, func(tool string, args map[string]any) (string, bool) {
		return fmt.Sprintf("%s done with %v", tool, args), false
	})
}
