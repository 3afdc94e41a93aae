package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
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
	line, full, err := fr.readLine()
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
	var buf []byte
	for {
		chunk, err := fr.r.ReadSlice('\n')
		if len(buf)+len(chunk) > fr.max {
			head := append(buf, chunk...)
			if len(head) > noiseKeep {
				head = head[:noiseKeep]
			}
			head = append([]byte(nil), head...)
			total := len(buf) + len(chunk)
			for err == bufio.ErrBufferFull {
				chunk, err = fr.r.ReadSlice('\n')
				total += len(chunk)
			}
			if total > 0 && err == nil {
				total-- // the newline
			}
			if total <= len(head) { // keep "cut" visible: full > len(line)
				head = head[:total-1]
			}
			return bytes.TrimRight(head, "\n"), total, err
		}
		buf = append(buf, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if n := len(buf); n > 0 && buf[n-1] == '\n' {
			buf = buf[:n-1]
		}
		return buf, len(buf), err
	}
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
