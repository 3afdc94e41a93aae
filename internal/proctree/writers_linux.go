package proctree

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// WrittenByDescendant reports whether a process this one started (a child, or any
// process under it: a server, the processes it started, those a supervisor
// adopted) has the file fi open for writing. A file watch asks it to tell a server's
// own output (a log it keeps open in the watched directory) from an edit.
//
// The descendants of this process, not one tree: that also covers the moments when
// a server is starting, or the old one of a restart is still exiting, and nobody
// holds its Tree; and a file another server of the session writes is no source edit
// either.
//
// A descendant that is still a copy of this process (the same executable and command
// line: a child between fork and exec) does not count. It holds every descriptor this
// process had when it forked, so a file this process writes (a test editing a watched
// file in the same process as the workbench) looks written by a descendant for that
// moment; taken for a server's output, the file was remembered as output and its
// edits never restarted the server again.
//
// Which process is a copy is read before its descriptors, and a writer found is
// confirmed a moment later. Read the other way round, a child that ran exec between
// the two reads looked like a server holding the file (its descriptors read before
// exec closed them, its command line after). And for an instant inside exec a child
// already shows its new executable while it still holds the descriptors exec is
// about to close; by the confirmation it has closed them. A server's own output file
// is held for as long as it writes it, so the confirmation only costs it the pause.
func WrittenByDescendant(fi os.FileInfo) bool {
	if fi == nil || !fi.Mode().IsRegular() {
		return false
	}
	for _, p := range liveDescendants(os.Getpid()) {
		if heldForWriting(p.pid, fi) {
			time.Sleep(confirmAfter)
			if heldForWriting(p.pid, fi) {
				return true
			}
		}
	}
	return false
}

// confirmAfter is the pause before a writer is confirmed: far longer than exec takes
// to close a descriptor, far shorter than a watch's debounce.
const confirmAfter = 30 * time.Millisecond

// heldForWriting reports whether pid, not a copy of this process, holds fi open for
// writing.
func heldForWriting(pid int, fi os.FileInfo) bool {
	return !copyOfSelf(pid) && writing(pid, fi) && !copyOfSelf(pid)
}

// self is this process's command line, read once (it does not change).
var self = sync.OnceValue(func() []byte {
	b, _ := os.ReadFile("/proc/self/cmdline")
	return b
})

// copyOfSelf reports whether pid runs this process's executable with its command
// line: a fork of it that has not run exec yet.
func copyOfSelf(pid int) bool {
	dir := "/proc/" + strconv.Itoa(pid)
	mine, err1 := os.Stat("/proc/self/exe")
	theirs, err2 := os.Stat(dir + "/exe")
	if err1 != nil || err2 != nil || !os.SameFile(mine, theirs) {
		return false
	}
	cmdline, err := os.ReadFile(dir + "/cmdline")
	return err == nil && len(cmdline) > 0 && bytes.Equal(cmdline, self())
}

// writing reports whether process pid has fi open with write access.
func writing(pid int, fi os.FileInfo) bool {
	dir := "/proc/" + strconv.Itoa(pid)
	ents, err := os.ReadDir(dir + "/fd")
	if err != nil {
		return false // gone, or not ours to read
	}
	for _, e := range ents {
		st, err := os.Stat(dir + "/fd/" + e.Name())
		if err != nil || !os.SameFile(st, fi) {
			continue
		}
		if flags, ok := fdFlags(dir + "/fdinfo/" + e.Name()); ok {
			if acc := flags & syscall.O_ACCMODE; acc == syscall.O_WRONLY || acc == syscall.O_RDWR {
				return true
			}
		}
	}
	return false
}

// fdFlags reads the "flags:" line (octal) of /proc/PID/fdinfo/FD.
func fdFlags(path string) (int, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "flags:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			return int(n), err == nil
		}
	}
	return 0, false
}
