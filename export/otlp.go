package export

import (
	"encoding/json"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/record"
)

// OTLP JSON (opentelemetry-proto's JSON mapping, as an OTLP/HTTP collector takes it
// at /v1/traces): ids in lower-case hex, times as decimal strings of nanoseconds.
type (
	// The document: {"resourceSpans":[{"resource":…,"scopeSpans":[{"scope":…,
	// "spans":[…]}]}]}, written by otlp around the spans it streams.
	resource struct {
		Attributes []attr `json:"attributes"`
	}
	scope struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	}
	span struct {
		TraceID           string      `json:"traceId"`
		SpanID            string      `json:"spanId"`
		TraceState        string      `json:"traceState,omitempty"`
		ParentSpanID      string      `json:"parentSpanId,omitempty"`
		Name              string      `json:"name"`
		Kind              int         `json:"kind"`
		StartTimeUnixNano string      `json:"startTimeUnixNano"`
		EndTimeUnixNano   string      `json:"endTimeUnixNano"`
		Attributes        []attr      `json:"attributes"`
		Events            []spanEvent `json:"events,omitempty"`
		Status            status      `json:"status"`
	}
	spanEvent struct {
		TimeUnixNano string `json:"timeUnixNano"`
		Name         string `json:"name"`
		Attributes   []attr `json:"attributes,omitempty"`
	}
	status struct {
		Code    int    `json:"code,omitempty"` // 0 unset, 1 ok, 2 error
		Message string `json:"message,omitempty"`
	}
	attr struct {
		Key   string `json:"key"`
		Value value  `json:"value"`
	}
	value struct {
		StringValue *string `json:"stringValue,omitempty"`
		BoolValue   *bool   `json:"boolValue,omitempty"`
		IntValue    *string `json:"intValue,omitempty"`
	}
)

// spanKindClient: the recording is the client's side of every request (a tap's too:
// the host is the client).
const spanKindClient = 3

func str(k, v string) attr { return attr{Key: k, Value: value{StringValue: &v}} }
func integer(k string, v int64) attr {
	s := strconv.FormatInt(v, 10)
	return attr{Key: k, Value: value{IntValue: &s}}
}
func nanos(t time.Time) string { return strconv.FormatInt(t.UnixNano(), 10) }

// traceparentRE is W3C Trace Context's traceparent (version 00, and later versions
// read by the same first four fields).
// Compiled on first use, not at start: every command links this package (issue 23).
var traceparentRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$`)
})

// traceParent reads params._meta.traceparent (and tracestate), the propagation the
// OpenTelemetry MCP conventions give: the trace the host's request belongs to and
// the span it was sent from. An invalid one is ignored, as W3C says.
func traceParent(params json.RawMessage) (traceID, parentID, state string) {
	var p struct {
		Meta struct {
			TraceParent string `json:"traceparent"`
			TraceState  string `json:"tracestate"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return "", "", ""
	}
	m := traceparentRE().FindStringSubmatch(p.Meta.TraceParent)
	if m == nil || m[1] == "ff" || (m[1] == "00" && m[5] != "") || strings.Trim(m[2], "0") == "" || strings.Trim(m[3], "0") == "" {
		return "", "", ""
	}
	return m[2], m[3], p.Meta.TraceState
}

// otlp writes one span per request, named and attributed as the OpenTelemetry
// semantic conventions for MCP say (mcp.method.name, gen_ai.tool.name,
// jsonrpc.request.id, mcp.protocol.version, mcp.session.id, network.transport,
// error.type, …). A request that carries _meta.traceparent is a span of that trace,
// child of the span it names; the others share one trace derived from the recording.
// Notifications that came while a request was pending are its span's events. Each
// span is written as its exchange completes.
func (rec *Recording) otlp(w io.Writer, o Options) error {
	protocol, session := rec.protocol, rec.session
	target, _ := json.Marshal(rec.Header.Target)
	recTrace := hash(16, "mcpscope recording", rec.Header.Started.Format(time.RFC3339Nano), string(target))
	res := []attr{str("service.name", "mcp-client")}
	if c := rec.Header.Client; c != nil && c.Name != "" {
		res = []attr{str("service.name", c.Name)}
		if c.Version != "" {
			res = append(res, str("service.version", c.Version))
		}
	}
	// The document as marshal would write otlpDoc, with the spans written one by one.
	head, err := marshal(resource{Attributes: res})
	if err != nil {
		return err
	}
	sc, err := marshal(scope{Name: o.Name + " export", Version: o.Version})
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, `{"resourceSpans":[{"resource":`+string(head)+`,"scopeSpans":[{"scope":`+string(sc)+`,"spans":[`); err != nil {
		return err
	}
	sep := ""
	err = rec.each(nil, func(e *exchange) error {
		s := span{Kind: spanKindClient, StartTimeUnixNano: nanos(e.start), EndTimeUnixNano: nanos(e.end)}
		s.TraceID, s.ParentSpanID, s.TraceState = traceParent(e.x.Params)
		if s.TraceID == "" {
			s.TraceID = recTrace
		}
		s.SpanID = hash(8, s.TraceID, e.x.Server, strconv.Itoa(e.x.RequestEvent), e.x.ID)
		s.Name = e.x.Method
		if e.name != "" {
			s.Name += " " + e.name
		}
		s.Attributes = append(s.Attributes, str("mcp.method.name", e.x.Method), str("jsonrpc.request.id", idText(e.x.ID)))
		if protocol != "" {
			s.Attributes = append(s.Attributes, str("mcp.protocol.version", protocol))
		}
		if session != "" {
			s.Attributes = append(s.Attributes, str("mcp.session.id", session))
		}
		switch e.x.Method {
		case "tools/call":
			s.Attributes = append(s.Attributes, str("gen_ai.tool.name", e.name), str("gen_ai.operation.name", "execute_tool"))
		case "prompts/get":
			s.Attributes = append(s.Attributes, str("gen_ai.prompt.name", e.name))
		}
		if e.uri != "" {
			s.Attributes = append(s.Attributes, str("mcp.resource.uri", e.uri))
		}
		s.Attributes = append(s.Attributes, transportAttrs(targetOf(rec.Header, e.x.Server))...)
		if e.x.Server != "" {
			s.Attributes = append(s.Attributes, str("mcpscope.server", e.x.Server))
		}
		switch {
		case e.outcome() == "open":
			// The stream was still open when the recording ended: no error.
		case !e.answered:
			s.Status = status{Code: 2, Message: "no response was recorded"}
		case e.errCode != nil:
			code := strconv.FormatInt(*e.errCode, 10)
			s.Attributes = append(s.Attributes, str("error.type", code), str("rpc.response.status_code", code))
			s.Status = status{Code: 2, Message: e.errMsg}
		case e.toolError:
			s.Attributes = append(s.Attributes, str("error.type", "tool_error"))
			s.Status = status{Code: 2, Message: "the tool returned isError: true"}
		}
		for i, n := range e.x.Notifications {
			var m struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(n, &m)
			s.Events = append(s.Events, spanEvent{TimeUnixNano: nanos(e.notes[i]), Name: m.Method,
				Attributes: []attr{str("mcp.method.name", m.Method)}})
		}
		b, err := marshal(s)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
		sep = ","
		_, err = w.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, "]}]}]}\n")
	return err
}

// idText is a JSON-RPC id as the conventions record it: a string's text, a number's
// digits.
func idText(id string) string {
	var s string
	if json.Unmarshal([]byte(id), &s) == nil {
		return s
	}
	return id
}

// targetOf is the target of a server of the recording ("" is the one of a
// recording of one).
func targetOf(h record.Header, server string) record.Target {
	for _, s := range h.Servers {
		if s.Name == server {
			return s.Target
		}
	}
	return h.Target
}

// transportAttrs are network.transport ("pipe" for stdio, "tcp" for HTTP) and, over
// HTTP, network.protocol.name, server.address and server.port.
func transportAttrs(t record.Target) []attr {
	if t.Transport != "http" {
		return []attr{str("network.transport", "pipe")}
	}
	out := []attr{str("network.transport", "tcp"), str("network.protocol.name", "http")}
	if u, err := url.Parse(t.URL); err == nil && u.Host != "" {
		out = append(out, str("server.address", u.Hostname()))
		port := u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		if n, err := strconv.Atoi(port); err == nil {
			out = append(out, integer("server.port", int64(n)))
		}
	}
	return out
}

// sessionID is the Mcp-Session-Id of a response's headers, if any.
func sessionID(h map[string][]string) string {
	for k, v := range h {
		if strings.EqualFold(k, "Mcp-Session-Id") && len(v) > 0 && v[0] != record.Redacted {
			return v[0]
		}
	}
	return ""
}
