package idlemem

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// statusKiB reads one "Name:  N kB" line of /proc/self/status.
func statusKiB(t *testing.T, name string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte(name+":")); ok {
			f := bytes.Fields(v)
			n, err := strconv.ParseInt(string(f[0]), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/self/status", name)
	return 0
}

// What a user sees in top: the process's file-backed RSS (the test binary's code and
// data it ran) falls, and the process goes on running the code it dropped (this
// test's own code, the testing package's, the runtime's). Reading the status maps
// some of it back, 64 KiB around each fault (much more under -race).
func TestReleaseFilePagesShrinksRSS(t *testing.T) {
	before := statusKiB(t, "RssFile")
	released := ReleaseFilePages()
	after := statusKiB(t, "RssFile")
	if released <= 0 {
		t.Fatalf("released %d bytes of a process with %d KiB of file pages mapped", released, before)
	}
	if after >= before {
		t.Fatalf("RssFile %d KiB after releasing %d KiB, %d KiB before: want less", after, released>>10, before)
	}
	t.Logf("RssFile %d KiB -> %d KiB (released %d KiB)", before, after, released>>10)
}

// mapFile maps a temporary file of n pages, each page filled with its index+'a'.
func mapFile(t *testing.T, n int, prot int) []byte {
	t.Helper()
	page := os.Getpagesize()
	data := make([]byte, n*page)
	for i := range data {
		data[i] = byte('a' + i/page)
	}
	path := filepath.Join(t.TempDir(), "pages")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, len(data), prot, unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(m) })
	return m
}

// mappedKiB is the Rss smaps gives the mapping that starts at m.
func mappedKiB(t *testing.T, m []byte) int64 {
	t.Helper()
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	start := strconv.FormatUint(uint64(uintptr(unsafe.Pointer(&m[0]))), 16)
	in := false
	for line := range bytes.Lines(smaps) {
		f := bytes.Fields(line)
		if len(f) == 0 {
			continue
		}
		if !bytes.HasSuffix(f[0], []byte(":")) {
			lo, _, _ := bytes.Cut(f[0], []byte("-"))
			in = string(bytes.TrimLeft(lo, "0")) == start
			continue
		}
		if in && string(f[0]) == "Rss:" {
			n, _ := strconv.ParseInt(string(f[1]), 10, 64)
			return n
		}
	}
	t.Fatalf("no mapping at %s in smaps", start)
	return 0
}

// A clean read-only file mapping is dropped and reads back the same bytes; a
// read-only mapping with a page written into it (what a debugger's breakpoint is:
// written, then made read-only again) keeps the written page.
func TestReleaseDropsCleanMappingsAndKeepsWrittenOnes(t *testing.T) {
	page := os.Getpagesize()
	clean := mapFile(t, 4, unix.PROT_READ)
	sum := 0
	for i := 0; i < len(clean); i += page {
		sum += int(clean[i]) // maps every page in
	}
	written := mapFile(t, 4, unix.PROT_READ|unix.PROT_WRITE)
	written[0] = 'X' // copy-on-write: an anonymous page in a private file mapping
	if err := unix.Mprotect(written, unix.PROT_READ); err != nil {
		t.Fatal(err)
	}
	if got := mappedKiB(t, clean); got == 0 {
		t.Fatalf("the clean mapping has no page mapped after reading it all (sum %d)", sum)
	}

	ReleaseFilePages()

	if got := mappedKiB(t, clean); got != 0 {
		t.Errorf("the clean mapping still has %d KiB mapped after the release", got)
	}
	for i := 0; i < len(clean); i += page {
		if want := byte('a' + i/page); clean[i] != want {
			t.Fatalf("page %d of the clean mapping reads %q after the release, want %q", i/page, clean[i], want)
		}
	}
	if written[0] != 'X' {
		t.Fatalf("the written page reads %q after the release: it was dropped, and with it what was written", written[0])
	}
}

func TestDroppable(t *testing.T) {
	smaps := `00400000-00d3d000 r-xp 00000000 fe:00 9994564    /usr/bin/mcpscope
Rss:                8564 kB
Anonymous:             0 kB
00d3d000-01cca000 r--p 0093d000 fe:00 9994564    /usr/bin/mcpscope (deleted)
Rss:                8948 kB
Anonymous:             0 kB
01cca000-01dbd000 rw-p 018ca000 fe:00 9994564    /usr/bin/mcpscope
Rss:                 588 kB
Anonymous:           500 kB
7f0000000000-7f0000010000 r-xp 00026000 fe:00 326269     /usr/lib/libc.so.6
Rss:                  64 kB
Anonymous:             4 kB
7f0000020000-7f0000030000 r--p 00000000 fe:00 326270     /usr/lib/unused.so
Rss:                   0 kB
Anonymous:             0 kB
7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0          [vdso]
Rss:                   8 kB
Anonymous:             0 kB
7ffd00010000-7ffd00020000 r--s 00000000 00:05 12         /dev/shm/shared
Rss:                  64 kB
Anonymous:             0 kB
`
	got := droppable([]byte(smaps))
	want := []mapping{
		{0x400000, 0xd3d000, 8564 << 10},  // the binary's code
		{0xd3d000, 0x1cca000, 8948 << 10}, // its constants, though the file was replaced on disk
	} // not: the writable data, libc's code with a written page, a mapping with nothing mapped, the vdso, a shared mapping
	if len(got) != len(want) {
		t.Fatalf("droppable = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("droppable[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestTraced(t *testing.T) {
	if traced([]byte("Name:\tmcpscope\nTracerPid:\t0\nUid:\t0\n")) {
		t.Error("TracerPid 0 read as traced")
	}
	if !traced([]byte("Name:\tmcpscope\nTracerPid:\t4242\nUid:\t0\n")) {
		t.Error("TracerPid 4242 read as not traced")
	}
}
