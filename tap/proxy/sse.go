package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/redact"
	"github.com/mcpscope/mcpscope/internal/sse"
)

// sseStream passes a text/event-stream response to the host event by event as its
// bytes arrive, and records each event when it is complete. An event is held back
// until it is complete while it is small (holdMax): that is what lets a legacy
// endpoint event be rewritten to the proxy, and costs the host nothing, since an SSE
// client dispatches complete events only. A bigger event's bytes go on as they come.
// Where an event ends, and what its fields are, is internal/sse's to say: the
// client's transport reads streams with the same rules.
type sseStream struct {
	p           *Proxy
	x           *exch
	w           http.ResponseWriter
	fl          http.Flusher
	proxyOrigin string

	split    sse.Splitter // no Max: an event of any size is passed on
	ev       *recBuf      // the current event's bytes, for the recording (up to max)
	size     int          // the current event's full size
	passing  bool         // the current event's bytes are forwarded as they come
	events   int
	wrote    bool // bytes were written since the last flush
	writeErr error
}

func (p *Proxy) streamSSE(w http.ResponseWriter, r *http.Request, resp *http.Response, x *exch, proxyOrigin string) {
	s := &sseStream{p: p, x: x, w: w, proxyOrigin: proxyOrigin, ev: s0(p)}
	s.fl, _ = w.(http.Flusher)
	if s.fl != nil {
		s.fl.Flush() // the host sees the stream open at once
	}
	buf := make([]byte, 32<<10)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			s.feed(buf[:n])
			if s.wrote && s.writeErr == nil && s.fl != nil {
				s.fl.Flush()
			}
			s.wrote = false
			if s.writeErr != nil {
				p.hostGone(x, fmt.Sprintf("the host closed the SSE stream after %s", plural.Count(s.events, "event")))
				return
			}
		}
		if rerr == nil {
			continue
		}
		// What is held of an unfinished event goes on as it came: the host sees the
		// same cut stream the server sent (and may resume it with Last-Event-ID).
		held := s.ev.bytes()
		if !s.passing && len(held) > 0 {
			s.write(held)
			if s.fl != nil {
				s.fl.Flush()
			}
		}
		switch ev, ok := s.unfinished(held); {
		case ok:
			// The server's last event lacks only its blank line: recorded, as the
			// client's transport passes it on, and said.
			s.events++
			s.record(ev)
			p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: x.info(),
				Text: "the SSE stream ended without the blank line that ends its last event"})
		case s.ev.over || len(bytes.TrimSpace(held)) > 0:
			p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: x.info(), Size: s.size,
				Text: fmt.Sprintf("the SSE stream ended in the middle of an event (%d bytes of it)", s.size)})
		}
		if errors.Is(rerr, io.EOF) {
			p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: x.info(), Text: "end of the SSE stream (" + plural.Count(s.events, "event") + ")"})
			return
		}
		if r.Context().Err() != nil {
			p.hostGone(x, fmt.Sprintf("the host closed the SSE stream after %s", plural.Count(s.events, "event")))
			return
		}
		fi := x.info()
		fi.Error = rerr.Error()
		p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: fi, Text: fmt.Sprintf("the SSE stream broke after %s: %v", plural.Count(s.events, "event"), rerr)})
		// The host must see the stream cut, as it was.
		panic(http.ErrAbortHandler)
	}
}

// s0 is the buffer of an event: what the recording keeps of it, and at least what
// is held back of it (holdMax), which must reach the host whatever the recording
// keeps.
func s0(p *Proxy) *recBuf { return newRecBuf(max(p.max, holdMax), 0) }

func (s *sseStream) write(b []byte) {
	if s.writeErr != nil || len(b) == 0 {
		return
	}
	_, s.writeErr = s.w.Write(b)
	s.wrote = true
}

// feed takes the next bytes of the stream.
func (s *sseStream) feed(b []byte) {
	for len(b) > 0 {
		n, end, _ := s.split.Next(b) // no error: the Splitter has no Max
		s.add(b[:n])
		b = b[n:]
		if end {
			s.end()
		}
	}
}

// unfinished is the event the stream ended in, when it lacks only its final blank
// line (its lines are whole and it has data; not over the recording limit).
func (s *sseStream) unfinished(held []byte) (sse.Event, bool) {
	if s.ev.over || s.split.MidLine() {
		return sse.Event{}, false
	}
	ev, ok := sse.Parse(held)
	return ev, ok && ev.HasData
}

// add appends bytes of the current event.
func (s *sseStream) add(seg []byte) {
	if len(seg) == 0 {
		return
	}
	if !s.passing && s.ev.n+len(seg) > holdMax {
		s.write(s.ev.bytes())
		s.passing = true
	}
	if s.passing {
		s.write(seg)
	}
	s.size += len(seg)
	s.ev.write(seg)
}

// end handles a complete event: forwards it if it was held, records it.
func (s *sseStream) end() {
	block := s.ev.bytes()
	ev, ok := sse.Parse(block)
	if !s.passing {
		out := block
		if ok && ev.Type == "endpoint" {
			out = s.endpoint(ev, block)
		}
		s.write(out)
	}
	switch {
	case s.ev.over || s.size > s.p.max:
		s.events++
		s.p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: s.x.info(), Size: s.size,
			Text: fmt.Sprintf("a server-sent event of %s, over the recording limit of %s: passed through, not recorded", wire.HumanBytes(int64(s.size)), wire.HumanBytes(int64(s.p.max)))})
	case ok:
		s.events++
		s.record(ev)
	}
	// A new buffer: the recording's writer may not have written this event yet.
	s.ev = s0(s.p)
	s.size, s.passing = 0, false
}

// endpoint is a legacy endpoint event as the host gets it: an absolute URL of the
// server's origin is rewritten to the proxy's, so that the host posts its messages
// through the tap (a relative one already resolves against the proxy's URL). A URL
// of another origin is left as it is: the tap does not decide where the host's
// requests (and credentials) go, and says that those messages bypass it.
func (s *sseStream) endpoint(ev sse.Event, block []byte) []byte {
	data := strings.TrimSpace(string(ev.Data))
	nu, ok := s.p.toProxy(data, s.proxyOrigin)
	if !ok {
		if strings.Contains(data, "://") {
			s.p.warnOnce("endpoint", fmt.Sprintf("the server's endpoint event names another origin (%s); the host's messages go there directly, past the tap", redact.URL(data, nil)))
		}
		return block
	}
	ev.Data = []byte(nu)
	return sse.Encode(ev)
}

// record records one complete event as HTTPTap does for a client of mcpscope's own.
func (s *sseStream) record(ev sse.Event) {
	info := wire.SSEInfo{ID: ev.ID, Event: ev.Type, Retry: ev.Retry}
	hi := s.x.info()
	hi.SSE = &info
	switch {
	case ev.Type == "endpoint":
		ep := strings.TrimSpace(string(ev.Data))
		if u, err := url.Parse(ep); err == nil && s.p.rec != nil {
			s.p.rec.QuerySecrets(u) // the legacy session id: whoever has it posts into the session
		}
		text := "endpoint event: messages go to " + redact.URL(ep, nil)
		if nu, ok := s.p.toProxy(ep, s.proxyOrigin); ok {
			text += " (rewritten for the host to " + redact.URL(nu, nil) + ")"
		}
		s.p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: hi, Data: ev.Data, Text: text})
	case len(ev.Data) == 0:
		text := "server-sent event without data"
		if ev.ID != "" {
			text = "priming event (id " + ev.ID
			if ev.Retry != "" {
				text += ", retry " + ev.Retry + " ms"
			}
			text += ")"
		}
		s.p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: hi, Text: text})
	case ev.Type != "" && ev.Type != "message":
		s.p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: hi, Data: ev.Data, Text: "server-sent event of type " + strconv.Quote(ev.Type) + " (not a message)"})
	default:
		s.p.body(wire.Recv, s.x, ev.Data, wire.FramingSSE, &info, "")
	}
}
