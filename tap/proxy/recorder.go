package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/redact"
	"github.com/mcpscope/mcpscope/record"
)

// Recorder writes what the proxy sees as an ordinary mcpscope recording whose client
// side is the host. It never fails the proxy: the first error stops the recording,
// is said once (Warn), and everything after it is dropped.
//
// Events are written by one goroutine of its own, in the order they came, so that
// the disk never holds up the host: a 100 MiB result written to the recording in the
// request's handler delayed the end of the response by the disk's time
// (BenchmarkBigResult). What waits is bounded (queueBytes); past that, Event waits.
//
// The header names the host (its clientInfo), which is known only once the host's
// first JSON-RPC request is seen: events until then wait in memory (at most
// pendingMax events or pendingBytes bytes; past that the header is written without a
// client). The header is written when they are, so they are at t 0: they come
// within a moment of the host's first request, which is what decides.
type Recorder struct {
	// The queue, under qmu.
	qmu     sync.Mutex
	qcond   *sync.Cond
	queue   []item
	qbytes  int
	closing bool
	done    chan struct{}

	closeOnce sync.Once

	// The writer's own, used by its goroutine only (and by Close after it ended).
	out     io.Writer // the file, or a tee of the file and Live
	closer  io.Closer // the file
	header  record.Header
	red     *record.Redactor
	w       *record.Writer
	pending []wire.Event
	bytes   int
	stopped bool
	warn    func(string)
	warned  bool
	secrets map[string]bool
	err     error
}

// item is one thing to write: an event, or secrets to redact from then on (they go
// through the queue so that they reach the redactor before the events that carry
// them, and the redactor is used by one goroutine).
type item struct {
	e       wire.Event
	secrets []string
}

const (
	pendingMax   = 256
	pendingBytes = 8 << 20
	queueBytes   = 512 << 20
)

// NewRecorder records to file (closed by Close), teeing every byte of the recording
// to live when it is not nil. A live writer that fails is dropped (said once on
// warn); the file goes on. h is the header without its client, which the host's first
// request fills in.
func NewRecorder(file io.WriteCloser, live io.Writer, h record.Header, red *record.Redactor, warn func(string)) *Recorder {
	if red == nil {
		red = &record.Redactor{}
	}
	if warn == nil {
		warn = func(string) {}
	}
	r := &Recorder{out: file, closer: file, header: h, red: red, warn: warn, secrets: map[string]bool{}, done: make(chan struct{})}
	r.qcond = sync.NewCond(&r.qmu)
	if live != nil {
		r.out = &tee{file: file, live: live, warn: warn}
	}
	go r.run()
	return r
}

// enqueue adds an item, waiting while too much is queued already.
func (r *Recorder) enqueue(it item) {
	r.qmu.Lock()
	defer r.qmu.Unlock()
	for r.qbytes > queueBytes && !r.closing {
		r.qcond.Wait()
	}
	if r.closing {
		return
	}
	r.queue = append(r.queue, it)
	r.qbytes += len(it.e.Data)
	r.qcond.Broadcast()
}

// run writes what is queued until Close.
func (r *Recorder) run() {
	defer close(r.done)
	for {
		r.qmu.Lock()
		for len(r.queue) == 0 && !r.closing {
			r.qcond.Wait()
		}
		batch := r.queue
		r.queue = nil
		closing := r.closing
		r.qmu.Unlock()
		for _, it := range batch {
			if it.secrets != nil {
				r.addSecrets(it.secrets)
			} else {
				r.event(it.e)
			}
			r.qmu.Lock()
			r.qbytes -= len(it.e.Data)
			r.qcond.Broadcast()
			r.qmu.Unlock()
		}
		if closing && len(batch) == 0 {
			return
		}
	}
}

// tee writes the recording to the file and to the live stream. The file's error is
// the recording's; the live stream's only drops the live stream.
type tee struct {
	file io.Writer
	live io.Writer
	warn func(string)
}

func (t *tee) Write(p []byte) (int, error) {
	n, err := t.file.Write(p)
	if t.live != nil {
		if _, lerr := t.live.Write(p); lerr != nil {
			t.live = nil
			t.warn(fmt.Sprintf("the live stream stopped (%v); recording and forwarding go on", lerr))
		}
	}
	return n, err
}

// Event records one event (safe for concurrent use). The event's Data must not
// change afterwards.
func (r *Recorder) Event(e wire.Event) { r.enqueue(item{e: e}) }

// event writes one event (the writer's goroutine).
func (r *Recorder) event(e wire.Event) {
	if r.stopped {
		return
	}
	if r.w == nil {
		if client, ok := hostClient(e); ok {
			r.header.Client = client
			r.open()
		} else {
			r.pending = append(r.pending, e)
			r.bytes += len(e.Data)
			if len(r.pending) >= pendingMax || r.bytes >= pendingBytes {
				r.open()
			}
			return
		}
		if r.w == nil {
			return
		}
	}
	r.w.Listen(e)
	r.check()
}

// Secret adds the credentials of a header set (Authorization, Cookie, X-Api-Key…:
// redact.CredentialHeader) as values never to appear anywhere in the recording. The
// header values themselves are always redacted; this catches a server echoing a
// token in a body or a URL.
func (r *Recorder) Secret(h http.Header) {
	var vals []string
	for k, vs := range h {
		if !redact.CredentialHeader(k) {
			continue
		}
		for _, v := range vs {
			vals = append(vals, v)
			// "Bearer TOKEN", "DPoP TOKEN", "Basic CREDS": the token on its own.
			if _, tok, ok := strings.Cut(v, " "); ok {
				vals = append(vals, strings.TrimSpace(tok))
			}
			// Cookies: each value on its own.
			for _, part := range strings.Split(v, ";") {
				if _, val, ok := strings.Cut(part, "="); ok {
					vals = append(vals, strings.TrimSpace(val))
				}
			}
		}
	}
	if len(vals) > 0 {
		r.enqueue(item{secrets: vals})
	}
}

// QuerySecrets adds the values of u's query parameters whose names say they are
// secrets (sessionId, api_key, token: redact.SecretName) as values never to appear
// in the recording.
func (r *Recorder) QuerySecrets(u *url.URL) {
	var vals []string
	for k, vs := range u.Query() {
		if redact.SecretName(k) {
			vals = append(vals, vs...)
		}
	}
	if len(vals) > 0 {
		r.enqueue(item{secrets: vals})
	}
}

// addSecrets adds values to the redactor (the writer's goroutine: the record.Writer
// uses the redactor in its writes, which are all on this goroutine).
func (r *Recorder) addSecrets(vals []string) {
	for _, v := range vals {
		if v != "" && !r.secrets[v] {
			r.secrets[v] = true
			r.red.AddSecret(v)
		}
	}
}

// open writes the header and the events that waited for it.
func (r *Recorder) open() {
	w, err := record.NewWriter(r.out, r.header, r.red)
	if err != nil {
		r.stop(err)
		return
	}
	r.w = w
	for _, e := range r.pending {
		r.w.Listen(e)
	}
	r.pending, r.bytes = nil, 0
	r.check()
}

func (r *Recorder) check() {
	if err := r.w.Err(); err != nil {
		r.stop(err)
	}
}

func (r *Recorder) stop(err error) {
	r.stopped = true
	r.pending = nil
	if !r.warned {
		r.warned = true
		r.warn(fmt.Sprintf("recording stopped: %v; forwarding goes on", err))
	}
}

// Close writes what is queued and what still waits for the header (a session whose
// host never sent a request), the "closed" event with text, the end marker, and
// closes the file. A second Close does nothing.
func (r *Recorder) Close(text string) error {
	r.closeOnce.Do(func() {
		r.enqueue(item{e: wire.Event{Kind: wire.KindClosed, Text: text}})
		r.qmu.Lock()
		r.closing = true
		r.qcond.Broadcast()
		r.qmu.Unlock()
		<-r.done
		if !r.stopped {
			if r.w == nil {
				r.open()
			}
			if r.w != nil {
				if err := r.w.Close(); err != nil {
					r.stop(err)
					r.err = err
				}
			}
		}
		r.stopped = true
		if cerr := r.closer.Close(); r.err == nil && cerr != nil {
			r.err = cerr
		}
	})
	return r.err
}

// hostClient finds the host's name in a message it sent: the clientInfo of its
// initialize, or on 2026-07-28 (no initialize) the clientInfo every request carries
// in its _meta. ok is false for any other event: the header waits for one that
// says.
func hostClient(e wire.Event) (*record.Peer, bool) {
	if e.Kind != wire.KindMessage || e.Dir != wire.Send {
		return nil, false
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			ClientInfo *record.Peer `json:"clientInfo"`
			Meta       struct {
				ClientInfo *record.Peer `json:"io.modelcontextprotocol/clientInfo"`
			} `json:"_meta"`
		} `json:"params"`
	}
	data := bytes.TrimSpace(e.Data)
	if len(data) == 0 || data[0] != '{' || json.Unmarshal(data, &m) != nil || m.Method == "" {
		return nil, false
	}
	if m.Params.ClientInfo != nil {
		return m.Params.ClientInfo, true
	}
	if m.Params.Meta.ClientInfo != nil {
		return m.Params.Meta.ClientInfo, true
	}
	// A request that names no client (a notification first, an old host): the
	// header goes without one rather than wait for a request that may never come.
	return nil, true
}
