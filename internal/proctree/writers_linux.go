package proctree

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
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
func WrittenByDescendant(fi os.FileInfo) bool {
	if fi == nil || !fi.Mode().IsRegular() {
		return false
	}
	for _, p := range liveDescendants(os.Getpid()) {
		if writing(p.pid, fi) {
			return true
		}
	}
	return false
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
