package main

import (
	"context"
	"io"
	"strings"
)

// runTap is `mcpscope tap`. It dispatches (notes/r5/contract.md): --listen ADDR URL
// before any "--" is the HTTP reverse proxy (taplisten.go); anything else is the
// stdio tap, which is not in this branch (the lead merges it from the stdio tap's).
func runTap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--listen" || a == "-listen" || strings.HasPrefix(a, "--listen=") || strings.HasPrefix(a, "-listen=") ||
			a == "--help" || a == "-help" || a == "-h" {
			return runTapListen(ctx, args, stdout, stderr)
		}
	}
	return usageErr("mcpscope tap --listen ADDR URL: only the HTTP tap is in this build (see mcpscope tap --help)")
}
