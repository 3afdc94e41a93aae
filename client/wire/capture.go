package wire

import (
	"context"
	"encoding/json"
	"sync"
)

// Placeholders for big results: why the SDK never decodes them.
//
// A frame crosses the wire once and is scanned once, by the transport (parseEnvelope
// on stdio, httpEnvelope on HTTP): that scan validates it, finds its id, method,
// result and error (the Event's Head), and routes a response to the request it
// answers. When that request was written with a context from WithCapture (the
// client's tools/call, resources/read, tools/list), the response's bytes go to the
// Capture as they are, shared, not copied. If the SDK had nothing to do with the
// result but decode it (a complete tools/call or resources/read result: plainResult;
// on stdio also a tools/list, whose cursor the client follows itself), the SDK is
// handed a placeholder response instead ({"content":[]}, {"contents":[]},
// {"tools":[]}), and the client decodes the real result from the capture with
// internal/jsonscan, once. So a 100 MiB text is scanned by the transport and decoded
// by the client, never by encoding/json in the SDK as well (which took seconds and
// doubled the memory). A result that asks for input (resultType input_required), an
// error, and every other method reach the SDK whole, since it acts on them.
//
// This stays inside client and client/wire: no other package sees a placeholder.
// Listeners of the Tap always get the real frame.

// Capture collects the raw responses to the requests written with a context from
// WithCapture. The client uses it to read results in full fidelity (unknown fields, an
// annotation absent rather than false) while the SDK does the protocol work, and to
// still show a result the SDK failed to decode.
type Capture struct {
	mu        sync.Mutex
	sealed    bool // Seal was called: later responses are not the request's answer
	responses []CapturedResponse
	problems  []HTTPProblem // what went wrong with the HTTP exchanges of these requests
}

// CapturedResponse is one raw JSON-RPC response and the method it answered.
type CapturedResponse struct {
	Method string
	Data   json.RawMessage
}

type captureKey struct{}

// WithCapture returns a context whose requests' responses are captured.
func WithCapture(ctx context.Context) (context.Context, *Capture) {
	c := &Capture{}
	return context.WithValue(ctx, captureKey{}, c), c
}

func captureFrom(ctx context.Context) *Capture {
	c, _ := ctx.Value(captureKey{}).(*Capture)
	return c
}

// Last returns the last response to a request with the given method.
func (c *Capture) Last(method string) (json.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.responses) - 1; i >= 0; i-- {
		if c.responses[i].Method == method {
			return c.responses[i].Data, true
		}
	}
	return nil, false
}

// addOwned records a response whose bytes nobody modifies (they are shared, not
// copied: a captured 100 MiB result is held once).
func (c *Capture) addOwned(method string, data []byte) {
	c.mu.Lock()
	if !c.sealed {
		c.responses = append(c.responses, CapturedResponse{Method: method, Data: data})
	}
	c.mu.Unlock()
}

// Seal stops the capture: a response that arrives afterwards is not recorded (it
// still reaches the tap, so Traffic shows it). The client seals when it gives up on a
// request (its timeout), so that an answer to the cancelled request is not taken for
// the request's result.
func (c *Capture) Seal() {
	c.mu.Lock()
	c.sealed = true
	c.mu.Unlock()
}

// Problems returns what went wrong with the HTTP exchanges of the requests written
// with this capture's context (HTTP transports only).
func (c *Capture) Problems() []HTTPProblem {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]HTTPProblem(nil), c.problems...)
}
