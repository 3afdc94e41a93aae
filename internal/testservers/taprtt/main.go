// Command taprtt is the client scripts/bench-tap measures the stdio tap's added
// latency with: the official go-sdk client (v1.8.0, its defaults) connected to a stdio
// server, making N tools/call round trips one after the other, and printing the median
// round trip in microseconds. Run once on the server directly and once on
// `mcpscope tap -- SERVER`, the two medians' difference is what the tap adds.
//
//	taprtt N TOOL ARGS_JSON -- SERVER_CMD [ARGS...]
//	taprtt once TOOL ARGS_JSON -- SERVER_CMD [ARGS...]
//
// once is the bare exchange of one call (initialize, initialized, the call, its
// answer read whole into memory; no SDK, no JSON decoding), timed from the start of
// the server command to the last byte of the answer, and printed in seconds: what a
// host waits for a big result. The server's exit is waited for, not timed (the tap
// finishes its recording then).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	i := slices.Index(os.Args, "--")
	if len(os.Args) < 6 || i != 4 {
		fmt.Fprintln(os.Stderr, "usage: taprtt N TOOL ARGS_JSON -- SERVER_CMD [ARGS...]")
		os.Exit(2)
	}
	if os.Args[1] == "once" {
		once(os.Args[2], os.Args[3], os.Args[5:])
		return
	}
	n, err := strconv.Atoi(os.Args[1])
	check(err)
	var args map[string]any
	check(json.Unmarshal([]byte(os.Args[3]), &args))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang catcher
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "taprtt", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(os.Args[5], os.Args[6:]...)}, nil)
	check(err)
	defer cs.Close()
	// A few calls first: the server's and the tap's first-call costs are no round trip.
	for range 20 {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: os.Args[2], Arguments: args})
		check(err)
	}
	rtts := make([]time.Duration, n)
	for k := range rtts {
		start := time.Now()
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: os.Args[2], Arguments: args})
		check(err)
		rtts[k] = time.Since(start)
	}
	slices.Sort(rtts)
	fmt.Printf("%.1f\n", float64(rtts[n/2].Nanoseconds())/1e3)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "taprtt:", err)
		os.Exit(1)
	}
}

func once(tool, args string, argv []string) {
	start := time.Now()
	cmd := exec.Command(argv[0], argv[1:]...)
	stdin, err := cmd.StdinPipe()
	check(err)
	stdout, err := cmd.StdoutPipe()
	check(err)
	check(cmd.Start())
	fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"taprtt","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":%q,"arguments":%s}}`+"\n", tool, args)
	r := bufio.NewReaderSize(stdout, 64<<10)
	for {
		line, err := r.ReadBytes('\n') // the whole line, in memory
		if bytes.Contains(line[:min(len(line), 64)], []byte(`"id":2`)) {
			break
		}
		check(err)
	}
	took := time.Since(start)
	stdin.Close()
	_ = cmd.Wait()
	fmt.Printf("%.3f\n", took.Seconds())
}
