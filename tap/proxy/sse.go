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
	"github.com/mcpscope/mcpscope/internal/redact"
)

// sseStream passes a text/event-stream response to the host event by event as its
// bytes arrive, and records each event when it is complete. An event is held back
// until it is complete while it is small (holdMax): that is what lets a legacy
// endpoint event be rewritten to the proxy, and costs the host nothing, since an SSE
// client dispatches complete events only. A bigger event's bytes go on as they come.
type sseStream struct {
	p           *Proxy
	x           *exch
	w           http.ResponseWriter
	fl          http.Flusher
	proxyOrigin string

	ev       *recBuf // the current event's bytes, for the recording (up to max)
	size     int     // the current event's full size
	passing  bool    // the current event's bytes are forwarded as they come
	lineLen  int     // bytes of the current line so far, not counting \r
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
				p.hostGone(x, fmt.Sprintf("the host closed the SSE stream after %s", plural(s.events, "event")))
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
		if s.ev.over || len(bytes.TrimSpace(held)) > 0 {
			p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: x.info(), Size: s.size,
				Text: fmt.Sprintf("the SSE stream ended in the middle of an event (%d bytes of it)", s.size)})
		}
		if errors.Is(rerr, io.EOF) {
			p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: x.info(), Text: "end of the SSE stream (" + plural(s.events, "event") + ")"})
			return
		}
		if r.Context().Err() != nil {
			p.hostGone(x, fmt.Sprintf("the host closed the SSE stream after %s", plural(s.events, "event")))
			return
		}
		fi := x.info()
		fi.Error = rerr.Error()
		p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: fi, Text: fmt.Sprintf("the SSE stream broke after %s: %v", plural(s.events, "event"), rerr)})
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
	start := 0
	for i, c := range b {
		switch c {
		case '\n':
			if s.lineLen == 0 {
				// A blank line: the event ends here.
				s.add(b[start : i+1])
				start = i + 1
				s.end()
			}
			s.lineLen = 0
		case '\r':
		default:
			s.lineLen++
		}
	}
	s.add(b[start:])
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
	ev, ok := parseEvent(block)
	if !s.passing {
		out := block
		if ok && ev.Event == "endpoint" {
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
func (s *sseStream) endpoint(ev sseEvent, block []byte) []byte {
	data := strings.TrimSpace(string(ev.data))
	nu, ok := s.p.toProxy(data, s.proxyOrigin)
	if !ok {
		if strings.Contains(data, "://") {
			s.p.warnOnce("endpoint", fmt.Sprintf("the server's endpoint event names another origin (%s); the host's messages go there directly, past the tap", redact.URL(data, nil)))
		}
		return block
	}
	var b bytes.Buffer
	if ev.ID != "" {
		b.WriteString("id: " + ev.ID + "\n")
	}
	if ev.Retry != "" {
		b.WriteString("retry: " + ev.Retry + "\n")
	}
	b.WriteString("event: endpoint\ndata: " + nu + "\n\n")
	return b.Bytes()
}

// record records one complete event as HTTPTap does for a client of mcpscope's own.
func (s *sseStream) record(ev sseEvent) {
	info := ev.SSEInfo
	hi := s.x.info()
	hi.SSE = &info
	switch {
	case ev.Event == "endpoint":
		ep := strings.TrimSpace(string(ev.data))
		if u, err := url.Parse(ep); err == nil && s.p.rec != nil {
			s.p.rec.QuerySecrets(u) // the legacy session id: whoever has it posts into the session
		}
		text := "endpoint event: messages go to " + redact.URL(ep, nil)
		if nu, ok := s.p.toProxy(ep, s.proxyOrigin); ok {
			text += " (rewritten for the host to " + redact.URL(nu, nil) + ")"
		}
		s.p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: hi, Data: ev.data, Text: text})
	case len(ev.data) == 0:
		text := "server-sent event without data"
		if ev.ID != "" {
			text = "priming event (id " + ev.ID
			if ev.Retry != "" {
				text += ", retry " + ev.Retry + " ms"
			}
			text += ")"
		}
		s.p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: hi, Text: text})
	case ev.Event != "" && ev.Event != "message":
		s.p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: hi, Data: ev.data, Text: "server-sent event of type " + strconv.Quote(ev.Event) + " (not a message)"})
	default:
		s.p.body(wire.Recv, s.x, ev.data, wire.FramingSSE, &info, "")
	}
}

type sseEvent struct {
	wire.SSEInfo
	data []byte
}

// parseEvent reads the fields of one event block; ok is false for a block of
// comments only (a keep-alive).
func parseEvent(block []byte) (sseEvent, bool) {
	var ev sseEvent
	any, hasData := false, false
	for _, line := range bytes.Split(block, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		if len(line) == 0 || line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		any = true
		switch string(field) {
		case "data":
			// One data line (what servers send) is used where it is, not copied: a
			// 100 MiB result is not copied again (each event has its own buffer).
			if !hasData {
				ev.data = value
			} else {
				ev.data = append(append(append([]byte(nil), ev.data...), '\n'), value...)
			}
			hasData = true
		case "id":
			ev.ID = string(value)
		case "event":
			ev.Event = string(value)
		case "retry":
			ev.Retry = string(value)
		}
	}
	return ev, any
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
