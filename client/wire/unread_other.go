//go:build !linux

package wire

import "os"

// unreadInput cannot count here. Each caller says what it does without the count: the
// probes start their clock once the frame is written, a cancellation is always sent, and
// a server that ended is not retried with another framing (it may never have read).
func unreadInput(*os.File) (int, error) { return 0, errUnreadUnknown }
