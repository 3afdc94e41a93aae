package main

import (
	"fmt"
	"io"

	"github.com/mcpscope/mcpscope/tap/live"
)

// publishTap starts a tap's live stream (mcpscope taps, mcpscope attach): its
// recording's bytes, published on the per-user socket of package live. The tap must
// never break the host for want of it: when it cannot be published (a name already
// live, a directory that is not the user's), the tap goes on without it, said once.
// end closes the stream and marks the tap finished; it is never nil.
func publishTap(info live.Info, stderr io.Writer) (w io.Writer, end func()) {
	p, err := live.Publish(info)
	if err != nil {
		fmt.Fprintf(stderr, "mcpscope tap: no live stream (mcpscope attach will not see this tap): %v\n", err)
		return nil, func() {}
	}
	return p, func() { _ = p.Close() }
}
