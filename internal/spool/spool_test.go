package spool

import (
	"fmt"
	"os"
	"runtime"
	"testing"
)

func TestWindowStaysBoundedAndPagesBack(t *testing.T) {
	b := New(64<<10, Strings)
	defer b.Close()
	const n = 100000
	for i := range n {
		b.Append(fmt.Sprintf("line %06d %s", i, "some text of a log line"))
		if b.MemBytes() > b.Keep()+200 {
			t.Fatalf("after %d lines %d bytes in memory, over the %d kept", i, b.MemBytes(), b.Keep())
		}
	}
	if b.Len() != n {
		t.Fatalf("Len = %d", b.Len())
	}
	if b.InMemory() == 0 {
		t.Fatal("nothing was spilled")
	}
	for _, i := range []int{0, 1, 63, 64, 65, b.InMemory() - 1, b.InMemory(), n - 1} {
		got, err := b.Get(i)
		want := fmt.Sprintf("line %06d %s", i, "some text of a log line")
		if err != nil || got != want {
			t.Errorf("Get(%d) = %q, %v; want %q", i, got, err, want)
		}
	}
	reads := b.BlockReads()
	for i := 0; i < 40; i++ { // a page of the oldest lines: one block
		b.At(i)
	}
	if b.BlockReads()-reads > 1 {
		t.Errorf("a page of 40 records read %d blocks", b.BlockReads()-reads)
	}
	b.Written() // the last blocks are whole now: each is read once
	// Rows picked from all over the history (a filter) read each block once.
	reads = b.BlockReads()
	for range 3 {
		for i := 0; i < 16*blockLen; i += blockLen {
			b.At(i + 7)
		}
	}
	if got := b.BlockReads() - reads; got > 16 {
		t.Errorf("three passes over 16 blocks read %d blocks", got)
	}
	if _, err := b.Get(n); err == nil {
		t.Error("Get past the end did not fail")
	}
}

func TestSpillFileIsPrivateAndGone(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	b := New(100, Strings)
	for i := range 100 {
		b.Append(fmt.Sprint("record ", i))
	}
	b.Written()
	entries, _ := os.ReadDir(dir)
	if runtime.GOOS != "windows" && len(entries) != 0 {
		t.Errorf("the spill file is visible in %s: %v (it should be unlinked while open)", dir, entries)
	}
	if fi, err := b.file.Stat(); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("spill file mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	entries, _ = os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestOneHugeRecordIsKept(t *testing.T) {
	b := New(10, Strings)
	defer b.Close()
	b.Append("a record far longer than the window")
	if got := b.At(0); got != "a record far longer than the window" {
		t.Fatalf("got %q", got)
	}
	b.Append("next")
	if got := b.At(0); got != "a record far longer than the window" {
		t.Fatalf("spilled record reads back as %q", got)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"64MiB": 64 << 20, "512k": 512 << 10, "1G": 1 << 30, "1048576": 1 << 20, "1.5MiB": 3 << 19} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "12 parsecs", "-1"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}

// Append never waits for the disk: while the writer goroutine is held, the records
// moved out of the window stay readable from memory, nothing is in the file yet, and
// once it goes on they are read back from the file.
func TestAppendDoesNotWrite(t *testing.T) {
	b := New(8<<10, Strings)
	defer b.Close()
	gate := make(chan struct{})
	b.gate = gate
	line := func(i int) string { return fmt.Sprintf("line %06d of some length", i) }
	const n = 300 // about 1.5 windows: the spill, under a window, waits in the queue
	for i := range n {
		b.Append(line(i))
	}
	if b.InMemory() == 0 {
		t.Fatal("nothing moved out of the window")
	}
	b.mu.Lock()
	file, written := b.file, b.written
	b.mu.Unlock()
	if file != nil || written != 0 {
		t.Fatalf("Append wrote to the spill file itself (file %v, %d records written)", file != nil, written)
	}
	for _, i := range []int{0, 1, b.InMemory() - 1, n - 1} {
		if got, err := b.Get(i); err != nil || got != line(i) {
			t.Fatalf("while queued, Get(%d) = %q, %v", i, got, err)
		}
	}
	if b.BlockReads() != 0 {
		t.Fatalf("%d blocks read while nothing was written", b.BlockReads())
	}
	close(gate)
	b.Written()
	for _, i := range []int{0, 1, 64, b.InMemory() - 1} {
		if got, err := b.Get(i); err != nil || got != line(i) {
			t.Fatalf("once written, Get(%d) = %q, %v", i, got, err)
		}
	}
	if b.BlockReads() == 0 {
		t.Fatal("nothing was read back from the file")
	}
}

// Reads go on while the writer writes: every record reads back right whatever the
// writer is doing (run with -race).
func TestReadWhileWriting(t *testing.T) {
	b := New(4<<10, Strings)
	defer b.Close()
	for i := range 20000 {
		b.Append(fmt.Sprint("record ", i))
		if i%97 == 0 {
			j := i / 2
			if got := b.At(j); got != fmt.Sprint("record ", j) {
				t.Fatalf("At(%d) = %q after %d appends", j, got, i+1)
			}
		}
	}
}

// BenchmarkAppendSpilling is Append past the window (every record spills): what the
// UI goroutine pays per line of a flood.
func BenchmarkAppendSpilling(b *testing.B) {
	buf := New(64<<10, Strings)
	defer buf.Close()
	line := "2026-12-01 12:00:00 INFO a log line of a chatty server, about eighty bytes long"
	b.ReportAllocs()
	for b.Loop() {
		buf.Append(line)
	}
}

// A search off the UI goroutine reads a snapshot of the spilled records while the
// owner goes on appending (and spilling): run with -race.
func TestSpilledReadsWhileAppendsContinue(t *testing.T) {
	b := New(4<<10, Strings)
	defer b.Close()
	line := func(i int) string { return fmt.Sprintf("line %06d %s", i, "some text of a log line") }
	next := 0
	for ; b.InMemory() < 1000; next++ {
		b.Append(line(next))
	}
	s := b.Spilled()
	if s.Len() != b.InMemory() {
		t.Fatalf("snapshot of %d records, %d spilled", s.Len(), b.InMemory())
	}
	done := make(chan error, 1)
	go func() {
		for i := range s.Len() {
			got, err := s.Get(i)
			if err != nil || got != line(i) {
				done <- fmt.Errorf("Get(%d) = %q, %v; want %q", i, got, err, line(i))
				return
			}
		}
		if _, err := s.Get(s.Len()); err == nil {
			done <- fmt.Errorf("Get past the snapshot did not fail")
			return
		}
		done <- nil
	}()
	// The owner appends meanwhile: the writer goroutine writes, blocks are added.
	for end := next + 20000; next < end; next++ {
		b.Append(line(next))
		if next%500 == 0 {
			b.At(next % b.InMemory()) // and reads back on its own goroutine
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s.BlockReads() == 0 {
		t.Error("the snapshot read nothing from the spill file")
	}
	// Once the buffer is closed, a snapshot fails to read instead of crashing.
	b.Written()
	s2 := b.Spilled()
	b.Close()
	if _, err := s2.Get(0); err == nil {
		t.Error("a read after Close did not fail")
	}
}

// What a spilling buffer holds beside its records (the writer's buffer, the spill
// file's block index, which grows with the history) counts in keep: the window gives
// way to it, so that Held stays within keep however many records went by (issue 23,
// target 3: --keep counts what the stores really hold).
func TestSideCountsInKeep(t *testing.T) {
	const keep = 256 << 10
	b := New(keep, Strings)
	defer b.Close()
	const n = 1000000
	for i := range n {
		b.Append("line " + fmt.Sprint(i))
	}
	b.Written()
	b.Append("one more") // the window gives way to what the writer added since
	side := b.Held() - b.MemBytes()
	if min := writeBuf(keep) + 8*int64(n/blockLen); side < min {
		t.Errorf("Held counts %d bytes beside the records; the writer's buffer and the index of %d blocks are at least %d", side, n/blockLen, min)
	}
	if b.Held() > keep {
		t.Errorf("after %d records the buffer holds %d bytes (%d of records, %d beside them); keep is %d", n, b.Held(), b.MemBytes(), side, keep)
	}
}
