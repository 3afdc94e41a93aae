// Package wire owns the bytes between mcpscope and an MCP server. Its transports
// implement the SDK's mcp.Transport so the SDK does the protocol, while every frame
// that crosses the wire (and everything else the server says: stray stdout lines,
// stderr, its exit) is handed to listeners as an Event with the exact bytes.
package wire

import (
	"strconv"
	"sync"
	"time"
)

// Kind says what an Event is.
type Kind string

const (
	// KindMessage is a JSON-RPC message (or batch), exactly as framed on the wire.
	KindMessage Kind = "message"
	// KindNoise is a stdout line that is not a JSON-RPC message. It is skipped and the
	// session goes on.
	KindNoise Kind = "noise"
	// KindStderr is one line the server wrote to stderr.
	KindStderr Kind = "stderr"
	// KindRepair says that a received message was fixed before the SDK saw it (--repair).
	KindRepair Kind = "repair"
	// KindSynthetic is a message or decision mcpscope made up itself: a reply to a probe
	// the server ignored, a restart to try another framing.
	KindSynthetic Kind = "synthetic"
	// KindClosed says the server process ended.
	KindClosed Kind = "closed"
)

// MethodBatch is Event.Method for a batch: its messages may have several methods.
const MethodBatch = "(batch)"

// Dir is the direction of a message.
type Dir string

const (
	Send Dir = "send" // client to server
	Recv Dir = "recv" // server to client
)

// Framing is how messages are delimited on a byte stream.
type Framing string

const (
	FramingAuto          Framing = "auto"
	FramingNDJSON        Framing = "ndjson"
	FramingContentLength Framing = "content-length"
)

// ParseFraming reads a --framing value.
func ParseFraming(s string) (Framing, bool) {
	switch Framing(s) {
	case FramingAuto, FramingNDJSON, FramingContentLength:
		return Framing(s), true
	case "":
		return FramingAuto, true
	case "lsp", "cl":
		return FramingContentLength, true
	}
	return "", false
}

// Event is one thing that happened on the wire.
type Event struct {
	Time time.Time
	Kind Kind
	Dir  Dir // for KindMessage and KindNoise
	// Data is the exact payload: the JSON of a message, a noise or stderr line (no
	// newline). Listeners share it with the client and each other: never modify it.
	Data    []byte
	Framing Framing // for KindMessage: how the frame was delimited
	Size    int     // payload size in bytes; for a noise line too long to keep, the full size
	Text    string  // a human note for repair, synthetic and closed events, and for a stray or refused message
	// Head is what the wire layer read of a KindMessage, sent or received, on stdio
	// and HTTP: its shape (request, notification, result, error, batch), id, method,
	// a request's params.name and an error's code. Read these instead of decoding
	// Data: the frame was scanned once, where it crossed the wire (head.go).
	Head
	// Stray marks a received response that answers no request in flight: an id
	// mcpscope never sent, or one no longer awaited (answered already, or given up).
	// Text says which.
	Stray bool
	Exit  *Exit // for KindClosed
	// HTTP is set on every event of an HTTP transport (KindHTTP, and KindMessage
	// for a message sent or received over HTTP): the exchange it belongs to, with
	// method and URL, and the status, headers or server-sent event fields where they
	// apply. Secret values in it are already redacted. Nil for stdio.
	HTTP *HTTPInfo
}

// Exit describes how a server process ended.
type Exit struct {
	Code   int    // exit code, or -1 when killed by a signal
	Signal string // the signal's name when killed by one
}

func (e Exit) String() string {
	if e.Signal != "" {
		return "killed by " + e.Signal
	}
	if e.Code == 0 {
		return "exited normally (code 0)"
	}
	return "exited with code " + strconv.Itoa(e.Code)
}

// Listener receives events. It is called synchronously, in wire order, so it must be
// quick (append to a buffer, write a line to a file, send on a buffered channel).
type Listener func(Event)

// Tap fans events out to listeners. The zero value is ready to use.
type Tap struct {
	mu        sync.Mutex
	next      int
	listeners map[int]Listener
}

// Listen adds a listener and returns a function that removes it.
func (t *Tap) Listen(l Listener) (remove func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.listeners == nil {
		t.listeners = map[int]Listener{}
	}
	id := t.next
	t.next++
	t.listeners[id] = l
	return func() {
		t.mu.Lock()
		delete(t.listeners, id)
		t.mu.Unlock()
	}
}

// Emit delivers e to every listener. Holding the lock while delivering keeps events from
// the reader, writer and stderr goroutines in one order for every listener.
func (t *Tap) Emit(e Event) {
	if t == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if e.Size == 0 {
		e.Size = len(e.Data)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, l := range t.listeners {
		l(e)
	}
}
