package client

import (
	"encoding/json"
	"strings"

	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/jsonscan"
)

// The typed events of a session. The client is where protocol knowledge lives: a
// view, the workbench or a command gets a LogMessage, a Progress, a Task or a
// URLRequired through Options, never a raw frame to sniff. Each frame comes with the
// wire.Head its transport read of it (shape, method, id, error code), so choosing the
// frames to decode costs nothing, and only the small ones that carry an event are
// decoded (a 100 MiB result never is, here).
//
// The frames are taken from the tap rather than from the SDK's notification handlers:
// the SDK runs those asynchronously, so the last progress of a call could arrive
// after the call returned, and log messages out of order. The tap sees frames in
// order, before the SDK does.

// URLRequired is a URLElicitationRequired error (-32042): the server will not serve
// the request until the user has visited these URLs.
type URLRequired struct {
	ID           string // the id of the request it answered, as the frame has it
	Message      string // the error's message
	Elicitations []URLElicitation
}

// URLElicitation is one URL the user is asked to visit.
type URLElicitation struct {
	Mode          string
	URL           string
	Message       string
	ElicitationID string
}

// CodeURLElicitationRequired is the JSON-RPC error code of URLRequired.
const CodeURLElicitationRequired = -32042

// onFrame raises the typed events of one received frame.
func (s *Session) onFrame(e wire.Event) {
	if e.Kind != wire.KindMessage || e.Dir != wire.Recv {
		return
	}
	switch e.Shape {
	case wire.ShapeNotification:
		s.onNotification(e.Method, e.Data)
	case wire.ShapeRequest:
		s.noteServerRequest(e.Method, e.Data)
	case wire.ShapeResult:
		s.noteInputRequests(e.Data)
	case wire.ShapeError:
		if e.ErrorCode == CodeURLElicitationRequired {
			s.onURLRequired(e.ID, e.Data)
		}
	case wire.ShapeBatch:
		// 2025-03-26 only: each message of the batch, read as the transport read the
		// frame (it validated the whole batch).
		jsonscan.ElementsTrusted(e.Data, func(v []byte) bool {
			h := wire.ParseHead(v)
			switch {
			case h.Shape == wire.ShapeNotification:
				s.onNotification(h.Method, v)
			case h.Shape == wire.ShapeRequest:
				s.noteServerRequest(h.Method, v)
			case h.Shape == wire.ShapeError && h.ErrorCode == CodeURLElicitationRequired:
				s.onURLRequired(h.ID, v)
			}
			return true
		})
	}
}

// onNotification decodes the notifications that carry an event someone asked for.
func (s *Session) onNotification(method string, data []byte) {
	switch {
	case method == "notifications/progress":
		var n struct {
			Params struct {
				ProgressToken json.RawMessage `json:"progressToken"`
				Progress      float64         `json:"progress"`
				Total         float64         `json:"total"`
				Message       string          `json:"message"`
			} `json:"params"`
		}
		if json.Unmarshal(data, &n) != nil {
			return
		}
		var token string
		if json.Unmarshal(n.Params.ProgressToken, &token) != nil {
			token = string(n.Params.ProgressToken)
		}
		if fn, ok := s.progress.Load(token); ok {
			fn.(func(Progress))(Progress{Progress: n.Params.Progress, Total: n.Params.Total, Message: n.Params.Message})
		}
	case method == "notifications/message":
		if s.opts.OnLog == nil {
			return
		}
		// A flood of logs comes through here one by one on the transport's reader:
		// the members are picked out of the frame the wire layer validated, without
		// encoding/json's reflection (it was a third of the reader's time).
		if l, ok := parseLog(data); ok {
			s.opts.OnLog(l)
		}
	case strings.HasPrefix(method, "notifications/tasks"):
		// notifications/tasks/status (2025-11-25) and the extension's
		// notifications/tasks (2026-07-28): the task as its params.
		if s.opts.OnTaskStatus == nil {
			return
		}
		var n struct {
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(data, &n) != nil {
			return
		}
		if t, err := ParseTask(n.Params); err == nil {
			s.opts.OnTaskStatus(t)
		}
	}
}

// onURLRequired decodes a -32042 error's URLs.
func (s *Session) onURLRequired(id string, data []byte) {
	if s.opts.OnURLRequired == nil {
		return
	}
	var r struct {
		Error struct {
			Message string `json:"message"`
			Data    struct {
				Elicitations []struct {
					Mode          string `json:"mode"`
					URL           string `json:"url"`
					Message       string `json:"message"`
					ElicitationID string `json:"elicitationId"`
				} `json:"elicitations"`
			} `json:"data"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &r) != nil {
		return
	}
	u := URLRequired{ID: id, Message: r.Error.Message}
	for _, e := range r.Error.Data.Elicitations {
		u.Elicitations = append(u.Elicitations, URLElicitation{Mode: e.Mode, URL: e.URL, Message: e.Message, ElicitationID: e.ElicitationID})
	}
	s.opts.OnURLRequired(u)
}

// parseLog reads a notifications/message frame's params: level, logger, data (data
// kept as its JSON, a copy, since the frame is shared with other listeners). It reads
// what encoding/json would into those three fields: ok is false when params is not an
// object or level or logger is there but neither a string nor null.
func parseLog(frame []byte) (l LogMessage, ok bool) {
	var params []byte
	jsonscan.MembersTrusted(frame, func(key, v []byte) bool {
		if jsonscan.KeyIs(key, "params") {
			params = v
		}
		return true
	})
	if len(params) == 0 || params[0] != '{' {
		return LogMessage{}, false
	}
	ok = true
	str := func(v []byte, into *string) {
		if string(v) == "null" {
			return
		}
		s, isStr := jsonscan.String(v)
		if !isStr {
			ok = false
		}
		*into = s
	}
	jsonscan.MembersTrusted(params, func(key, v []byte) bool {
		switch {
		case jsonscan.KeyIs(key, "level"):
			str(v, &l.Level)
		case jsonscan.KeyIs(key, "logger"):
			str(v, &l.Logger)
		case jsonscan.KeyIs(key, "data"):
			l.Data = append(json.RawMessage(nil), v...)
		}
		return true
	})
	return l, ok
}
