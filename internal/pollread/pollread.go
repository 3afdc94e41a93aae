// Package pollread makes a process's standard input wait for data in the Go runtime's
// poller instead of in a blocking read(2).
//
// Why: a child inherits its stdin pipe in blocking mode, so os.Stdin reads it with a
// blocking read(2) and the reading goroutine spends the time between two messages in
// the kernel. Go 1.26's runtime (src/runtime/proc.go of go1.26.8) has a window there:
// reentersyscall checks for a pending stop-the-world (line 4682) before it marks the
// goroutine as in a syscall (4697), and stopTheWorldWithSema takes the Ps of
// syscalling goroutines once (1668), then only re-preempts running ones while it waits
// (1690, preemptone skips syscalls at 6875). When a garbage collection's stop-the-world
// begins in that window, it waits for the reader's P while every other goroutine is
// stopped; sysmon, asleep while a stop is pending, wakes after forcegcperiod/2 = 60 s
// (6524-6545; sooner only if a timer is due) and takes the P. Until then, or until the
// client writes again, a server that has just read a request answers nothing: the
// "60 s stall" of issue 14 item 9. A read that waits in the poller parks its goroutine
// and never sits in that window for long.
package pollread

import "os"

// Stdin returns a reader of f, which should be os.Stdin, that waits for input in the
// runtime's poller, and a function that undoes the change (it closes the reader and
// leaves f's file description as it found it). When f is not a pipe or a socket (a
// terminal, a regular file), is already non-blocking, or the change is not possible on
// this system, Stdin returns f itself and a no-op. Until undo, read only the returned
// reader: f shares its file description, now non-blocking, and a read of f itself
// would fail with EAGAIN.
func Stdin(f *os.File) (*os.File, func()) {
	r, undo, ok := pollable(f)
	if !ok {
		return f, func() {}
	}
	return r, undo
}
