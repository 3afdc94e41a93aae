// Command bareclient is the bare exchange that mcpscope's big-result benchmarks are
// measured against: it starts a stdio server, sends initialize, initialized and one
// tools/call, and reads the whole answer into memory, with no JSON decoding and no
// MCP library. It is what any client must at least do.
//
//	bareclient TOOL ARGS_JSON -- SERVER_CMD [ARGS...]
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) < 5 || os.Args[3] != "--" {
		fmt.Fprintln(os.Stderr, "usage: bareclient TOOL ARGS_JSON -- SERVER_CMD [ARGS...]")
		os.Exit(2)
	}
	tool, args, argv := os.Args[1], os.Args[2], os.Args[4:]
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = io.Discard
	stdin, err := cmd.StdinPipe()
	if err != nil {
		fail(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fail(err)
	}
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bare","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":%q,"arguments":%s}}`+"\n", tool, args)
	r := bufio.NewReaderSize(stdout, 64<<10)
	for {
		line, err := r.ReadBytes('\n') // the whole line, in memory
		if bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","id":2,`)) || bytes.Contains(line[:min(len(line), 64)], []byte(`"id":2`)) {
			fmt.Printf("%d bytes\n", len(line))
			break
		}
		if err != nil {
			fail(fmt.Errorf("the server's output ended before the answer: %v", err))
		}
	}
	stdin.Close()
	_ = cmd.Wait()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bareclient:", err)
	os.Exit(1)
}
