// Command stuck is a stdio MCP server that stops answering for good on an argument of
// the wrong type (a handler that waits on something that never comes, as one blocked
// on a lock or a dead upstream does): mcpscope check must fail that case after
// --call-timeout, start the server again and go on with the other cases.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/mcpscope/mcpscope/internal/testservers/badinput"
)

func main() {
	badinput.Serve(os.Stdin, os.Stdout, func(tool string, args map[string]any) (string, bool) {
		v, ok := args["id"]
		if !ok {
			return "id is required", true
		}
		if _, ok := v.(float64); !ok {
			// Never answers, never reads another request (until killed: the
			// session's close ends it). Not select{}: the runtime calls that a
			// deadlock and exits, which is the crash fragile reproduces.
			time.Sleep(24 * time.Hour)
		}
		if mode, ok := args["mode"]; ok && mode != "fast" && mode != "full" {
			return "mode must be fast or full", true
		}
		return fmt.Sprintf("%s %v", tool, v), false
	})
}
