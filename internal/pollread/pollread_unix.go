//go:build unix

package pollread

import (
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

func pollable(f *os.File) (*os.File, func(), bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, nil, false
	}
	var dup int = -1
	cerr := rc.Control(func(fd uintptr) {
		var st unix.Stat_t
		if unix.Fstat(int(fd), &st) != nil {
			return
		}
		if m := st.Mode & unix.S_IFMT; m != unix.S_IFIFO && m != unix.S_IFSOCK {
			return // a terminal or a file: left alone
		}
		flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		if err != nil || flags&unix.O_NONBLOCK != 0 {
			return // already polled by the runtime
		}
		// A second descriptor of the same open file description: O_NONBLOCK set on it
		// holds for f too, and closing it leaves f open.
		nfd, err := unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			return
		}
		if err := unix.SetNonblock(nfd, true); err != nil {
			unix.Close(nfd)
			return
		}
		dup = nfd
	})
	if cerr != nil || dup < 0 {
		return nil, nil, false
	}
	// NewFile sees a non-blocking descriptor and registers it with the poller.
	r := os.NewFile(uintptr(dup), f.Name())
	var once sync.Once
	undo := func() {
		once.Do(func() {
			// Close waits for a read in progress and wakes one parked in the poller.
			r.Close()
			_ = rc.Control(func(fd uintptr) { _ = syscall.SetNonblock(int(fd), false) })
		})
	}
	return r, undo, true
}
