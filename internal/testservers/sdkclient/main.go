// Command sdkclient is the reference scripts/bench-oneshot measures mcpscope's HTTP
// one-shots against: a bare go-sdk v1.8.0 client with the SDK's defaults doing the
// same requests as the mcpscope command, printing the answer with fmt, no checks.
//
//	sdkclient URL call TOOL ARGS_JSON     (as mcpscope call --args, less the tools/list)
//	sdkclient URL inspect                 (tools, resources, templates, prompts: --inspect)
//	sdkclient URL tools                   (tools/list alone: scripts/bench-workbench's floor)
//	sdkclient URL read URI                (mcpscope read)
//	sdkclient URL prompts                 (mcpscope prompts)
//	sdkclient stdio MODE ... -- SERVER_CMD [ARGS...]   (the same over stdio: scripts/bench-big)
//	sdkclient version                     (the go-sdk's version, no request: as mcpscope --version,
//	                                       the cost of starting the process alone)
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "version" {
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, m := range bi.Deps {
				if m.Path == "github.com/modelcontextprotocol/go-sdk" {
					fmt.Println("go-sdk", m.Version)
				}
			}
		}
		return
	}
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: sdkclient URL call TOOL ARGS_JSON | inspect | read URI | prompts")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang catcher: a 100 MiB result on a loaded machine took over 30 s
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "sdkclient", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	var transport mcp.Transport = &mcp.StreamableClientTransport{Endpoint: os.Args[1]}
	if i := slices.Index(os.Args, "--"); os.Args[1] == "stdio" && i > 0 && i+1 < len(os.Args) {
		// IOTransport, not CommandTransport: that one refuses a line over 16 MiB, and
		// the point is to read the big result as the SDK would if allowed to.
		server := exec.Command(os.Args[i+1], os.Args[i+2:]...)
		stdin, err := server.StdinPipe()
		check(err)
		stdout, err := server.StdoutPipe()
		check(err)
		check(server.Start())
		defer server.Wait()
		transport = &mcp.IOTransport{Reader: stdout, Writer: stdin, MaxLineLength: -1}
		os.Args = os.Args[:i]
	}
	cs, err := client.Connect(ctx, transport, nil)
	check(err)
	defer cs.Close()
	switch os.Args[2] {
	case "call":
		var args map[string]any
		check(json.Unmarshal([]byte(os.Args[4]), &args))
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: os.Args[3], Arguments: args})
		check(err)
		for _, c := range r.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				fmt.Println(t.Text)
			}
		}
	case "tools":
		for t, err := range cs.Tools(ctx, nil) {
			check(err)
			fmt.Println(t.Name, t.Description)
		}
	case "inspect":
		for t, err := range cs.Tools(ctx, nil) {
			check(err)
			fmt.Println(t.Name, t.Description)
		}
		for r, err := range cs.Resources(ctx, nil) {
			check(err)
			fmt.Println(r.URI, r.Name)
		}
		for r, err := range cs.ResourceTemplates(ctx, nil) {
			check(err)
			fmt.Println(r.URITemplate, r.Name)
		}
		fallthrough
	case "prompts":
		for p, err := range cs.Prompts(ctx, nil) {
			check(err)
			fmt.Println(p.Name, p.Description)
		}
	case "read":
		r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: os.Args[3]})
		check(err)
		for _, c := range r.Contents {
			fmt.Println(c.Text)
		}
	default:
		fmt.Fprintln(os.Stderr, "sdkclient: unknown mode", os.Args[2])
		os.Exit(2)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "sdkclient:", err)
		os.Exit(1)
	}
}
