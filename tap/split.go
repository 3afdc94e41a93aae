package tap

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// splitter cuts a copy of one direction's byte stream into the units a recording
// holds: messages (an NDJSON line, or the body of a Content-Length frame) and noise
// lines. It never touches the bytes that are forwarded: the forwarder writes each
// chunk on first and only then hands the splitter its copy, so what the splitter
// understands (or fails to) can never change or delay what the other side gets.
//
// Each message is told apart on its own, as client/wire's frame reader does: a line
// that starts with '{' or '[' is an NDJSON message, a "Content-Length:" header block
// introduces an LSP-style frame, and any other line is noise. So a host and a server
// that speak different framings, or switch, are both read right.
type splitter struct {
	emit func(u unit)
	// max is the largest message recorded; a bigger one is forwarded all the same and
	// recorded as a note of its size.
	max int64

	state    int
	msg      spill // the message (or noise line, or header block) being read
	framing  string
	want     int64 // content-length: body bytes still to come
	size     int64 // bytes of the current unit seen, also when not kept
	tooLarge bool
}

// unit is what the splitter hands on: a message or a noise line.
type unit struct {
	framing string // "" (ndjson) or "content-length"
	data    []byte // the message's bytes (nil when too large, or spilled)
	// load reads a spilled message back (nil when data has it): the recorder's
	// goroutine calls it, so that reading 100 MiB back never holds up the forwarding.
	load  func() []byte
	noise bool  // a line that is not a message
	size  int64 // the unit's full size, also when data is nil or cut
}

const (
	stStart  = iota // between units: skipping blank lines
	stLine          // inside an NDJSON message line
	stNoise         // inside a noise line
	stHeader        // inside a Content-Length header block
	stBody          // inside a Content-Length body
)

// noiseKeep is how much of a noise line is recorded (as client/wire keeps).
const noiseKeep = 4096

func newSplitter(max int64, emit func(unit)) *splitter {
	return &splitter{emit: emit, max: max}
}

// write feeds the next chunk of the stream.
func (s *splitter) write(p []byte) {
	for len(p) > 0 {
		switch s.state {
		case stStart:
			i := 0
			for i < len(p) && (p[i] == '\n' || p[i] == '\r' || p[i] == ' ' || p[i] == '\t') {
				i++
			}
			p = p[i:]
			if len(p) == 0 {
				return
			}
			s.size, s.tooLarge = 0, false
			switch {
			case p[0] == '{' || p[0] == '[':
				s.state, s.framing = stLine, ""
			case p[0] == 'C' || p[0] == 'c':
				// Maybe a header; decided when the line is complete.
				s.state = stHeader
			default:
				s.state = stNoise
			}
		case stLine, stNoise:
			i := bytes.IndexByte(p, '\n')
			end := len(p)
			if i >= 0 {
				end = i
			}
			s.keep(p[:end], s.state == stNoise)
			p = p[end:]
			if i >= 0 {
				p = p[1:]
				s.finishLine()
			}
		case stHeader:
			i := bytes.Index(p, []byte("\n"))
			end := len(p)
			if i >= 0 {
				end = i + 1
			}
			s.keep(p[:end], false)
			p = p[end:]
			if i >= 0 {
				s.headerLine()
			}
		case stBody:
			n := min(int64(len(p)), s.want)
			s.keep(p[:n], false)
			p = p[n:]
			s.want -= n
			if s.want == 0 {
				s.finishMessage("content-length")
			}
		}
	}
}

// keep adds bytes to the current unit (up to what is recorded of it).
func (s *splitter) keep(p []byte, noise bool) {
	s.size += int64(len(p))
	switch {
	case s.tooLarge:
	case noise:
		if room := noiseKeep - s.msg.len(); room > 0 {
			s.msg.write(p[:min(len(p), int(room))])
		}
	case s.size > s.max:
		s.tooLarge = true
		s.msg.reset()
	default:
		s.msg.write(p)
	}
}

func (s *splitter) finishLine() {
	if s.state == stNoise {
		b := s.msg.take()
		s.emit(unit{noise: true, data: bytes.TrimRight(b, "\r"), size: s.size})
		s.state = stStart
		return
	}
	s.finishMessage("")
}

func (s *splitter) finishMessage(framing string) {
	u := unit{framing: framing, size: s.size}
	if !s.tooLarge {
		if load := s.msg.detach(); load != nil {
			u.load = func() []byte {
				b := load()
				if framing == "" {
					b = bytes.TrimRight(b, "\r")
				}
				return b
			}
		} else {
			u.data = s.msg.take()
			if framing == "" {
				u.data = bytes.TrimRight(u.data, "\r")
			}
		}
	}
	s.msg.reset()
	s.emit(u)
	s.state = stStart
}

// headerLine handles a complete line of a header block (in s.msg): a blank line ends
// the block, a Content-Length line gives the body's size. A first line that is no
// header at all turns out to be noise.
func (s *splitter) headerLine() {
	block := s.msg.bytes()
	blank := bytes.HasSuffix(block, []byte("\n\n")) || bytes.HasSuffix(block, []byte("\n\r\n"))
	lines := strings.Split(strings.TrimRight(string(block), "\r\n"), "\n")
	if first := strings.TrimRight(lines[0], "\r"); len(lines) == 1 && !blank && !isHeader(first) {
		s.msg.reset()
		s.emit(unit{noise: true, data: []byte(first[:min(len(first), noiseKeep)]), size: int64(len(first))})
		s.state = stStart
		return
	}
	if !blank && len(block) < 8<<10 {
		return // more header lines to come
	}
	s.msg.reset()
	s.state, s.want = stStart, -1
	for _, l := range lines {
		k, v, ok := strings.Cut(strings.TrimRight(l, "\r"), ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), "content-length") {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n >= 0 {
				s.want = n
			}
		}
	}
	if s.want < 0 {
		// A header block without a length: nothing can be framed after it, but the
		// bytes were forwarded all the same; note it and read on line by line.
		s.emit(unit{noise: true, data: []byte(fmt.Sprintf("a header block without Content-Length: %q", strings.Join(lines, " "))), size: int64(len(block))})
		return
	}
	s.size, s.tooLarge = 0, false
	if s.want == 0 {
		s.finishMessage("content-length")
		return
	}
	s.state = stBody
}

func isHeader(line string) bool {
	k, _, ok := strings.Cut(line, ":")
	return ok && strings.EqualFold(strings.TrimSpace(k), "content-length")
}

// spill holds the bytes of one unit: in memory up to spillAt, then in a temporary
// file (unlinked at once), so that a 100 MiB result is not grown in memory by
// doubling (which held up to three times its size while it arrived); take reads it
// back into one buffer of its exact size.
type spill struct {
	mem  []byte
	file *os.File
	n    int64
}

const spillAt = 1 << 20

func (s *spill) len() int64 { return s.n }

func (s *spill) write(p []byte) {
	if s.file == nil && s.n+int64(len(p)) > spillAt {
		f, err := os.CreateTemp("", "mcpscope-tap-*")
		if err == nil {
			os.Remove(f.Name()) // nothing else needs its name; gone when closed
			if _, err = f.Write(s.mem); err == nil {
				s.file, s.mem = f, s.mem[:0]
			} else {
				f.Close()
			}
		}
		// Without a file, the unit grows in memory.
	}
	if s.file != nil {
		if _, err := s.file.Write(p); err != nil {
			s.file.Close()
			s.file = nil // the unit is lost for the recording; take returns what is left
			s.mem, s.n = nil, 0
			return
		}
	} else {
		s.mem = append(s.mem, p...)
	}
	s.n += int64(len(p))
}

// bytes is what was written, for a small unit (a header block) only.
func (s *spill) bytes() []byte { return s.mem }

// detach hands over a spilled unit's file as a func that reads it back (once) and
// empties the spill; nil when the unit is in memory.
func (s *spill) detach() func() []byte {
	if s.file == nil {
		return nil
	}
	f, n := s.file, s.n
	s.file, s.n = nil, 0
	return func() []byte {
		defer f.Close()
		b := make([]byte, n)
		if _, err := f.ReadAt(b, 0); err != nil && err != io.EOF {
			return nil
		}
		return b
	}
}

// take returns the unit's bytes and empties the spill.
func (s *spill) take() []byte {
	if s.file == nil {
		b := bytes.Clone(s.mem) // the recording may keep it; the buffer is reused
		s.mem, s.n = s.mem[:0], 0
		if cap(s.mem) > spillAt {
			s.mem = nil // grown in memory (no temporary file): not kept
		}
		return b
	}
	b := make([]byte, s.n)
	_, err := s.file.ReadAt(b, 0)
	if err != nil && err != io.EOF {
		b = nil
	}
	s.file.Close()
	s.file, s.n = nil, 0
	return b
}

func (s *spill) reset() {
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
	s.mem, s.n = s.mem[:0], 0
}
