// Package pollread makes a process's standard input wait for data in the Go runtime's
// poller instead of in a blocking read(2).
//
// Why: a child inherits its stdin pipe in blocking mode, so os.Stdin reads it with a
// blocking read(2) and the reading goroutine spends the time between two messages in
// the kernel. Go 1.26's runtime (proc.go) checks for a pending stop-the-world in
// reentersyscall before it marks the goroutine as being in a syscall, while
// stopTheWorldWithSema takes the Ps of syscalling goroutines only once, before it
// starts waiting. When a garbage collection's stop-the-world begins in that window,
// neither side sees the other: the world stop waits for the reader's P, sysmon sleeps
// while a stop is pending, and every goroutine of the process stays stopped until the
// read returns, that is until the client writes again. A server that has just read a
// request then answers nothing until the client gives up and sends a cancellation
// (about 60 s with mcpscope's default --timeout). A read that waits in the poller
// parks the goroutine instead and is never in that state.
package pollread

import "os"

// Stdin returns a reader of f, which should be os.Stdin, that waits for input in the
// runtime's poller, and a function that undoes the change (it closes the reader and
// leaves f's file description as it found it). When f is not a pipe or a socket (a
// terminal, a regular file), is already non-blocking, or the change is not possible on
// this system, Stdin returns f itself and a no-op.
func Stdin(f *os.File) (*os.File, func()) {
	r, undo, ok := pollable(f)
	if !ok {
		return f, func() {}
	}
	return r, undo
}
