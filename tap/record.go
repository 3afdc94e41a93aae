package tap

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/record"
)

// recorder writes the tap's recording. Its header names the host as the client
// (clientInfo), which only the host's first message tells; so events wait in memory
// until that message (or until pendingMax bytes of them, or the end, whichever comes
// first), and the header is written then with what is known. The events keep their
// times: they are stamped when they happen, relative to the tap's start.
//
// Nothing here may stop or slow the forwarding for long: a failed write is said once
// on stderr and the recording stops; a failed Live writer is dropped and said once.
type recorder struct {
	mu           sync.Mutex
	header       record.Header
	red          *record.Redactor
	sink         *tee
	w            *record.Writer // nil until the header is written
	pending      []record.Event
	pendingBytes int
	start        time.Time
	stopped      bool
	say          func(string)
	// q is the order the events are written in, and the writer goroutine's work:
	// every message is queued before it is forwarded, so the recording has every
	// answer after its request, whichever side asked (the two directions are read by
	// two goroutines), and no direction waits for the disk.
	q    chan func()
	done chan struct{}
	// qmu guards q's sends against its close: the host's direction may still read
	// (and queue) after the server exited and the recording was closed.
	qmu     sync.Mutex
	qclosed bool
}

// pendingMax bounds what waits for the host's first message: a server that talks on
// stderr for long before the host says anything gets its header without a client.
const pendingMax = 1 << 20

func newRecorder(out io.Writer, live io.Writer, h record.Header, red *record.Redactor, start time.Time, say func(string)) *recorder {
	h.Started = start
	r := &recorder{header: h, red: red, start: start, say: say, sink: &tee{file: out, live: live, say: say},
		q: make(chan func(), queueLen), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for fn := range r.q {
			r.mu.Lock()
			fn()
			r.mu.Unlock()
		}
	}()
	return r
}

// queueLen bounds the events waiting for the disk; a full queue makes the forwarding
// wait (memory stays bounded: each holds at most one message).
const queueLen = 256

// stamp is an event's time in the recording.
func (r *recorder) stamp(t time.Time) float64 { return t.Sub(r.start).Seconds() }

// message records one message of a direction (record.Send: host to server).
func (r *recorder) message(t time.Time, dir string, u unit) {
	ev := record.Event{T: r.stamp(t), Dir: dir}
	switch {
	case u.noise:
		ev.Kind, ev.Text = record.KindNoise, string(u.data)
		if u.size > int64(len(u.data)) {
			ev.Size = int(u.size)
		}
	case u.data == nil && u.load == nil:
		ev.Kind = record.KindSynthetic
		ev.Text = fmt.Sprintf("a message of %d bytes was forwarded but not recorded (more than the tap records of one message)", u.size)
	default:
		ev.Framing, ev.Msg = u.framing, u.data
	}
	r.enqueue(func() {
		if u.load != nil && !r.stopped {
			if ev.Msg = u.load(); ev.Msg == nil {
				ev.Kind, ev.Text = record.KindSynthetic, fmt.Sprintf("a message of %d bytes was forwarded but could not be read back for the recording", u.size)
			}
		}
		if r.w == nil && dir == record.Send && ev.Msg != nil {
			r.header.Client = clientOf(ev.Msg)
			r.open()
		}
		r.add(ev)
	})
}

// enqueue queues fn for the writer goroutine, unless the recording is closed.
func (r *recorder) enqueue(fn func()) {
	r.qmu.Lock()
	defer r.qmu.Unlock()
	if !r.qclosed {
		r.q <- fn
	}
}

// stderr records one line of the server's stderr.
func (r *recorder) stderr(t time.Time, line []byte, size int) {
	ev := record.Event{T: r.stamp(t), Kind: record.KindStderr, Text: string(line)}
	if size > len(line) {
		ev.Size = size
	}
	r.enqueue(func() { r.add(ev) })
}

// closed records the server's end and the end of the recording.
// Nothing may be recorded after it.
func (r *recorder) closed(t time.Time, code int, signal, text string) error {
	r.qmu.Lock()
	r.qclosed = true
	close(r.q)
	r.qmu.Unlock()
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	ev := record.Event{T: r.stamp(t), Kind: record.KindClosed, Text: text, Signal: signal}
	if signal == "" {
		ev.Exit = &code
	} else {
		minus := -1
		ev.Exit = &minus
	}
	r.add(ev)
	if r.w == nil {
		r.open()
	}
	if r.w == nil || r.stopped {
		return nil
	}
	err := r.w.Close()
	if err != nil && !r.sink.failed() {
		r.stop(err)
	}
	return nil
}

// add writes ev, or keeps it until the header is written. Called with mu held.
func (r *recorder) add(ev record.Event) {
	if r.stopped {
		return
	}
	if r.w == nil {
		r.pending = append(r.pending, ev)
		r.pendingBytes += len(ev.Msg) + len(ev.Text) + 64
		if r.pendingBytes <= pendingMax {
			return
		}
		r.open() // without a client: the host has not spoken yet
		return
	}
	if err := r.w.Write(ev); err != nil {
		r.stop(err)
	}
}

// open writes the header and what waited for it. Called with mu held.
func (r *recorder) open() {
	w, err := record.NewWriter(r.sink, r.header, r.red)
	if err != nil {
		r.stop(err)
		return
	}
	r.w = w
	pending := r.pending
	r.pending, r.pendingBytes = nil, 0
	for _, ev := range pending {
		if err := w.Write(ev); err != nil {
			r.stop(err)
			return
		}
	}
}

// stop ends the recording after a failure; the forwarding goes on.
func (r *recorder) stop(err error) {
	if r.stopped {
		return
	}
	r.stopped = true
	r.pending = nil
	if !r.sink.said {
		r.say("recording stopped: " + err.Error() + "; the host and the server are still connected")
	}
}

// clientOf is the host's clientInfo: initialize's params.clientInfo, or on 2026-07-28
// (no initialize) the clientInfo every request carries in params._meta.
func clientOf(msg []byte) *record.Peer {
	var m struct {
		Method string `json:"method"`
		Params struct {
			ClientInfo *record.Peer `json:"clientInfo"`
			Meta       struct {
				ClientInfo *record.Peer `json:"io.modelcontextprotocol/clientInfo"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return nil
	}
	if m.Params.ClientInfo != nil {
		return m.Params.ClientInfo
	}
	return m.Params.Meta.ClientInfo
}

// tee is what the recording is written to: the file and, when set, Live (slice C's
// publisher of the live stream). Both get the same bytes, whole lines, header first.
// A sink that fails is dropped and said once; the write fails only when no sink is
// left, which stops the recording (record.Writer writes nothing after an error).
type tee struct {
	file, live io.Writer
	fileErr    error
	say        func(string)
	said       bool // a failure was said (so stop does not say it again)
}

func (t *tee) Write(p []byte) (int, error) {
	if t.file != nil {
		if _, err := t.file.Write(p); err != nil {
			t.file, t.fileErr = nil, err
			t.said = true
			t.say("recording stopped: " + err.Error() + "; the host and the server are still connected")
		}
	}
	if t.live != nil {
		if _, err := t.live.Write(p); err != nil {
			t.live = nil
			t.say("live stream stopped: " + err.Error() + "; the host and the server are still connected")
		}
	}
	if t.file == nil && t.live == nil {
		if t.fileErr != nil {
			return 0, t.fileErr
		}
		return 0, errors.New("no sink left")
	}
	return len(p), nil
}

func (t *tee) failed() bool { return t.file == nil }
