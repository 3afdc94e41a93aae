package idlemem

import (
	"bytes"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/mcpscope/mcpscope/internal/readfile"
)

// smapsMax caps what ReleaseFilePages reads of /proc/self/smaps: a Go process has a
// few dozen mappings (a few KiB each in smaps); one with far more is left alone.
const smapsMax = 4 << 20

// ReleaseFilePages drops this process's clean, read-only file pages (the binary's
// code and constant data, the shared libraries') from its page tables, and returns
// how many bytes of them were mapped.
//
// Why: a 35 MB binary whose package inits and first frames touched code all over it
// keeps about 19 MiB of it mapped for good (the kernel maps 64 KiB around each page
// fault), most of it code that ran once at start. Dropped, those pages stay in the
// page cache, shared with the supervisors and servers that run the same binary; the
// next keypress maps back the few it needs, at the cost of a minor fault each.
//
// Why it is safe: the kernel itself drops such pages whenever it wants memory, and
// maps them back from the file; madvise(MADV_DONTNEED) does no more than that, on
// mappings that are read-only, private and backed by a file. A mapping that holds
// anonymous pages is left alone: those are pages written into a read-only mapping
// (a debugger's breakpoint, a uprobe), which dropping would lose. A traced process
// is left alone altogether.
func ReleaseFilePages() int64 {
	if status, err := readfile.Read("/proc/self/status", 64<<10); err != nil || traced(status) {
		return 0
	}
	smaps, err := readfile.Read("/proc/self/smaps", smapsMax)
	if err != nil {
		return 0
	}
	var released int64
	for _, m := range droppable(smaps) {
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, unix.MADV_DONTNEED); errno == 0 {
			released += m.rss
		}
	}
	return released
}

// mapping is one region of /proc/self/smaps that ReleaseFilePages may drop.
type mapping struct {
	start, end uintptr
	rss        int64 // bytes of it mapped (smaps' Rss)
}

// droppable lists the mappings of an smaps text that are private, read-only, backed
// by a file (a path, not [vdso] or [heap]) and hold no anonymous page.
func droppable(smaps []byte) []mapping {
	var out []mapping
	var cur *mapping // the mapping being read, while it still qualifies
	anonymous := false
	flush := func() {
		if cur != nil && !anonymous && cur.rss > 0 {
			out = append(out, *cur)
		}
		cur, anonymous = nil, false
	}
	for line := range bytes.Lines(smaps) {
		f := bytes.Fields(line)
		if len(f) == 0 {
			continue
		}
		if !bytes.HasSuffix(f[0], []byte(":")) { // a mapping's header: range perms offset dev inode [path]
			flush()
			if len(f) < 6 || f[5][0] != '/' {
				continue
			}
			if perms := string(f[1]); perms != "r-xp" && perms != "r--p" {
				continue
			}
			lo, hi, ok := bytes.Cut(f[0], []byte("-"))
			start, err1 := strconv.ParseUint(string(lo), 16, 64)
			end, err2 := strconv.ParseUint(string(hi), 16, 64)
			if !ok || err1 != nil || err2 != nil || end <= start {
				continue
			}
			cur = &mapping{start: uintptr(start), end: uintptr(end)}
			continue
		}
		if cur == nil || len(f) < 2 {
			continue
		}
		switch string(f[0]) {
		case "Rss:":
			kb, _ := strconv.ParseInt(string(f[1]), 10, 64)
			cur.rss = kb << 10
		case "Anonymous:":
			anonymous = string(f[1]) != "0"
		}
	}
	flush()
	return out
}

// traced reports whether /proc/self/status names a tracer (a debugger is attached).
func traced(status []byte) bool {
	for line := range bytes.Lines(status) {
		if v, ok := bytes.CutPrefix(line, []byte("TracerPid:")); ok {
			return string(bytes.TrimSpace(v)) != "0"
		}
	}
	return false
}
