// Command toolsgen writes the tool files scripts/bench-diff serves with
// `mcpscope host --tools FILE`: N tools of three parameters; the second version
// (v 1) adds a required parameter to every tenth tool and edits the description of
// every seventh. cmd/mcpscope's BenchmarkDiff1000 builds and runs it too.
//
//	toolsgen N V > tools.json
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: toolsgen N V")
		os.Exit(2)
	}
	n, err1 := strconv.Atoi(os.Args[1])
	v, err2 := strconv.Atoi(os.Args[2])
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "toolsgen: N and V are numbers")
		os.Exit(2)
	}
	var tools []map[string]any
	for i := range n {
		props := map[string]any{
			"name":  map[string]any{"type": "string", "description": "who to greet"},
			"count": map[string]any{"type": "integer", "minimum": 0},
			"mode":  map[string]any{"type": "string", "enum": []string{"a", "b", "c"}},
		}
		required := []string{"name"}
		desc := fmt.Sprintf("tool number %d", i)
		if v == 1 && i%10 == 0 {
			props["extra"] = map[string]any{"type": "integer"}
			required = append(required, "extra")
		}
		if v == 1 && i%7 == 0 {
			desc += ", edited"
		}
		tools = append(tools, map[string]any{"name": fmt.Sprintf("tool-%04d", i), "description": desc,
			"inputSchema": map[string]any{"type": "object", "properties": props, "required": required},
			"run":         []string{"/bin/echo", "x"}})
	}
	if err := json.NewEncoder(os.Stdout).Encode(map[string]any{"tools": tools}); err != nil {
		fmt.Fprintln(os.Stderr, "toolsgen:", err)
		os.Exit(1)
	}
}
