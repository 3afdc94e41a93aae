package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/host"
	"github.com/mcpscope/mcpscope/internal/idlemem"
)

// runHost serves the bundled tool host (see package host).
func runHost(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("host", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		tools, framing, httpAddr string
		demo, allowRemote        bool
		conformance, faults      bool
	)
	fs.StringVar(&tools, "tools", "", "serve the tools in `FILE` ({\"tools\":[{\"name\":…,\"run\":[argv…]}]})")
	fs.BoolVar(&demo, "demo", false, "with --tools, serve the demo tools too")
	fs.BoolVar(&conformance, "conformance", false, "serve, beside the demo, the tools, resources and prompts the official conformance suite's server scenarios call (over --http, 2025 clients that initialize get a session, so the host can ask them for sampling and elicitation)")
	fs.BoolVar(&faults, "faults", false, "serve deliberate protocol faults as fixtures for clients: bad_output (structuredContent that breaks its own outputSchema)")
	fs.StringVar(&framing, "framing", "", "stdio framing: ndjson (default) or content-length")
	fs.StringVar(&httpAddr, "http", "", "serve stateless Streamable HTTP at http://`ADDR`/mcp (a bare --http: "+host.DefaultHTTPAddr+")")
	fs.BoolVar(&allowRemote, "allow-remote", false, "allow --http on an address that is not loopback (there is no authentication)")
	if err := fs.Parse(defaultHTTPAddr(args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &helpError{fs}
		}
		return usageErr("%s (see mcpscope host --help)", flagError(fs, err))
	}
	if fs.NArg() > 0 {
		return usageErr("host takes no arguments, got %q (see mcpscope host --help)", fs.Arg(0))
	}
	switch framing {
	case "", host.FramingNDJSON, host.FramingContentLength:
	default:
		return usageErr("--framing %q: use ndjson or content-length", framing)
	}
	if httpAddr != "" && framing != "" {
		return usageErr("--framing applies to stdio; it cannot be combined with --http")
	}
	if allowRemote && httpAddr == "" {
		return usageErr("--allow-remote applies to --http")
	}
	if demo && tools == "" {
		return usageErr("--demo adds the demo tools to a --tools file; without --tools they are served anyway")
	}
	if conformance && tools != "" {
		return usageErr("--conformance serves the demo and the conformance suite's fixtures; it cannot be combined with --tools")
	}
	if httpAddr != "" {
		if err := host.CheckBindAddr(httpAddr, allowRemote); err != nil {
			return usageErr("%v", err)
		}
	}

	restoreGC := startupGC()
	defer restoreGC()
	h, err := host.New(host.Options{
		ToolFile:    tools,
		Demo:        demo,
		Conformance: conformance,
		Faults:      faults,
		Logger:      slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
		Version:     client.Version,
	})
	if err != nil {
		return err
	}
	defer h.Close()
	// A server mostly waits: idle, it gives back its free heap and the binary's pages
	// its start touched, as the workbench does (package idlemem).
	idle, stopIdle := context.WithCancel(ctx)
	defer stopIdle()
	go idlemem.Watch(idle, 2*time.Second)
	h.Server().AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				restoreGC()
			}
			return next(ctx, method, req)
		}
	})

	if httpAddr != "" {
		mode := "stateless; 2025 and 2026-07-28 clients"
		if conformance {
			mode = "conformance fixtures; sessions for 2025 clients that initialize, stateless for 2026-07-28"
		}
		if faults {
			mode += "; with deliberate protocol faults"
		}
		return host.ServeHTTP(ctx, h.HTTPHandler(), httpAddr, allowRemote, func(a net.Addr) {
			fmt.Fprintf(stderr, "mcpscope host: serving http://%s/mcp (%s)\n", a, mode)
		})
	}
	err = host.ServeStdio(ctx, h.Server(), os.Stdin, stdout, framing)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil // interrupted: a normal way to stop a server
	}
	return err
}

// startupGC makes the garbage collector run less often while the host starts:
// starting allocates a few MB of short-lived work (the SDK resolving every demo tool's
// schema, the first tools/list), and collecting it at the default pace costs about a
// quarter of the start's CPU, which five hosts started at once on two cores feel.
// restore (called on the first tool call, and after a few seconds in any case) goes
// back to the default pace, so that a big result is collected as usual.
func startupGC() (restore func()) {
	old := debug.SetGCPercent(400)
	var once sync.Once
	restore = func() { once.Do(func() { debug.SetGCPercent(old) }) }
	time.AfterFunc(3*time.Second, restore)
	return restore
}

// defaultHTTPAddr turns a bare --http (last, or followed by another flag) into
// --http=DefaultHTTPAddr, since the flag package needs a value.
func defaultHTTPAddr(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--http" || a == "-http") && (i == len(args)-1 || strings.HasPrefix(args[i+1], "-")) {
			a = "--http=" + host.DefaultHTTPAddr
		}
		out = append(out, a)
	}
	return out
}
