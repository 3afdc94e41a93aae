// Package spool keeps an append-only sequence of records with a bounded window in
// memory: the newest records up to a byte budget stay in memory, older ones are moved
// to a spill file (a private temporary file, unlinked as soon as it is created where
// the system allows it, and removed by Close otherwise) and read back a block at a
// time when a view pages to them.
//
// Append never touches the file: the records it moves out of the window queue for
// a writer goroutine of the buffer's own (readable from memory until they are
// written), so the UI goroutine that appends never waits for the disk. Only when the
// disk falls a whole window behind does Append wait for it (memory stays bounded).
// Reading back is bounded too: a block of records at a time, the last blocks read
// kept decoded (a page cache), so a frame reads at most the blocks of its rows.
//
// A Buffer is not safe for concurrent use: the TUI owns its buffers on the UI
// goroutine (the writer goroutine is the buffer's own business). To read the
// spilled records from another goroutine (a search over the whole history, off the
// UI goroutine), the owner takes a Spilled snapshot and hands it over.
package spool

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"
)

// DefaultKeep is the memory window of a buffer when none is given.
const DefaultKeep = 64 << 20

// chunkLen is how many records one chunk of memory holds.
const chunkLen = 512

// writeBuf is the size of the writer's buffer for a window of keep bytes: 64 KiB,
// less for a small window (it counts in the window: side), at least 4 KiB.
func writeBuf(keep int64) int64 { return min(max(keep/16, 4<<10), 64<<10) }

// blockLen is how many spilled records share one index entry; a read decodes one
// block, so scrolling a page back costs at most a few small reads.
const blockLen = 64

// Codec turns records into bytes and back, and says what a record costs in memory
// beyond its own value (the bytes it refers to: strings, slices).
type Codec[T any] struct {
	Size   func(T) int
	Encode func(T) ([]byte, error)
	Decode func([]byte) (T, error)
}

// Strings is the codec of text lines.
var Strings = Codec[string]{
	Size:   func(s string) int { return len(s) },
	Encode: func(s string) ([]byte, error) { return []byte(s), nil },
	Decode: func(b []byte) (string, error) { return string(b), nil },
}

// Buffer is the windowed sequence. The zero value is not usable; use New.
type Buffer[T any] struct {
	codec Codec[T]
	keep  int64

	// The records in memory, first .. first+count-1, in chunks of chunkLen (so
	// that the slack of a growing slice never doubles the window): the oldest is
	// chunks[0][head].
	chunks   [][]T
	head     int
	count    int
	memBytes int64
	elem     int64 // the in-memory size of one record value
	first    int   // index of the oldest record held in memory

	spilled int // records moved out of memory: indices 0 .. spilled-1

	// side is what the buffer holds beside its records once it spills: the writer's
	// buffer and the spill file's block index (8 bytes a block, growing with the
	// history). It counts in keep: the window gives way to it, so that what the
	// buffer really holds stays within keep (issue 23, target 3). Set by the writer.
	side atomic.Int64

	// The spill side, shared with the writer goroutine under mu.
	mu         sync.Mutex
	cond       *sync.Cond // the queue grew, the writer made progress, or Close
	queue      []T        // moved out, not yet written: records written .. spilled-1
	queueBytes int64
	written    int // records in the file (or lost): indices 0 .. written-1
	file       *os.File
	path       string  // still to remove at Close ("" once unlinked)
	end        int64   // bytes written to the file
	blocks     []int64 // offset of records 0, blockLen, 2*blockLen, … in the file
	err        error   // the spill file failed; older records are dropped from then on
	dropped    int     // records lost because the spill file failed
	closed     bool
	running    bool          // the writer goroutine has started
	stopped    chan struct{} // closed when the writer goroutine ends
	gate       chan struct{} // tests: the writer takes a value before each batch

	w *bufio.Writer // the writer goroutine's

	cache []cached[T] // the blocks read last, most recent first
	reads int         // blocks read from the file (for tests and benchmarks)
}

// New returns a buffer that keeps about keep bytes of records in memory (at least
// the newest record). keep <= 0 means DefaultKeep.
func New[T any](keep int64, codec Codec[T]) *Buffer[T] {
	if keep <= 0 {
		keep = DefaultKeep
	}
	var zero T
	b := &Buffer[T]{codec: codec, keep: keep, elem: int64(unsafe.Sizeof(zero)), stopped: make(chan struct{})}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// Len is the number of records appended so far.
func (b *Buffer[T]) Len() int { return b.first + b.count }

// MemBytes is what the records held in memory cost, by the codec's measure.
func (b *Buffer[T]) MemBytes() int64 { return b.memBytes }

// Held is what the buffer holds in memory: its records (MemBytes) and, once it
// spills, the writer's buffer and the spill file's block index. It is what keep
// bounds (beyond the newest record, always kept).
func (b *Buffer[T]) Held() int64 { return b.memBytes + b.side.Load() }

// Keep is the memory budget.
func (b *Buffer[T]) Keep() int64 { return b.keep }

// InMemory is the index of the oldest record held in memory.
func (b *Buffer[T]) InMemory() int { return b.first }

// BlockReads counts the blocks read back from the spill file.
func (b *Buffer[T]) BlockReads() int { return b.reads }

// Err reports a failure of the spill file (then the oldest records were dropped).
func (b *Buffer[T]) Err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// Written waits until every record moved out of memory so far is in the spill file
// (or lost), for tests and benchmarks; the screen never needs to.
func (b *Buffer[T]) Written() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.queue) > 0 && !b.closed {
		b.cond.Wait()
	}
}

// Append adds a record, moving the oldest ones to the spill file while memory is
// over budget.
func (b *Buffer[T]) Append(v T) {
	if n := len(b.chunks); n == 0 || len(b.chunks[n-1]) == chunkLen {
		b.chunks = append(b.chunks, make([]T, 0, chunkLen))
	}
	last := len(b.chunks) - 1
	b.chunks[last] = append(b.chunks[last], v)
	b.count++
	b.memBytes += b.elem + int64(b.codec.Size(v))
	for b.memBytes+b.side.Load() > b.keep && b.count > 1 {
		var zero T
		old := b.chunks[0][b.head]
		b.chunks[0][b.head] = zero
		b.head++
		b.count--
		if b.head == chunkLen {
			b.chunks[0] = nil
			b.chunks = b.chunks[1:]
			b.head = 0
		}
		b.memBytes -= b.elem + int64(b.codec.Size(old))
		b.spill(old)
		b.first++
	}
}

// spill queues a record for the writer goroutine. It waits only when a whole window
// of records is already waiting for the disk.
func (b *Buffer[T]) spill(v T) {
	size := b.elem + int64(b.codec.Size(v))
	b.spilled++
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.queueBytes > b.keep && b.err == nil && !b.closed {
		b.cond.Wait()
	}
	if b.err != nil || b.closed {
		b.dropped++
		b.written++ // the index stays; Get reports the record as lost
		return
	}
	b.queue = append(b.queue, v)
	b.queueBytes += size
	if !b.running {
		b.running = true
		go b.writer()
	}
	b.cond.Broadcast()
}

// writer writes the queued records to the spill file, a batch at a time; the file
// work happens outside mu, so that reads of what is already written go on.
func (b *Buffer[T]) writer() {
	defer close(b.stopped)
	end := int64(0)
	var hdr [binary.MaxVarintLen64]byte
	b.mu.Lock()
	for {
		for len(b.queue) == 0 && !b.closed {
			b.cond.Wait()
		}
		if b.closed {
			b.mu.Unlock()
			return
		}
		batch, first, gate := b.queue, b.written, b.gate
		b.mu.Unlock()
		if gate != nil {
			<-gate
		}
		var err error
		if b.file == nil {
			err = b.open()
		}
		var offs []int64
		var bytes int64
		for k, v := range batch {
			if err != nil {
				break
			}
			data, eerr := b.codec.Encode(v)
			if eerr != nil {
				data = nil
			}
			if (first+k)%blockLen == 0 {
				offs = append(offs, end)
			}
			n := binary.PutUvarint(hdr[:], uint64(len(data)))
			if _, err = b.w.Write(hdr[:n]); err == nil {
				_, err = b.w.Write(data)
			}
			end += int64(n + len(data))
			bytes += b.elem + int64(b.codec.Size(v))
		}
		if err == nil {
			err = b.w.Flush() // readers read the file, not the buffer
		}
		b.mu.Lock()
		if err != nil && b.err == nil {
			b.err = fmt.Errorf("spool: %w", err)
		}
		if b.err != nil {
			b.dropped += len(batch)
		} else {
			b.blocks = append(b.blocks, offs...)
			b.end = end
			b.side.Store(writeBuf(b.keep) + 8*int64(cap(b.blocks)))
		}
		b.written += len(batch)
		rest := b.queue[len(batch):]
		b.queue = append(make([]T, 0, len(rest)), rest...) // the written ones can go
		b.queueBytes = max(b.queueBytes-bytes, 0)
		if b.err != nil {
			b.queueBytes = 0
		}
		b.cond.Broadcast()
	}
}

func (b *Buffer[T]) open() error {
	f, err := os.CreateTemp("", "mcpscope-spool-*")
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	_ = f.Chmod(0o600)
	path := f.Name()
	// Unlinked while open, the file cannot outlive the process, whatever ends it.
	if os.Remove(f.Name()) == nil {
		path = ""
	}
	b.w = bufio.NewWriterSize(f, int(writeBuf(b.keep)))
	b.side.Store(writeBuf(b.keep))
	b.mu.Lock()
	b.file, b.path = f, path
	b.mu.Unlock()
	return nil
}

// ErrLost is returned for a record that was dropped because the spill file failed.
var ErrLost = errors.New("spool: record lost (the spill file could not be written)")

// Get returns record i (0 is the oldest), from memory or from the spill file.
func (b *Buffer[T]) Get(i int) (T, error) {
	var zero T
	if i < 0 || i >= b.Len() {
		return zero, fmt.Errorf("spool: index %d out of range [0,%d)", i, b.Len())
	}
	if i >= b.first {
		k := b.head + i - b.first
		return b.chunks[k/chunkLen][k%chunkLen], nil
	}
	b.mu.Lock()
	if i >= b.written {
		// Still waiting for the writer: in memory.
		v := b.queue[i-b.written]
		b.mu.Unlock()
		return v, nil
	}
	blk := i / blockLen
	if blk >= len(b.blocks) || b.file == nil {
		b.mu.Unlock()
		return zero, ErrLost
	}
	loc := blockLoc{start: b.blocks[blk], end: b.end, count: min(blockLen, b.written-blk*blockLen), file: b.file}
	if blk+1 < len(b.blocks) {
		loc.end = b.blocks[blk+1]
	}
	b.mu.Unlock()
	recs, err := b.block(blk, loc)
	if err != nil {
		return zero, err
	}
	j := i - blk*blockLen
	if j >= len(recs) {
		return zero, ErrLost
	}
	return recs[j], nil
}

// blockLoc is where a block's records are in the file, and how many are written.
type blockLoc struct {
	start, end int64
	count      int
	file       *os.File
}

// At is Get for views: a record that cannot be read back is the zero value.
func (b *Buffer[T]) At(i int) T {
	v, _ := b.Get(i)
	return v
}

// cacheBlocks is how many decoded blocks a buffer keeps: a screen of rows that a
// filter picks from all over the history reads each block once, not once per frame.
const cacheBlocks = 16

type cached[T any] struct {
	blk  int
	recs []T
}

func (b *Buffer[T]) block(blk int, loc blockLoc) ([]T, error) {
	for i, c := range b.cache {
		if c.blk == blk && len(c.recs) >= loc.count {
			copy(b.cache[1:i+1], b.cache[:i])
			b.cache[0] = c
			return c.recs, nil
		}
	}
	recs, err := b.readBlock(loc)
	if err != nil {
		return nil, err
	}
	for i, c := range b.cache {
		if c.blk == blk { // a block read while it was still being written
			b.cache = append(b.cache[:i], b.cache[i+1:]...)
			break
		}
	}
	if len(b.cache) < cacheBlocks {
		b.cache = append(b.cache, cached[T]{})
	}
	copy(b.cache[1:], b.cache[:len(b.cache)-1])
	b.cache[0] = cached[T]{blk: blk, recs: recs}
	return recs, nil
}

func (b *Buffer[T]) readBlock(loc blockLoc) ([]T, error) {
	b.reads++
	return decodeBlock(b.codec, loc)
}

// decodeBlock reads a block's records with ReadAt (safe for concurrent use), so it
// touches nothing of the buffer.
func decodeBlock[T any](codec Codec[T], loc blockLoc) ([]T, error) {
	start, end, count := loc.start, loc.end, loc.count
	r := bufio.NewReader(io.NewSectionReader(loc.file, start, end-start))
	out := make([]T, 0, count)
	for range count {
		n, err := binary.ReadUvarint(r)
		if err != nil {
			return nil, fmt.Errorf("spool: reading the spill file: %w", err)
		}
		data := make([]byte, n)
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, fmt.Errorf("spool: reading the spill file: %w", err)
		}
		v, err := codec.Decode(data)
		if err != nil {
			return nil, fmt.Errorf("spool: decoding a spilled record: %w", err)
		}
		out = append(out, v)
	}
	return out, nil
}

// Spilled is a snapshot of the records a buffer had moved out of memory when it was
// taken (indices 0 .. Len()-1), readable from any one goroutine while the owner goes
// on appending: it holds its own copy of where the blocks are (and of the records
// still waiting for the writer), reads the file with ReadAt and keeps its own cache
// of the last block read. It never touches the buffer again, so its reads do not
// count in the buffer's BlockReads. Once the buffer is closed, its reads fail.
// A Spilled itself is for one goroutine at a time.
type Spilled[T any] struct {
	codec   Codec[T]
	n       int
	written int     // records 0 .. written-1 are in the file (or lost)
	queue   []T     // records written .. n-1, not yet written at the snapshot
	blocks  []int64 // block offsets, as far as written
	end     int64
	file    *os.File
	blk     int // the block in recs (-1: none)
	recs    []T
	reads   int
}

// Spilled snapshots the spilled records [0, InMemory()) for reading from another
// goroutine. Call it on the buffer's own goroutine.
func (b *Buffer[T]) Spilled() *Spilled[T] {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := &Spilled[T]{codec: b.codec, n: b.first, written: b.written, end: b.end, file: b.file, blk: -1}
	// Both slices only ever grow past their length or are replaced, never written
	// in place: their first elements stay as they are, so the headers are enough.
	s.queue = b.queue[:len(b.queue):len(b.queue)]
	s.blocks = b.blocks[:len(b.blocks):len(b.blocks)]
	return s
}

// Len is the number of records in the snapshot.
func (s *Spilled[T]) Len() int { return s.n }

// BlockReads counts the blocks this snapshot read from the spill file.
func (s *Spilled[T]) BlockReads() int { return s.reads }

// Get returns spilled record i (0 is the oldest): ErrLost for a record the spill
// file could not keep, an error once the buffer is closed.
func (s *Spilled[T]) Get(i int) (T, error) {
	var zero T
	if i < 0 || i >= s.n {
		return zero, fmt.Errorf("spool: index %d out of the spilled range [0,%d)", i, s.n)
	}
	if i >= s.written {
		return s.queue[i-s.written], nil
	}
	blk := i / blockLen
	if blk != s.blk {
		if blk >= len(s.blocks) || s.file == nil {
			return zero, ErrLost
		}
		loc := blockLoc{start: s.blocks[blk], end: s.end, count: min(blockLen, s.written-blk*blockLen), file: s.file}
		if blk+1 < len(s.blocks) {
			loc.end = s.blocks[blk+1]
		}
		s.reads++
		recs, err := decodeBlock(s.codec, loc)
		if err != nil {
			return zero, err
		}
		s.blk, s.recs = blk, recs
	}
	j := i - blk*blockLen
	if j >= len(s.recs) {
		return zero, ErrLost
	}
	return s.recs[j], nil
}

// Close stops the writer and removes the spill file. Records in memory stay
// readable; spilled ones and any appended later that would spill are lost.
func (b *Buffer[T]) Close() error {
	b.cache = nil
	b.mu.Lock()
	if b.err == nil {
		b.err = errClosed
	}
	b.closed = true
	running := b.running
	b.cond.Broadcast()
	b.mu.Unlock()
	if running {
		<-b.stopped // it ends after the batch it is writing
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.written += len(b.queue)
	b.queue, b.queueBytes = nil, 0
	if b.file == nil {
		return nil
	}
	err := b.file.Close()
	if b.path != "" {
		if rerr := os.Remove(b.path); err == nil {
			err = rerr
		}
	}
	b.file, b.blocks = nil, nil
	return err
}

var errClosed = errors.New("spool: closed")

// ParseSize reads a byte size such as 64MiB, 512k, 1G or 1048576.
func ParseSize(s string) (int64, error) {
	num, unit := s, ""
	for i, r := range s {
		if (r < '0' || r > '9') && r != '.' {
			num, unit = s[:i], s[i:]
			break
		}
	}
	var f float64
	if _, err := fmt.Sscanf(num, "%g", &f); err != nil || num == "" || f < 0 {
		return 0, fmt.Errorf("%q is not a size (write it as 64MiB, 512KiB, 1GiB or a number of bytes)", s)
	}
	mult := map[string]float64{
		"": 1, "b": 1, "B": 1,
		"k": 1 << 10, "K": 1 << 10, "KB": 1 << 10, "KiB": 1 << 10, "kB": 1 << 10,
		"m": 1 << 20, "M": 1 << 20, "MB": 1 << 20, "MiB": 1 << 20,
		"g": 1 << 30, "G": 1 << 30, "GB": 1 << 30, "GiB": 1 << 30,
	}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("%q is not a size (write it as 64MiB, 512KiB, 1GiB or a number of bytes)", s)
	}
	return int64(f * mult), nil
}
