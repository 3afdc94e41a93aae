//go:build linux

package wire

import (
	"os"
	"syscall"
	"unsafe"
)

// unreadInput reports how many bytes written to the child's stdin it has not read yet.
// The probes use it to start their clock only once the server has consumed a request,
// so a server that is slow to start is never mistaken for a silent one.
func unreadInput(f *os.File) (int, error) {
	// SyscallConn, not Fd: Fd would switch the pipe to blocking mode, and a blocked
	// write could then hold up Close.
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int32
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	}); err != nil {
		return 0, err
	}
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
