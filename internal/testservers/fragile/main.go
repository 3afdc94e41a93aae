// Command fragile is a stdio MCP server that crashes on an argument of the wrong
// type (a type assertion that panics, as an unchecked handler does) and refuses
// every other bad argument properly (isError): mcpscope check must report the crash,
// start it again and go on with the other cases.
package main

import (
	"fmt"
	"os"
	"slices"

	"github.com/mcpscope/mcpscope/internal/testservers/badinput"
)

func main() {
	badinput.Serve(os.Stdin, os.Stdout, func(tool string, args map[string]any) (string, bool) {
		v, ok := args["id"]
		if !ok {
			return "id is required", true
		}
		id := v.(float64) // panics on a string: the crash this server reproduces
		if mode, ok := args["mode"]; ok && !slices.Contains([]any{"fast", "full"}, mode) {
			return "mode must be fast or full", true
		}
		return fmt.Sprintf("%s %v", tool, id), false
	})
}
