package main

import (
	"context"
	"flag"
	"io"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
)

// registerRecordFlags adds the recording flags to every command that talks to a server.
func registerRecordFlags(fs *flag.FlagSet, c *common) {
	fs.StringVar(&c.record, "record", "", "record the session to this file (JSON Lines)")
}

// startRecording starts writing the session's wire events to c.record, if set. The
// returned stop finishes the file; it is called after the session has closed.
func startRecording(c *common, target client.Target, tap *wire.Tap) (stop func(), err error) {
	if c.record == "" {
		return func() {}, nil
	}
	return nil, usageErr("--record is not built yet")
}

// runReplay runs a recording again against a live server as a golden test.
func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return usageErr("mcpscope replay is not built yet")
}

// runServe serves a recording as a mock MCP server.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return usageErr("mcpscope serve is not built yet")
}
