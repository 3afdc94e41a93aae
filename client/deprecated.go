package client

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/mcpscope/mcpscope/deprecated"
)

// serverRequests is what the session saw the server ask of the client: the methods of
// its requests and the includeContext values of its sampling requests. Few and small
// (a method is noted once), so it is kept for the whole session.
type serverRequests struct {
	methods []string
	include []string
}

// noteServerRequest notes a request the server sent (on the wire in the 2025 era, or
// inside a 2026-07-28 input_required result): package deprecated names the deprecated
// ones (roots, sampling) for --inspect, the Servers view and lint. msg is the request
// (or its params); it is decoded only for sampling, to read includeContext.
func (s *Session) noteServerRequest(method string, msg []byte) {
	var include string
	if method == "sampling/createMessage" {
		var m struct {
			IncludeContext string `json:"includeContext"`
			Params         struct {
				IncludeContext string `json:"includeContext"`
			} `json:"params"`
		}
		_ = json.Unmarshal(msg, &m)
		include = m.Params.IncludeContext
		if include == "" {
			include = m.IncludeContext
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.asked.methods, method) && len(s.asked.methods) < 32 {
		s.asked.methods = append(s.asked.methods, method)
	}
	if include != "" && !slices.Contains(s.asked.include, include) && len(s.asked.include) < 8 {
		s.asked.include = append(s.asked.include, include)
	}
}

// maxInputRequired bounds the results read for inputRequests: an input_required
// result is small, and a big result (a 100 MiB read) is not scanned for one.
const maxInputRequired = 64 << 10

// noteInputRequests notes the requests of a 2026-07-28 input_required result: the
// SDK answers roots/list inside them itself, so only the wire shows that the server
// asked.
func (s *Session) noteInputRequests(data []byte) {
	if len(data) > maxInputRequired || !bytes.Contains(data, []byte(`"input_required"`)) {
		return
	}
	var m struct {
		Result struct {
			ResultType    string `json:"resultType"`
			InputRequests map[string]struct {
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			} `json:"inputRequests"`
		} `json:"result"`
	}
	if json.Unmarshal(data, &m) != nil || m.Result.ResultType != "input_required" {
		return
	}
	for _, r := range m.Result.InputRequests {
		s.noteServerRequest(r.Method, r.Params)
	}
}

// Deprecated lists the deprecated features the server has used so far in this
// session: the capabilities it declared, the transport, the requests it sent.
func (s *Session) Deprecated() []deprecated.Notice {
	s.mu.Lock()
	u := deprecated.Use{Requests: slices.Clone(s.asked.methods), IncludeContext: slices.Clone(s.asked.include)}
	s.mu.Unlock()
	info := s.Info()
	u.Capabilities, u.Transport = info.Capabilities, info.Transport
	return deprecated.Find(u)
}
