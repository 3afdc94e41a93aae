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
	f, err := readfile.Open(path, readfile.MaxSaved)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rec, err := Read(io.LimitReader(f, readfile.MaxSaved))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rec, nil
}

// Read reads a recording. It is tolerant: a torn last line (the recorder was killed
// while writing it) and lines that are not events are skipped with a warning. It fails
// only when there is no valid header, or the header is from a newer format version.
func Read(r io.Reader) (*Recording, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	rec := &Recording{}
	n := 0
	sawHeader := false
	for {
		line, full, err := readLine(br, MaxLine)
		if full == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
		n++
		torn := err != nil // the last line had no newline
		if line == nil {
			if !sawHeader {
				return nil, fmt.Errorf("not an mcpscope recording: the first line is %s long, more than the %s a recording line may have", wire.HumanBytes(int64(full)), wire.HumanBytes(int64(MaxLine)))
			}
			rec.Warnings = append(rec.Warnings, fmt.Sprintf("line %d is %s, more than the %s limit for one recording line; skipped without being read into memory", n, wire.HumanBytes(int64(full)), wire.HumanBytes(int64(MaxLine))))
			continue
		}
		text := bytes.TrimSpace(line)
		if len(text) == 0 {
			continue
		}
		if !sawHeader {
			if err := readHeader(text, &rec.Header); err != nil {
				return nil, err
			}
			sawHeader = true
			continue
		}
		var ev Event
		if uerr := json.Unmarshal(text, &ev); uerr != nil {
			if torn {
				rec.Warnings = append(rec.Warnings, fmt.Sprintf("line %d is incomplete (%d bytes, no line end): the recorder stopped while writing it; ignored", n, len(line)))
			} else {
				rec.Warnings = append(rec.Warnings, fmt.Sprintf("line %d is not a recording event (%v); skipped", n, shortErr(uerr)))
			}
			continue
		}
		if ev.Kind == "" {
			ev.Kind = KindMessage
		}
		ev.Line = n
		if ev.Kind == KindEnd {
			rec.Complete = true
			continue
		}
		if ev.Kind == KindServer {
			rec.addServer(ev, n)
			continue
		}
		rec.Events = append(rec.Events, ev)
	}
	if !sawHeader {
		return nil, errors.New("empty file: not an mcpscope recording")
	}
	if !rec.Complete {
		rec.Warnings = append(rec.Warnings, "the recording has no end marker: the recorder was stopped before finishing it (it is read up to its last whole line)")
	}
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
func (rec *Recording) addServer(ev Event, line int) {
	if len(rec.Header.Servers) == 0 || ev.Server == "" || ev.Target == nil {
		rec.Warnings = append(rec.Warnings, fmt.Sprintf("line %d adds a server without a name or target, or to a recording of one server; ignored", line))
		return
	}
	for _, s := range rec.Header.Servers {
		if s.Name == ev.Server {
			return // a server added again (removed and added back) keeps its first target
		}
	}
	rec.Header.Servers = append(rec.Header.Servers, Server{Name: ev.Server, Target: *ev.Target})
}
