package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
)

// DefaultMaxFrame is the largest frame read unless the user raises --max-frame. It is a
// guard against a runaway server filling memory, far above any real result (a 50 MB
// result is fine); a larger frame ends the session with a message that names the flag.
const DefaultMaxFrame = 256 << 20

// noiseKeep is how much of an over-long noise line is kept for display.
const noiseKeep = 4096

// frame is one unit read from a server's stdout.
type frame struct {
	data    []byte
	framing Framing
	noise   bool // not a candidate JSON-RPC message
	size    int  // full size, also when data was cut (an over-long noise line)
}

// FrameTooLargeError says a message frame exceeded the limit.
type FrameTooLargeError struct {
	Size  int64 // bytes seen (at least), or the announced Content-Length
	Limit int
}

func (e *FrameTooLargeError) Error() string {
	return fmt.Sprintf("the server sent a message of %s, more than the %s limit; rerun with --max-frame %s (or larger) to accept it",
		HumanBytes(e.Size), HumanBytes(int64(e.Limit)), roundUpMiB(e.Size))
}

func roundUpMiB(n int64) string {
	mib := (n + (1<<20 - 1)) >> 20
	return strconv.FormatInt(mib, 10) + "MiB"
}

// HumanBytes formats a byte count for people.
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return strconv.FormatInt(n, 10) + " B"
}

// frameReader reads frames in whichever framing each one arrives in: a line that starts
// with '{' or '[' is an NDJSON message, a "Content-Length:" header block introduces an
// LSP-style frame, and any other line is noise.
type frameReader struct {
	r   *bufio.Reader
	max int
}

func newFrameReader(r io.Reader, max int) *frameReader {
	if max <= 0 {
		max = DefaultMaxFrame
	}
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

var errEmptyLine = errors.New("empty line")

// next returns the next frame. Empty lines are skipped.
func (fr *frameReader) next() (frame, error) {
	for {
		f, err := fr.nextLine()
		if err == errEmptyLine {
			continue
		}
		return f, err
	}
}

func (fr *frameReader) nextLine() (frame, error) {
	line, full, err := fr.readLineSniff(true)
	if err != nil && len(line) == 0 {
		return frame{}, err
	}
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 && full == len(line) {
		if err != nil {
			return frame{}, err
		}
		return frame{}, errEmptyLine
	}
	if hasPrefixFold(trimmed, "content-length:") {
		return fr.readContentLength(trimmed)
	}
	if full > len(line) { // cut: too long
		if looksLikeJSON(trimmed) {
			return frame{}, &FrameTooLargeError{Size: int64(full), Limit: fr.max}
		}
		return frame{data: line, noise: true, size: full}, nil
	}
	if looksLikeJSON(trimmed) {
		return frame{data: trimmed, framing: FramingNDJSON, size: len(trimmed)}, nil
	}
	return frame{data: bytes.TrimRight(line, "\r"), noise: true, size: len(line)}, nil
}

func looksLikeJSON(b []byte) bool {
	return len(b) > 0 && (b[0] == '{' || b[0] == '[')
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && strings.EqualFold(string(b[:len(prefix)]), prefix)
}

// readLine reads up to and without the next '\n'. A line longer than the limit is cut:
// the returned slice holds at most noiseKeep bytes of its start, full is its real
// length, and the rest has been consumed and dropped without being held in memory.
func (fr *frameReader) readLine() (line []byte, full int, err error) {
	return fr.readLineSniff(false)
}

// noiseWhole is the longest noise line kept whole; a longer one keeps its first
// noiseKeep bytes. A line is known to be noise from its first bytes, so a long one is
// never buffered.
const noiseWhole = 64 << 10

// readLineSniff is readLine; with sniff, a line whose first bytes show it is noise
// (neither JSON nor a Content-Length header) is cut at noiseWhole instead of the
// frame limit.
func (fr *frameReader) readLineSniff(sniff bool) (line []byte, full int, err error) {
	chunk, err := fr.r.ReadSlice('\n')
	if err != bufio.ErrBufferFull { // the whole line is in the buffer: one copy
		line = append([]byte(nil), bytes.TrimSuffix(chunk, []byte{'\n'})...)
		if len(line) > fr.max {
			n := len(line)
			return line[:min(noiseKeep, n-1)], n, err
		}
		return line, len(line), err
	}
	max := fr.max
	if sniff && isNoiseStart(chunk) {
		max = min(max, noiseWhole)
	}
	var lb lineBuf
	for {
		last := err != bufio.ErrBufferFull
		if last {
			chunk = bytes.TrimSuffix(chunk, []byte{'\n'})
		}
		if lb.total+len(chunk) > max {
			return fr.discardRest(lb.head(chunk), lb.total+len(chunk), err)
		}
		lb.add(chunk)
		if last {
			return lb.bytes(), lb.total, err
		}
		chunk, err = fr.r.ReadSlice('\n')
	}
}

// isNoiseStart reports whether a line that starts with b is noise: its first
// non-space byte starts neither JSON nor a Content-Length header. A start that is all
// spaces is not known to be noise.
func isNoiseStart(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r")
	if len(t) == 0 {
		return false
	}
	return !looksLikeJSON(t) && !hasPrefixFold(t, "content-length:") && len(t) >= len("content-length:")
}

// discardRest drops the rest of an over-long line, counting it; head is what is kept.
func (fr *frameReader) discardRest(head []byte, total int, err error) ([]byte, int, error) {
	for err == bufio.ErrBufferFull {
		var chunk []byte
		chunk, err = fr.r.ReadSlice('\n')
		total += len(chunk)
		if err == nil {
			total-- // the newline
		}
	}
	if total <= len(head) { // keep "cut" visible: full > len(line)
		head = head[:total-1]
	}
	return head, total, err
}

// lineBuf collects a long line in pieces, so that growing it never copies what was
// read (a doubling buffer holds the old and the new copy at once: 1.5 to 3 times the
// line), and then makes the one exact-size slice the line is kept in.
type lineBuf struct {
	pieces [][]byte
	cur    []byte
	total  int
}

const (
	firstPiece = 64 << 10
	// maxPiece: a piece is handed back only whole, after it is copied, so the peak
	// holds one piece above the line as well (4 MiB pieces held a 20 MiB result's call
	// at 43.0 MiB, 1 MiB pieces at 41.9).
	maxPiece = 1 << 20
	// bigLine is the size from which assembling a line hands the pieces already
	// copied back to the OS as it goes, so that the line costs its size, not twice.
	bigLine = 16 << 20
	// A big line is handed back in at most releaseSteps steps of at least
	// releaseMin bytes: the peak is the line plus one step (a quarter of the line, as it
	// was, put a 64 MiB line at 1.33x its size; now about 1.07x), and each step is one
	// collection of a heap the line's pieces are most of and that holds no pointers.
	releaseSteps = 32
	releaseMin   = 1 << 20
)

func (lb *lineBuf) add(b []byte) {
	for len(b) > 0 {
		if len(lb.cur) == cap(lb.cur) {
			size := firstPiece
			if lb.cur != nil {
				lb.pieces = append(lb.pieces, lb.cur)
				size = min(2*cap(lb.cur), maxPiece)
			}
			lb.cur = make([]byte, 0, size)
		}
		n := copy(lb.cur[len(lb.cur):cap(lb.cur)], b)
		lb.cur = lb.cur[:len(lb.cur)+n]
		b = b[n:]
		lb.total += n
	}
}

// head returns a copy of the first noiseKeep bytes collected so far, then chunk.
func (lb *lineBuf) head(chunk []byte) []byte {
	var h []byte
	for _, p := range append(lb.pieces, lb.cur) {
		h = append(h, p[:min(len(p), noiseKeep-len(h))]...)
	}
	h = append(h, chunk[:min(len(chunk), noiseKeep-len(h))]...)
	lb.pieces, lb.cur = nil, nil
	return h
}

// bytes returns the line in one slice of its exact size.
func (lb *lineBuf) bytes() []byte {
	if len(lb.pieces) == 0 {
		return lb.cur
	}
	all := append(lb.pieces, lb.cur)
	lb.pieces, lb.cur = nil, nil
	out := make([]byte, lb.total)
	n, released := 0, 0
	step := max(releaseMin, lb.total/releaseSteps)
	for i, p := range all {
		n += copy(out[n:], p)
		all[i] = nil
		if lb.total >= bigLine && n-released >= step && n < lb.total {
			debug.FreeOSMemory()
			released = n
		}
	}
	if lb.total >= bigLine {
		debug.FreeOSMemory()
	}
	return out
}

// readContentLength reads the rest of a header block whose first line is given, then
// the body.
func (fr *frameReader) readContentLength(first []byte) (frame, error) {
	length := int64(-1)
	parse := func(h []byte) error {
		name, value, ok := bytes.Cut(h, []byte(":"))
		if !ok || !strings.EqualFold(string(bytes.TrimSpace(name)), "content-length") {
			return nil // other headers (Content-Type) are allowed and ignored
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("the server sent a bad Content-Length header %q", h)
		}
		length = n
		return nil
	}
	if err := parse(first); err != nil {
		return frame{}, err
	}
	for {
		line, full, err := fr.readLine()
		if full > len(line) {
			return frame{}, fmt.Errorf("the server sent a header line of %s in a Content-Length frame", HumanBytes(int64(full)))
		}
		if err != nil {
			return frame{}, fmt.Errorf("the server's output ended inside a Content-Length header block (%v)", err)
		}
		h := bytes.TrimSpace(line)
		if len(h) == 0 {
			break
		}
		if err := parse(h); err != nil {
			return frame{}, err
		}
	}
	if length < 0 {
		return frame{}, errors.New("the server sent a header block without Content-Length")
	}
	if length > int64(fr.max) {
		return frame{}, &FrameTooLargeError{Size: length, Limit: fr.max}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(fr.r, body); err != nil {
		return frame{}, fmt.Errorf("the server's output ended inside a %d-byte Content-Length frame (%v)", length, err)
	}
	return frame{data: body, framing: FramingContentLength, size: len(body)}, nil
}

// encodeFrame frames one message for writing.
func encodeFrame(f Framing, data []byte) []byte {
	if f == FramingContentLength {
		hdr := "Content-Length: " + strconv.Itoa(len(data)) + "\r\n\r\n"
		out := make([]byte, 0, len(hdr)+len(data))
		return append(append(out, hdr...), data...)
	}
	out := make([]byte, 0, len(data)+1)
	return append(append(out, data...), '\n')
}
