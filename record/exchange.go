package record

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Exchange is one request the client sent and what the server sent for it.
type Exchange struct {
	// Server is the server the request went to in a recording of several ("" in a
	// recording of one).
	Server  string
	Method  string
	ID      string          // the recorded id, as compact JSON
	Request json.RawMessage // the whole request message
	Params  json.RawMessage // its params (nil when absent)
	// Response is the whole response message; nil when none was recorded (the request
	// was cancelled, or the recorder stopped first).
	Response json.RawMessage
	// Notifications are the server notifications that arrived while the request was
	// pending, in arrival order.
	Notifications []json.RawMessage

	RequestEvent       int   // index in Recording.Events
	ResponseEvent      int   // index in Recording.Events, -1 when none
	NotificationEvents []int // indexes in Recording.Events, one per notification
	// Line is the request's line in the file it was read from (0 when not read
	// from a file).
	Line int

	done bool // answered or dropped: nothing more is added (Pairer)
}

// Handshake reports whether the exchange belongs to connecting rather than to what
// the session did (replay negotiates these afresh).
func (x *Exchange) Handshake() bool { return HandshakeMethod(x.Method) }

// HandshakeMethod reports whether a method is part of connecting: initialize,
// notifications/initialized, server/discover, subscriptions/listen.
func HandshakeMethod(method string) bool {
	switch method {
	case "initialize", "notifications/initialized", "server/discover", "subscriptions/listen":
		return true
	}
	return false
}

// Message is the envelope of one JSON-RPC message.
type Message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// IsRequest, IsNotification and IsResponse classify a message.
func (m *Message) IsRequest() bool      { return m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" }
func (m *Message) IsNotification() bool { return m.Method != "" && !m.IsRequest() }
func (m *Message) IsResponse() bool     { return m.Method == "" && len(m.ID) > 0 }

// Split returns the messages of a frame: one, or the items of a batch.
func Split(msg json.RawMessage) []json.RawMessage {
	t := bytes.TrimLeft(msg, " \t\r\n")
	if len(t) > 0 && t[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(t, &items) == nil {
			return items
		}
	}
	return []json.RawMessage{msg}
}

// CanonicalID is an id as compact JSON, so 7 and " 7 " match while "7" stays a string.
func CanonicalID(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

// Exchanges pairs the recorded client requests with their responses and the server
// notifications that arrived while each was pending. A notification goes to the
// request whose progress token or subscription id it carries, else to the request sent
// last of those still pending (a subscriptions/listen only takes what is tagged for
// it); one that arrives while nothing is pending belongs to no exchange.
// Server-to-client requests and the client's answers to them are not exchanges.
func (rec *Recording) Exchanges() []*Exchange {
	var p Pairer
	for i := range rec.Events {
		p.Add(i, &rec.Events[i])
	}
	p.End()
	var out []*Exchange
	for x := p.Next(); x != nil; x = p.Next() {
		out = append(out, x)
	}
	return out
}

// Pairer is Exchanges one event at a time, for a reader that streams a recording
// (record.Reader) and keeps only what is pending: Add the events in order, take the
// exchanges that are complete with Next, in the order their requests were sent, and
// End when there are no more events. An exchange is complete once it can change no
// more: answered, or dropped (cancelled, or its id reused). A subscriptions/listen
// stays pending for the whole session, so it is handed out at once (its response
// and the notifications tagged for it may still be added to it): otherwise it would
// hold every later exchange, and the whole file, until the end.
type Pairer struct {
	// In a recording of several servers each server has its own ids (every client
	// starts at 1), so requests, answers and notifications pair within one server.
	tracks map[string]*track
	queue  []*Exchange // sent, not handed out yet, in send order
	// window holds the last repairWindow events before they are paired: a repair
	// event replaces a received message up to that many events before it.
	window []windowed
	ended  bool
}

type track struct {
	pending map[string]*Exchange
	order   []*Exchange // pending, in send order
}

type windowed struct {
	i          int
	ev         *Event
	superseded bool
}

// repairWindow is how far back a repair event looks for the received message it
// replaced (--repair recorded both the raw frame and the fixed message).
const repairWindow = 8

// Add takes in the event at index i of the recording (Exchange's *Event fields are
// such indexes). ev must stay unchanged until End.
func (p *Pairer) Add(i int, ev *Event) {
	if ev.Kind == KindRepair && len(ev.Msg) > 0 {
		for j := len(p.window) - 1; j >= 0; j-- {
			if w := &p.window[j]; w.ev.Kind == KindMessage && w.ev.Dir == Recv {
				w.superseded = true
				break
			}
		}
	}
	p.window = append(p.window, windowed{i: i, ev: ev})
	if len(p.window) > repairWindow {
		w := p.window[0]
		p.window = append(p.window[:0], p.window[1:]...)
		p.pair(w)
	}
}

// End says there are no more events: what is still pending is complete.
func (p *Pairer) End() {
	for _, w := range p.window {
		p.pair(w)
	}
	p.window, p.ended = nil, true
}

// Next returns the next complete exchange in send order, or nil when the next one
// is still pending (or there is none).
func (p *Pairer) Next() *Exchange {
	if len(p.queue) == 0 {
		return nil
	}
	x := p.queue[0]
	if !p.ended && !x.done && x.Method != "subscriptions/listen" {
		return nil
	}
	p.queue[0] = nil
	p.queue = p.queue[1:]
	return x
}

func (p *Pairer) pair(w windowed) {
	ev, i := w.ev, w.i
	var dir string
	switch {
	case ev.Kind == KindMessage && len(ev.Msg) > 0 && !w.superseded:
		dir = ev.Dir
	case ev.Kind == KindRepair && len(ev.Msg) > 0:
		dir = Recv
	default:
		return
	}
	if p.tracks == nil {
		p.tracks = map[string]*track{}
	}
	t := p.tracks[ev.Server]
	if t == nil {
		t = &track{pending: map[string]*Exchange{}}
		p.tracks[ev.Server] = t
	}
	drop := func(x *Exchange) {
		x.done = true
		delete(t.pending, x.ID)
		for i, q := range t.order {
			if q == x {
				t.order = append(t.order[:i], t.order[i+1:]...)
				break
			}
		}
	}
	for _, raw := range Split(ev.Msg) {
		var m Message
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		switch {
		case dir == Send && m.IsRequest():
			x := &Exchange{Server: ev.Server, Method: m.Method, ID: CanonicalID(m.ID), Request: raw, Params: m.Params, RequestEvent: i, ResponseEvent: -1, Line: ev.Line}
			if old, ok := t.pending[x.ID]; ok {
				drop(old) // an id reused while pending: the old one will not be answered
			}
			t.pending[x.ID] = x
			t.order = append(t.order, x)
			p.queue = append(p.queue, x)
		case dir == Recv && m.IsResponse():
			if x, ok := t.pending[CanonicalID(m.ID)]; ok {
				x.Response, x.ResponseEvent = raw, i
				drop(x)
			}
		case dir == Recv && m.IsNotification():
			if x := notificationOwner(m.Params, t.pending, t.order); x != nil {
				x.Notifications = append(x.Notifications, raw)
				x.NotificationEvents = append(x.NotificationEvents, i)
			}
		case dir == Send && m.IsNotification() && m.Method == "notifications/cancelled":
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			if json.Unmarshal(m.Params, &p) == nil && len(p.RequestID) > 0 {
				if x, ok := t.pending[CanonicalID(p.RequestID)]; ok && x.Method != "subscriptions/listen" {
					drop(x) // a late answer is not this exchange's
				}
			}
		}
	}
}

func notificationOwner(params json.RawMessage, pending map[string]*Exchange, order []*Exchange) *Exchange {
	if len(order) == 0 {
		return nil
	}
	var p struct {
		ProgressToken json.RawMessage            `json:"progressToken"`
		Meta          map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	if len(p.ProgressToken) > 0 {
		tok := CanonicalID(p.ProgressToken)
		for _, x := range order {
			if ProgressToken(x.Params) == tok {
				return x
			}
		}
	}
	for k, v := range p.Meta {
		if k == "subscriptionId" || strings.HasSuffix(k, "/subscriptionId") {
			if x, ok := pending[CanonicalID(v)]; ok {
				return x
			}
		}
	}
	for i := len(order) - 1; i >= 0; i-- {
		if order[i].Method != "subscriptions/listen" {
			return order[i]
		}
	}
	return nil
}

// ProgressToken returns a request's params._meta.progressToken as compact JSON, or "".
func ProgressToken(params json.RawMessage) string {
	if len(params) == 0 || !bytes.Contains(params, []byte("progressToken")) {
		return ""
	}
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.Meta.ProgressToken) == 0 {
		return ""
	}
	return CanonicalID(p.Meta.ProgressToken)
}

// Era is what a recording's handshake says about the server: "modern" with the
// protocol version when server/discover was answered, "legacy" with the version
// initialize agreed on, or "" when the recording has no handshake.
func Era(xs []*Exchange) (era, version string) {
	for _, x := range xs {
		if x.Response == nil {
			continue
		}
		var r struct {
			Result *struct {
				ProtocolVersion   string   `json:"protocolVersion"`
				SupportedVersions []string `json:"supportedVersions"`
			} `json:"result"`
		}
		if json.Unmarshal(x.Response, &r) != nil || r.Result == nil {
			continue
		}
		switch x.Method {
		case "server/discover":
			v := ""
			var req struct {
				Params struct {
					Meta struct {
						Version string `json:"io.modelcontextprotocol/protocolVersion"`
					} `json:"_meta"`
				} `json:"params"`
			}
			if json.Unmarshal(x.Request, &req) == nil {
				v = req.Params.Meta.Version
			}
			return "modern", v
		case "initialize":
			return "legacy", r.Result.ProtocolVersion
		}
	}
	return "", ""
}
