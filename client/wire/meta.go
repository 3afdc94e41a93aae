package wire

import (
	"encoding/json"

	"github.com/mcpscope/mcpscope/internal/jsonscan"
)

// RequestMeta is what every request mcpscope sends carries in params._meta, beside
// what the request has there already (which wins): the W3C trace context of
// --traceparent and --tracestate (SEP-414). It is added here, on the wire, because
// this is where every request passes, whoever wrote it (the SDK's handshake and
// lists, a raw call, a retry), on stdio and on HTTP alike: what Traffic and a
// recording show is what the server got.
type RequestMeta map[string]string

// stamp returns params with m's members added to its _meta. params that are not an
// object (a malformed hand-written request) are left as they are: the server is to
// see what the user wrote.
func (m RequestMeta) stamp(params json.RawMessage) json.RawMessage {
	if len(m) == 0 {
		return params
	}
	obj := map[string]json.RawMessage{}
	if len(params) > 0 && string(params) != "null" {
		if json.Unmarshal(params, &obj) != nil {
			return params
		}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := obj["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return params // a _meta that is not an object: the user's, as written
	}
	for k, v := range m {
		if _, set := meta[k]; !set {
			meta[k], _ = json.Marshal(v)
		}
	}
	obj["_meta"], _ = json.Marshal(meta)
	out, err := json.Marshal(obj)
	if err != nil {
		return params
	}
	return out
}

// stampBody is stamp for a whole JSON-RPC message as an HTTP body: only a request
// (a method and an id) gets it.
func (m RequestMeta) stampBody(body []byte) []byte {
	if len(m) == 0 || len(body) == 0 || body[0] != '{' || jsonscan.Valid(body) != nil {
		return body
	}
	var env envelope
	jsonscan.MembersTrusted(body, func(key, value []byte) bool {
		env.member(key, value)
		return true
	})
	if !env.Method || env.ID == nil {
		return body
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(body, &msg) != nil {
		return body
	}
	msg["params"] = m.stamp(msg["params"])
	out, err := json.Marshal(msg)
	if err != nil {
		return body
	}
	return out
}
