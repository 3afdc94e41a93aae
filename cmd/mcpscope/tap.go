package main

import (
	"context"
	"flag"
	"io"
)

// runTap is `mcpscope tap`. This file is slice D's stand-in (issue 24): slice A owns
// tap.go with the stdio tap; the lead merges its dispatch of wrap and unwrap here
// into A's.
func runTap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	switch first(args) {
	case "--help", "-help", "-h":
		return &helpError{flag.NewFlagSet("tap", flag.ContinueOnError)}
	case "wrap":
		return runTapWrap(ctx, args[1:], stdout, stderr)
	case "unwrap":
		return runTapUnwrap(ctx, args[1:], stdout, stderr)
	}
	return usageErr("tap: this build has only tap wrap NAME and tap unwrap NAME")
}
