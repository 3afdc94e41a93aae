package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/ownfiles"
	"github.com/mcpscope/mcpscope/internal/readfile"
)

// Recording is a recording read back.
type Recording struct {
	Header Header
	Events []Event
	// Warnings say what was wrong but tolerated: a torn last line, a line that is not
	// an event, a missing end marker.
	Warnings []string
	// Complete reports whether the recording ended with its end marker (the recorder
	// finished it rather than being killed).
	Complete bool
}

// Load reads the recording at path: a regular file of at most readfile.MaxSaved (a
// FIFO or a device is refused without being opened for reading, and no more than the
// cap is read even from a file that grows).
func Load(path string) (*Recording, error) {
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	rec, err := r.readAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rec, nil
}

// Read reads a recording. It is tolerant: a torn last line (the recorder was killed
// while writing it) and lines that are not events are skipped with a warning. It fails
// only when there is no valid header, or the header is from a newer format version.
func Read(r io.Reader) (*Recording, error) {
	rr, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	return rr.readAll()
}

// Reader reads a recording one event at a time, so that a reader that keeps only
// what it needs (replay keeps the requests still pending) holds memory flat in the
// size of the file; Read is a Reader read to the end. It tolerates what Read
// tolerates, with the same warnings.
type Reader struct {
	// Header is the recording's header; servers added later in the file
	// (KindServer lines) join Header.Servers as they are read.
	Header Header
	// Warnings and Complete are Recording's, final once Next has returned io.EOF.
	Warnings []string
	Complete bool

	br     *bufio.Reader
	closer io.Closer
	n      int // lines read
	end    bool
}

// Open opens the recording at path for reading event by event, with Load's limits,
// and reads its header.
func Open(path string) (*Reader, error) {
	f, err := readfile.Open(path, readfile.MaxSaved)
	if err != nil {
		return nil, err
	}
	r, err := NewReader(io.LimitReader(f, readfile.MaxSaved))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.closer = f
	return r, nil
}

// NewReader reads a recording's header from r; Next reads the events after it.
func NewReader(r io.Reader) (*Reader, error) {
	rr := &Reader{br: bufio.NewReaderSize(r, 64<<10)}
	for {
		line, full, err := readLine(rr.br, MaxLine)
		if full == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				return nil, errors.New("empty file: not an mcpscope recording")
			}
			return nil, err
		}
		rr.n++
		if line == nil {
			return nil, fmt.Errorf("not an mcpscope recording: the first line is %s long, more than the %s a recording line may have", wire.HumanBytes(int64(full)), wire.HumanBytes(int64(MaxLine)))
		}
		if line = bytes.TrimSpace(line); len(line) == 0 {
			if err != nil {
				return nil, errors.New("empty file: not an mcpscope recording")
			}
			continue
		}
		if err := readHeader(line, &rr.Header); err != nil {
			return nil, err
		}
		if err != nil {
			rr.end = true // the header was the last line, without its newline
		}
		return rr, nil
	}
}

// Close closes the file Open opened (nothing for NewReader's).
func (r *Reader) Close() error {
	if r.closer == nil {
		return nil
	}
	return r.closer.Close()
}

// Next returns the next event of the recording, or io.EOF after the last one (then
// Warnings and Complete are final). Its Line is its line in the file.
func (r *Reader) Next() (*Event, error) {
	for !r.end {
		line, err := r.line()
		if err != nil {
			if errors.Is(err, io.EOF) {
				r.finish()
				return nil, io.EOF
			}
			return nil, err
		}
		if len(line) == 0 {
			continue // blank, or too long (with its warning)
		}
		ev := &Event{}
		if uerr := json.Unmarshal(line, ev); uerr != nil {
			if r.end {
				r.Warnings = append(r.Warnings, fmt.Sprintf("line %d is incomplete (%d bytes, no line end): the recorder stopped while writing it; ignored", r.n, len(line)))
			} else {
				r.Warnings = append(r.Warnings, fmt.Sprintf("line %d is not a recording event (%v); skipped", r.n, shortErr(uerr)))
			}
			continue
		}
		if ev.Kind == "" {
			ev.Kind = KindMessage
		}
		ev.Line = r.n
		switch ev.Kind {
		case KindEnd:
			r.Complete = true
			continue
		case KindServer:
			r.addServer(*ev, r.n)
			continue
		}
		return ev, nil
	}
	r.finish()
	return nil, io.EOF
}

// finish adds the warning of a recording that ends without its end marker, once.
func (r *Reader) finish() {
	if r.br == nil {
		return
	}
	r.br, r.end = nil, true
	if !r.Complete {
		r.Warnings = append(r.Warnings, "the recording has no end marker: the recorder was stopped before finishing it (it is read up to its last whole line)")
	}
}

// line reads the next line, trimmed: nil with a warning for a line over MaxLine,
// and io.EOF when there is none. A last line without a newline is returned with r.end
// set (the recorder stopped while writing it).
func (r *Reader) line() ([]byte, error) {
	if r.br == nil {
		return nil, io.EOF
	}
	line, full, err := readLine(r.br, MaxLine)
	if full == 0 && err != nil {
		return nil, err
	}
	r.n++
	if err != nil {
		r.end = true // the last line had no newline
	}
	if line == nil {
		r.Warnings = append(r.Warnings, fmt.Sprintf("line %d is %s, more than the %s limit for one recording line; skipped without being read into memory", r.n, wire.HumanBytes(int64(full)), wire.HumanBytes(int64(MaxLine))))
		return []byte{}, nil
	}
	return bytes.TrimSpace(line), nil
}

// readAll reads the rest of the recording into memory.
func (r *Reader) readAll() (*Recording, error) {
	rec := &Recording{}
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		rec.Events = append(rec.Events, *ev)
	}
	rec.Header, rec.Warnings, rec.Complete = r.Header, r.Warnings, r.Complete
	return rec, nil
}

// MaxLine is the longest recording line Read takes in: a message at the largest
// --max-frame default (256 MiB) and its event members. A longer line is skipped with a
// warning, without being held in memory.
var MaxLine = wire.DefaultMaxFrame + 1<<20

// readLine reads one line (with its newline, if any). A line longer than max is
// consumed and dropped: line is nil and full its length. Pieces are collected and
// joined once, so a line costs its size rather than a doubling buffer's 2 to 3 times.
func readLine(br *bufio.Reader, max int) (line []byte, full int, err error) {
	var pieces [][]byte
	for {
		chunk, err := br.ReadSlice('\n')
		full += len(chunk)
		if full > max {
			pieces = nil
			for err == bufio.ErrBufferFull {
				chunk, err = br.ReadSlice('\n')
				full += len(chunk)
			}
			return nil, full, err
		}
		if err == bufio.ErrBufferFull {
			pieces = append(pieces, append([]byte(nil), chunk...))
			continue
		}
		if len(pieces) == 0 {
			return append([]byte(nil), chunk...), full, err
		}
		out := make([]byte, 0, full)
		for _, p := range pieces {
			out = append(out, p...)
		}
		return append(out, chunk...), full, err
	}
}

func readHeader(line []byte, h *Header) error {
	var probe struct {
		Format  *string `json:"mcpscope"`
		Version *int    `json:"version"`
	}
	if err := json.Unmarshal(line, &probe); err != nil || probe.Format == nil {
		return errors.New("not an mcpscope recording: the first line is not a recording header")
	}
	if *probe.Format != Format {
		return fmt.Errorf("not an mcpscope recording: the header says %q, not %q", *probe.Format, Format)
	}
	if probe.Version == nil || *probe.Version < 1 {
		return errors.New("the recording header has no valid format version")
	}
	if *probe.Version > MaxVersion {
		return fmt.Errorf("the recording has format version %d, which this mcpscope (format %d) cannot read; use a newer mcpscope", *probe.Version, MaxVersion)
	}
	if err := json.Unmarshal(line, h); err != nil {
		return fmt.Errorf("the recording header is malformed: %v", shortErr(err))
	}
	return nil
}

func shortErr(err error) string {
	s := err.Error()
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// WriteTo writes the recording as a file: header, events, end marker. Events are
// written as they are (they were redacted when first recorded).
func (rec *Recording) WriteTo(w io.Writer) (int64, error) {
	h := rec.Header
	h.Format, h.Version = Format, Version
	if len(h.Servers) > 0 {
		h.Version = VersionServers
	}
	line, err := marshalLine(h)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriter(w)
	total := int64(0)
	nw, err := bw.Write(line)
	total += int64(nw)
	if err != nil {
		return total, err
	}
	var buf []byte
	last := 0.0
	for i := range rec.Events {
		buf = appendEvent(buf[:0], &rec.Events[i], nil, false)
		nw, err := bw.Write(buf)
		total += int64(nw)
		if err != nil {
			return total, err
		}
		last = max(last, rec.Events[i].T)
	}
	buf = appendEvent(buf[:0], &Event{T: last, Kind: KindEnd}, nil, false)
	nw, err = bw.Write(buf)
	total += int64(nw)
	if err != nil {
		return total, err
	}
	return total, bw.Flush()
}

// Save writes the recording to path atomically, mode 0600: a temporary file in the
// same directory renamed over it (a symbolic link at path is replaced, not followed).
func (rec *Recording) Save(path string) error {
	// A saved recording is mcpscope's output, never an edit (see Create). It replaces
	// what is at path, so the name is ours from now on.
	ownfiles.Expect(path)
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+strings.TrimSuffix(base, filepath.Ext(base))+"-*.tmp")
	if err != nil {
		return err
	}
	mode := os.FileMode(0o600)
	if _, err := rec.WriteTo(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// addServer takes in a KindServer line: a server added to the session after the
// header was written joins Header.Servers (once, at its place in the file).
func (r *Reader) addServer(ev Event, line int) {
	if len(r.Header.Servers) == 0 || ev.Server == "" || ev.Target == nil {
		r.Warnings = append(r.Warnings, fmt.Sprintf("line %d adds a server without a name or target, or to a recording of one server; ignored", line))
		return
	}
	for _, s := range r.Header.Servers {
		if s.Name == ev.Server {
			return // a server added again (removed and added back) keeps its first target
		}
	}
	r.Header.Servers = append(r.Header.Servers, Server{Name: ev.Server, Target: *ev.Target})
}
