//go:build unix

package host

import (
	"os"
	"syscall"
	"testing"
)

// blockingPipe is a pipe whose ends read and write with blocking system calls, as a
// child's inherited stdin does (os.Pipe's ends use the runtime's poller).
func blockingPipe(b *testing.B) (r, w *os.File) {
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		b.Fatal(err)
	}
	syscall.CloseOnExec(p[0])
	syscall.CloseOnExec(p[1])
	r, w = os.NewFile(uintptr(p[0]), "stdin"), os.NewFile(uintptr(p[1]), "client")
	b.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}
