// Command replayrec writes the recording scripts/bench-replay replays: N tools/call
// echo against an MCP server, made by mcpscope's own client and recorder (the path
// `--record` runs), so the file is what a user's recording of N calls is.
//
//	replayrec N FILE URL|CMD ARGS...
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/target"
)

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: replayrec N FILE URL|CMD ARGS...")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[1])
	check(err)
	file, argv := os.Args[2], os.Args[3:]
	t := target.Target{Argv: argv}
	h := record.Header{Target: record.Target{Transport: "stdio", Argv: argv}}
	if len(argv) == 1 && strings.HasPrefix(argv[0], "http") {
		t = target.Target{URL: argv[0]}
		h.Target = record.Target{Transport: "http", URL: argv[0]}
	}
	w, err := record.Create(file, h, nil)
	check(err)
	tap := &wire.Tap{}
	tap.Listen(w.Listen)
	ctx := context.Background()
	s, err := client.Connect(ctx, t, client.Options{Tap: tap})
	check(err)
	for i := range n {
		args := json.RawMessage(fmt.Sprintf(`{"text":"message %d"}`, i))
		_, err := s.Call(ctx, "echo", args, client.CallOptions{})
		check(err)
	}
	s.Close()
	check(w.Close())
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "replayrec:", err)
		os.Exit(1)
	}
}
