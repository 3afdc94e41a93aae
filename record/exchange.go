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
	// In a recording of several servers each server has its own ids (every client
	// starts at 1), so requests, answers and notifications pair within one server.
	type track struct {
		pending map[string]*Exchange
		order   []*Exchange // pending, in send order
	}
	tracks := map[string]*track{}
	var out []*Exchange
	superseded := rec.repairedMessages()
	for i := range rec.Events {
		ev := &rec.Events[i]
		var dir string
		switch {
		case ev.Kind == KindMessage && len(ev.Msg) > 0 && !superseded[i]:
			dir = ev.Dir
		case ev.Kind == KindRepair && len(ev.Msg) > 0:
			dir = Recv
		default:
			continue
		}
		t := tracks[ev.Server]
		if t == nil {
			t = &track{pending: map[string]*Exchange{}}
			tracks[ev.Server] = t
		}
		drop := func(x *Exchange) {
			delete(t.pending, x.ID)
			for i, p := range t.order {
				if p == x {
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
				x := &Exchange{Server: ev.Server, Method: m.Method, ID: CanonicalID(m.ID), Request: raw, Params: m.Params, RequestEvent: i, ResponseEvent: -1}
				if old, ok := t.pending[x.ID]; ok {
					drop(old) // an id reused while pending: the old one will not be answered
				}
				t.pending[x.ID] = x
				t.order = append(t.order, x)
				out = append(out, x)
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
	return out
}

// repairedMessages marks received message events that a following repair event
// replaced (--repair recorded both the raw frame and the fixed message).
func (rec *Recording) repairedMessages() map[int]bool {
	var out map[int]bool
	for i := range rec.Events {
		ev := &rec.Events[i]
		if ev.Kind != KindRepair || len(ev.Msg) == 0 {
			continue
		}
		for j := i - 1; j >= 0 && j >= i-8; j-- {
			if rec.Events[j].Kind == KindMessage && rec.Events[j].Dir == Recv {
				if out == nil {
					out = map[int]bool{}
				}
				out[j] = true
				break
			}
		}
	}
	return out
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
