// Command sdkloop is the reference scripts/bench-replay measures `mcpscope replay`
// against: a bare go-sdk v1.8.0 client with the SDK's defaults that sends the same N
// tools/call echo a replay of replayrec's recording sends, one after the other, and
// compares nothing.
//
//	sdkloop URL N
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: sdkloop URL N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	check(err)
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "sdkloop", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: os.Args[1]}, nil)
	check(err)
	defer cs.Close()
	for i := range n {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": fmt.Sprintf("message %d", i)}})
		check(err)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "sdkloop:", err)
		os.Exit(1)
	}
}
