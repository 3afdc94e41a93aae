package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/ownfiles"
)

// Writer appends events to a recording. Every event is one write of one whole line,
// with no buffering in between: when mcpscope is killed, at most the line being written
// is lost (the kernel has everything written before; no fsync is done, so a power cut
// may lose more). It is safe for concurrent use.
type Writer struct {
	mu     sync.Mutex
	w      io.Writer
	file   *os.File
	path   string
	start  time.Time
	red    *Redactor
	buf    []byte
	err    error
	closed bool
	// several: the header names servers (version 2), so AddServer may add more.
	several bool
}

// Create creates the file at path, mode 0600, and writes the header. A symbolic link
// at path is refused, never followed; an existing regular file is replaced, not
// truncated: a new file is made beside it and renamed over it, so the recording is
// mcpscope's own 0600 file whatever the old one's mode and links were; anything else
// at path (a directory, a FIFO, a device) is refused.
func Create(path string, h Header, red *Redactor) (*Writer, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	w, err := NewWriter(f, h, red)
	if err != nil {
		f.Close()
		return nil, err
	}
	w.file, w.path = f, path
	return w, nil
}

// createFile makes a new 0600 file at path (see Create).
func createFile(path string) (*os.File, error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		// O_EXCL: a file or link made at path meanwhile fails this (a link is not
		// followed), and is then looked at below.
		f, cerr := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if !errors.Is(cerr, fs.ErrExist) {
			return f, cerr
		}
		st, err = os.Lstat(path) // was the outer err (not-exist): look again
	}
	if err != nil {
		return nil, err
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("%s is a symbolic link; mcpscope does not write through one (remove it, or record to another name)", path)
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s exists and is not a regular file", path)
	}
	// Renaming over path replaces whatever is there by then (even a link planted since
	// the Lstat) without writing into it.
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// AutoName is the file name a recording started at t gets when none is given.
func AutoName(t time.Time) string {
	return "mcpscope-" + t.Format("20060102-150405") + ".jsonl"
}

// CreateIn creates a new recording with a dated name (see AutoName) in dir, adding -2,
// -3… when that name is taken, and returns it; Path tells the name.
func CreateIn(dir string, h Header, red *Redactor) (*Writer, error) {
	f, err := OpenIn(dir)
	if err != nil {
		return nil, err
	}
	w, err := NewWriter(f, h, red)
	if err != nil {
		f.Close()
		return nil, err
	}
	w.file, w.path = f, f.Name()
	return w, nil
}

// OpenFile makes the file of a recording at path as Create does (mode 0600, a link
// refused, a regular file replaced) without writing anything: for a writer that
// writes its header later (a tap learns its client's name from the first request)
// or through a tee (NewWriter on a writer of the caller's).
func OpenFile(path string) (*os.File, error) {
	// Before the file is made: a watch of its directory must know it from its first
	// event (a recording in a watched directory restarted the server; issue 20).
	ownfiles.Expect(path)
	f, err := createFile(path)
	if err != nil {
		ownfiles.Forget(path)
		return nil, fmt.Errorf("cannot create the recording: %w", err)
	}
	ownfiles.Add(path)
	return f, nil
}

// OpenIn makes a new recording file with a dated name in dir as CreateIn does,
// without writing anything (see OpenFile); its Name is the path.
func OpenIn(dir string) (*os.File, error) {
	now := time.Now()
	base := AutoName(now)
	ext := filepath.Ext(base)
	stem := base[:len(base)-len(ext)]
	for n := 1; n < 1000; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s-%d%s", stem, n, ext)
		}
		path := filepath.Join(dir, name)
		ownfiles.Expect(path) // before the file is made (see Create)
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			ownfiles.Forget(path)
		}
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cannot create the recording: %w", err)
		}
		ownfiles.Add(path)
		return f, nil
	}
	return nil, fmt.Errorf("cannot create the recording: too many files named %s-*%s in %s", stem, ext, dir)
}

// NewWriter writes the header to w and returns a writer for the events. Missing header
// fields (format, version, start time) are filled in; argv, URL and headers are
// redacted, and the secrets in the server's command line (--api-key X) are added to
// red (a nil red gets a redactor of its own for them).
func NewWriter(w io.Writer, h Header, red *Redactor) (*Writer, error) {
	if red == nil {
		red = &Redactor{}
	}
	red.AddArgv(h.Target.Argv)
	for _, s := range h.Servers {
		red.AddArgv(s.Target.Argv)
	}
	wr := &Writer{w: w, red: red, start: time.Now(), several: len(h.Servers) > 0}
	h.Format, h.Version = Format, Version
	if len(h.Servers) > 0 {
		h.Version = VersionServers
	}
	if h.Started.IsZero() {
		h.Started = wr.start
	}
	h.Started = h.Started.UTC()
	h.Target.Argv = red.Argv(h.Target.Argv)
	h.Target.URL = red.URL(h.Target.URL)
	if len(h.Servers) > 0 {
		servers := make([]Server, len(h.Servers))
		for i, s := range h.Servers {
			s.Target.Argv = red.Argv(s.Target.Argv)
			s.Target.URL = red.URL(s.Target.URL)
			servers[i] = s
		}
		h.Servers = servers
	}
	if h.Surface != nil {
		// The server's lists, redacted as its messages are.
		sf := *h.Surface
		for _, l := range []*json.RawMessage{&sf.Tools, &sf.Resources, &sf.ResourceTemplates, &sf.Prompts} {
			if *l != nil {
				*l = red.JSON(*l)
			}
		}
		h.Surface = &sf
	}
	line, err := marshalLine(h)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(line); err != nil {
		return nil, fmt.Errorf("writing the recording: %w", err)
	}
	return wr, nil
}

// AddServer records a server that joined the session after the header was written
// (a recording of several servers only): a KindServer line with its name and target,
// redacted as the header's are (secrets are its own, such as its env values, masked
// from then on); its events follow through ListenServer(s.Name).
func (w *Writer) AddServer(s Server, secrets ...string) error {
	if !w.several {
		return errors.New("a recording of one server cannot take another")
	}
	w.mu.Lock() // the redactor is used under mu by every write
	w.red.AddArgv(s.Target.Argv)
	for _, v := range secrets {
		w.red.AddSecret(v)
	}
	t := s.Target
	t.Argv = w.red.Argv(t.Argv)
	t.URL = w.red.URL(t.URL)
	w.mu.Unlock()
	return w.Write(Event{T: time.Since(w.start).Seconds(), Server: s.Name, Kind: KindServer, Target: &t})
}

// Path is the file's path ("" for a writer made with NewWriter).
func (w *Writer) Path() string { return w.path }

// Start is when the recording started; event times are relative to it.
func (w *Writer) Start() time.Time { return w.start }

// Listen records one wire event; it is a wire.Listener.
func (w *Writer) Listen(e wire.Event) { w.listen(e, "") }

// ListenServer returns the listener for one server of a recording of several: its
// events carry the server's name.
func (w *Writer) ListenServer(name string) wire.Listener {
	return func(e wire.Event) { w.listen(e, name) }
}

func (w *Writer) listen(e wire.Event, server string) {
	ev := w.event(e, server)
	// A message event's bytes were parsed by the wire layer: valid JSON, so the
	// recorder does not check them again (the hot path of --record).
	_ = w.write(&ev, e.Kind == wire.KindMessage)
}

// event is a wire event as a recording event.
func (w *Writer) event(e wire.Event, server string) Event {
	t := e.Time
	if t.IsZero() {
		t = time.Now()
	}
	ev := Event{T: t.Sub(w.start).Seconds(), Server: server, Dir: string(e.Dir)}
	switch e.Kind {
	case wire.KindMessage:
		if e.Framing != "" && e.Framing != wire.FramingNDJSON {
			ev.Framing = string(e.Framing) // content-length; http and sse on HTTP transports
		}
		ev.Msg = e.Data
	case wire.KindNoise, wire.KindStderr:
		ev.Kind = string(e.Kind)
		ev.Text = string(e.Data)
		if e.Size > len(e.Data) {
			ev.Size = e.Size
		}
		if e.Kind == wire.KindStderr {
			ev.Dir = ""
		}
	case wire.KindClosed:
		ev.Kind, ev.Text, ev.Dir = KindClosed, e.Text, ""
		if e.Exit != nil {
			code := e.Exit.Code
			ev.Exit, ev.Signal = &code, e.Exit.Signal
		}
	default: // repair, synthetic, and kinds a later wire layer adds
		ev.Kind, ev.Text = string(e.Kind), e.Text
		if len(e.Data) > 0 {
			ev.Msg = e.Data
		}
	}
	if h := e.HTTP; h != nil {
		ev.Exchange, ev.Error = h.Exchange, h.Error
		if e.Kind == wire.KindHTTP {
			if e.Dir == wire.Send {
				ev.Method, ev.URL = h.Method, h.URL
			}
			ev.Status = h.Status
			if len(h.Header) > 0 {
				ev.Headers = map[string][]string(h.Header)
			}
		}
		if h.SSE != nil {
			ev.SSE = &SSE{ID: h.SSE.ID, Event: h.SSE.Event, Retry: h.SSE.Retry}
		}
	}
	return ev
}

// Write appends one event (redacted) as one line. After the first failure it returns
// that error and writes nothing more; Err reports it.
func (w *Writer) Write(ev Event) error { return w.write(&ev, false) }

func (w *Writer) write(ev *Event, validJSON bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil || w.closed {
		return w.err
	}
	var msg []byte
	w.buf, msg = appendEventHead(w.buf[:0], ev, w.red, validJSON)
	if msg != nil && len(msg) < bigMsg {
		w.buf = append(append(w.buf, msg...), '}', '\n')
		msg = nil
	}
	if _, err := w.w.Write(w.buf); err != nil {
		w.err = fmt.Errorf("writing the recording: %w", err)
	} else if msg != nil {
		// A big message goes from the frame to the file as it is, not copied into
		// the line first (a 100 MiB result would cost another 100 MiB or more).
		// The line is then three writes; a reader already tolerates a torn last line.
		if _, err := w.w.Write(msg); err != nil {
			w.err = fmt.Errorf("writing the recording: %w", err)
		} else if _, err := w.w.Write([]byte("}\n")); err != nil {
			w.err = fmt.Errorf("writing the recording: %w", err)
		}
	}
	if cap(w.buf) > 1<<20 {
		w.buf = nil // do not keep a huge message's buffer
	}
	return w.err
}

// Err is the first write error, if any.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Close writes the end marker and closes the file (when Create made it). Events after
// Close are dropped.
func (w *Writer) Close() error {
	if err := w.Write(Event{T: time.Since(w.start).Seconds(), Kind: KindEnd}); err != nil {
		if w.file != nil {
			w.file.Close()
		}
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	if w.file != nil {
		if err := w.file.Close(); err != nil {
			w.err = fmt.Errorf("closing the recording: %w", err)
		}
	}
	return w.err
}

// marshalLine encodes v as one line without HTML escaping.
func marshalLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// bigMsg is the message size from which the writer writes a message straight from
// its bytes instead of copying it into the line.
const bigMsg = 1 << 20

// appendEvent appends ev as one JSON line, redacting text, messages, URLs and headers.
// The member order is fixed (t, server, kind, dir, framing, http members, exit, size, text,
// msg) so that files diff well. validJSON says ev.Msg is known to be valid JSON.
func appendEvent(b []byte, ev *Event, red *Redactor, validJSON bool) []byte {
	b, msg := appendEventHead(b, ev, red, validJSON)
	if msg == nil {
		return b
	}
	return append(append(b, msg...), '}', '\n')
}

// appendEventHead is appendEvent up to the message: when the event has a JSON message,
// b ends with `"msg":` and the (redacted, compacted) message is returned for the
// caller to append, followed by "}\n"; otherwise b is the whole line and msg is nil.
func appendEventHead(b []byte, ev *Event, red *Redactor, validJSON bool) ([]byte, []byte) {
	b = append(b, `{"t":`...)
	b = strconv.AppendFloat(b, roundMicro(ev.T), 'f', -1, 64)
	str := func(name, v string) {
		if v != "" {
			b = append(b, `,"`...)
			b = append(b, name...)
			b = append(b, `":`...)
			b = appendJSONString(b, v)
		}
	}
	str("server", ev.Server)
	if ev.Kind != KindMessage {
		str("kind", ev.Kind)
	}
	if ev.Snapshot {
		b = append(b, `,"snapshot":true`...)
	}
	if ev.Target != nil {
		if t, err := json.Marshal(ev.Target); err == nil {
			b = append(append(b, `,"target":`...), t...)
		}
	}
	str("dir", ev.Dir)
	str("framing", ev.Framing)
	if ev.Exchange != 0 {
		b = append(b, `,"exchange":`...)
		b = strconv.AppendInt(b, int64(ev.Exchange), 10)
	}
	str("method", ev.Method)
	str("url", red.URL(ev.URL))
	if ev.Status != 0 {
		b = append(b, `,"status":`...)
		b = strconv.AppendInt(b, int64(ev.Status), 10)
	}
	if len(ev.Headers) > 0 {
		h := red.Headers(ev.Headers)
		keys := make([]string, 0, len(h))
		for k := range h {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, `,"headers":{`...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':', '[')
			for j, v := range h[k] {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendJSONString(b, v)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	if ev.SSE != nil && (ev.SSE.ID != "" || ev.SSE.Event != "" || ev.SSE.Retry != "") {
		b = append(b, `,"sse":{`...)
		first := true
		for _, f := range [][2]string{{"id", ev.SSE.ID}, {"event", ev.SSE.Event}, {"retry", ev.SSE.Retry}} {
			if f[1] == "" {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, '"')
			b = append(b, f[0]...)
			b = append(b, '"', ':')
			b = appendJSONString(b, f[1])
		}
		b = append(b, '}')
	}
	str("error", red.Text(ev.Error))
	if ev.Exit != nil {
		b = append(b, `,"exit":`...)
		b = strconv.AppendInt(b, int64(*ev.Exit), 10)
	}
	str("signal", ev.Signal)
	if ev.Size != 0 {
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, int64(ev.Size), 10)
	}
	text := red.Text(ev.Text)
	if len(ev.Msg) > 0 {
		msg, ok := compactJSON(ev.Msg, validJSON)
		if ok {
			str("text", text)
			b = append(b, `,"msg":`...)
			return b, red.JSON(msg)
		} else {
			// Not JSON after all: keep the frame as text.
			frame := red.Text(string(ev.Msg))
			if text != "" {
				frame = text + "\n" + frame
			}
			str("text", frame)
		}
	} else {
		str("text", text)
	}
	return append(b, '}', '\n'), nil
}

// roundMicro rounds seconds to microseconds, enough for wire timing and short to print.
func roundMicro(s float64) float64 {
	if s < 0 {
		return 0
	}
	return float64(int64(s*1e6+0.5)) / 1e6
}
