package wire

import (
	"strconv"

	"github.com/mcpscope/mcpscope/internal/jsonscan"
)

// Shape says what a JSON-RPC message is.
type Shape uint8

const (
	// ShapeNone: not a message the wire layer read (noise, stderr, a note), or a frame
	// that is not JSON-RPC.
	ShapeNone Shape = iota
	// ShapeRequest has a method and an id: it expects an answer.
	ShapeRequest
	// ShapeNotification has a method and no id.
	ShapeNotification
	// ShapeResult answers a request with a result.
	ShapeResult
	// ShapeError answers a request with an error (ErrorCode says which).
	ShapeError
	// ShapeBatch is an array of messages (2025-03-26 only); Method is MethodBatch.
	ShapeBatch
)

var shapeNames = [...]string{"none", "request", "notification", "result", "error", "batch"}

func (s Shape) String() string {
	if int(s) < len(shapeNames) {
		return shapeNames[s]
	}
	return "shape(" + strconv.Itoa(int(s)) + ")"
}

// Head is what the wire layer read of a KindMessage in the one scan it makes of each
// frame (to validate it, route a response to its request and find its result). It
// travels on the Event, so that every later reader (Traffic's summary, the client's
// typed events, a recorder) uses these fields instead of decoding the frame again: a
// 100 MiB result is scanned once, here, and named like any other frame.
type Head struct {
	Shape Shape
	// ID is the id's JSON text as the frame has it (4, "mcpscope-1"); "" for a
	// notification and a batch.
	ID string
	// Method is the method of a request or a notification ("" for a response;
	// MethodBatch for a batch).
	Method string
	// Name is a request's params.name, when it is a string: the tool of a
	// tools/call, the prompt of a prompts/get.
	Name string
	// ErrorCode is the error's code (ShapeError).
	ErrorCode int64
	// TraceParent is a request's or a notification's params._meta.traceparent when it
	// is a string (W3C trace context, SEP-414), as the frame has it: untrusted.
	TraceParent string
}

// ParseHead reads the head of one message or batch that did not come through a
// transport (a frame from a recording). It validates the frame as the transports do;
// a frame that is not JSON-RPC has ShapeNone.
func ParseHead(data []byte) Head {
	i := 0
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	if i < len(data) && data[i] == '[' {
		if jsonscan.Valid(data) != nil {
			return Head{}
		}
		return Head{Shape: ShapeBatch, Method: MethodBatch}
	}
	env, err := parseEnvelope(data)
	if err != nil && err != errNotString {
		return Head{}
	}
	return env.head()
}

// batchHead is the head of a batch of several messages.
var batchHead = Head{Shape: ShapeBatch, Method: MethodBatch}

// head is what the envelope says of its message.
func (env envelope) head() Head {
	h := Head{Method: env.MethodName}
	if env.ID != nil {
		h.ID = string(env.ID)
	}
	switch {
	case env.Method && h.ID != "":
		h.Shape = ShapeRequest
		h.Name, h.TraceParent = env.paramsHead()
	case env.Method:
		h.Shape = ShapeNotification
		_, h.TraceParent = env.paramsHead()
	case env.Error != nil:
		h.Shape = ShapeError
		h.ErrorCode = errorCode(env.Error)
	case env.ID != nil:
		h.Shape = ShapeResult
	}
	return h
}

// paramsHead is params.name and params._meta.traceparent, each when it is a
// string, in one walk. params was validated with the message, so its members are
// walked without checking them again (a big argument is skipped at memchr speed).
func (env envelope) paramsHead() (name, traceparent string) {
	if len(env.Params) == 0 || env.Params[0] != '{' {
		return "", ""
	}
	jsonscan.MembersTrusted(env.Params, func(key, value []byte) bool {
		switch {
		case jsonscan.KeyIs(key, "name"):
			name, _ = jsonscan.String(value)
		case jsonscan.KeyIs(key, "_meta") && len(value) > 0 && value[0] == '{':
			jsonscan.MembersTrusted(value, func(k, v []byte) bool {
				if jsonscan.KeyIs(k, "traceparent") {
					traceparent, _ = jsonscan.String(v)
					return false
				}
				return true
			})
		}
		return true
	})
	return name, traceparent
}

// errorCode is an error object's code (0 when it has none that is an integer).
func errorCode(e []byte) int64 {
	if len(e) == 0 || e[0] != '{' {
		return 0
	}
	var code int64
	jsonscan.MembersTrusted(e, func(key, value []byte) bool {
		if jsonscan.KeyIs(key, "code") {
			code, _ = strconv.ParseInt(string(value), 10, 64)
			return false
		}
		return true
	})
	return code
}

// sentHead is the head of a message mcpscope wrote: the SDK (or RawCall) encoded it,
// so it is valid JSON and its members are walked without validating them again.
func sentHead(data []byte) Head {
	if len(data) == 0 || data[0] != '{' {
		return Head{}
	}
	var env envelope
	jsonscan.MembersTrusted(data, func(key, value []byte) bool {
		env.member(key, value)
		return true
	})
	return env.head()
}
