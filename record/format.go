// Package record is mcpscope's session recording format: JSON Lines, a header line and
// then one line per wire event, appended and flushed as it happens.
//
// A recording file looks like this (one JSON object a line):
//
//	{"mcpscope":"recording","version":1,"mcpscopeVersion":"0.1.0","started":"2026-08-22T10:00:00.000000Z","target":{"transport":"stdio","argv":["mcpscope","host"],"env":["API_TOKEN"],"framing":"auto"},"client":{"name":"mcpscope","version":"0.1.0"}}
//	{"t":0.001021,"dir":"send","msg":{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{…}}}
//	{"t":0.009870,"dir":"recv","msg":{"jsonrpc":"2.0","id":1,"result":{…}}}
//	{"t":0.010002,"dir":"recv","framing":"content-length","msg":{…}}
//	{"t":0.010100,"kind":"stderr","text":"listening…"}
//	{"t":0.010200,"kind":"noise","dir":"recv","text":"Server started"}
//	{"t":0.010300,"kind":"repair","dir":"recv","text":"inserted the missing \"jsonrpc\":\"2.0\"","msg":{…}}
//	{"t":0.010400,"kind":"synthetic","text":"the server ignored server/discover; …"}
//	{"t":0.010500,"kind":"http","dir":"send","exchange":3,"method":"POST","url":"http://127.0.0.1:5757/mcp","headers":{"Authorization":["[redacted]"]}}
//	{"t":0.010600,"kind":"http","dir":"recv","exchange":3,"status":401,"headers":{"Www-Authenticate":["Bearer …"]}}
//	{"t":0.010700,"dir":"recv","framing":"sse","exchange":4,"sse":{"id":"7"},"msg":{…}}
//	{"t":9.100000,"kind":"closed","exit":0,"text":"server exited normally (code 0)"}
//	{"t":9.100100,"kind":"end"}
//
// A recording started in the middle of a session (the workbench's R) begins with the
// session's handshake and latest lists as known at that moment, each event marked
// "snapshot":true at t 0: {"t":0,"dir":"send","snapshot":true,"msg":{…"initialize"…}}.
//
// A recording of several servers (version 2) names them in the header, and each event
// names its server:
//
//	{"mcpscope":"recording","version":2,…,"target":{…the first…},"servers":[{"name":"gh","target":{"transport":"http","url":"…"}},{"name":"fs","target":{"transport":"stdio","argv":[…]}}]}
//	{"t":0.001021,"server":"fs","dir":"send","msg":{…}}
//
// An event without "kind" is a JSON-RPC message (or batch) in "msg", exactly as framed
// on the wire except that whitespace is compacted; "framing" appears only when it is
// not ndjson (content-length; http and sse on HTTP transports). "t" is seconds since "started". Readers ignore members they do
// not know, so later versions may add members without changing "version"; a change that
// old readers would misread raises it.
package record

import (
	"encoding/json"
	"time"

	"github.com/mcpscope/mcpscope/internal/recsniff"
)

// Format and Version identify the file format in the header. A recording of one
// server is version 1; a recording of several (VersionServers) names them all in the
// header's servers member and each event's server member. A reader of this package
// reads both (MaxVersion).
const (
	Format         = recsniff.Format // "recording"
	Version        = 1
	VersionServers = 2
	MaxVersion     = VersionServers
)

// Event kinds. A message event has no kind on disk (KindMessage in memory).
const (
	KindMessage   = "message"
	KindNoise     = "noise"
	KindStderr    = "stderr"
	KindRepair    = "repair"
	KindSynthetic = "synthetic"
	KindClosed    = "closed"
	KindHTTP      = "http"
	KindEnd       = "end"
	// KindServer adds a server to a recording of several after its header was
	// written (a server added to the live session): its server and target members
	// name it. A reader puts it in Header.Servers; it is not an event.
	KindServer = "server"
)

// Directions.
const (
	Send = "send" // client to server
	Recv = "recv" // server to client
)

// Redacted replaces every secret before it reaches a file.
const Redacted = "[redacted]"

// Header is the first line of a recording.
type Header struct {
	Format          string    `json:"mcpscope"` // always "recording"
	Version         int       `json:"version"`
	McpscopeVersion string    `json:"mcpscopeVersion,omitempty"`
	Started         time.Time `json:"started"`
	Target          Target    `json:"target"`
	Client          *Peer     `json:"client,omitempty"`
	// Tapped marks a recording made by mcpscope tap: Client is the host that ran the
	// session (its clientInfo), "send" is what the host sent, and the host answered
	// the server's requests. Replay is then that host again (see package replay).
	Tapped bool `json:"tapped,omitempty"`
	// Ignore lists JSON-pointer patterns that replay ignores for this recording, on
	// top of its defaults and --ignore (edit the file to add them).
	Ignore []string `json:"ignore,omitempty"`
	// Updated is when replay --update last rewrote the responses.
	Updated *time.Time `json:"updated,omitempty"`
	// Servers names every server of a session of several (version 2), in order; Target
	// is then the first one's. Each event's Server says whose it is.
	Servers []Server `json:"servers,omitempty"`
	// Surface is what the server offered when a file that records no listing of its
	// own was written (a collection saved from History): `mcpscope diff` compares a
	// server against it. Absent in recordings and in collections saved before it
	// existed; replay, serve and open do not use it.
	Surface *Surface `json:"surface,omitempty"`
}

// Surface holds a server's lists as it sent their items (each a JSON array, as in
// the result of tools/list and the others); a list that is nil was not known.
type Surface struct {
	Tools             json.RawMessage `json:"tools,omitempty"`
	Resources         json.RawMessage `json:"resources,omitempty"`
	ResourceTemplates json.RawMessage `json:"resourceTemplates,omitempty"`
	Prompts           json.RawMessage `json:"prompts,omitempty"`
}

// Server is one server of a recorded session of several.
type Server struct {
	Name   string `json:"name"`
	Target Target `json:"target"`
}

// Target is what the recorded session talked to.
type Target struct {
	Transport string   `json:"transport"`         // "stdio" or "http"
	Argv      []string `json:"argv,omitempty"`    // stdio: the server command (secrets redacted)
	Env       []string `json:"env,omitempty"`     // stdio: names (never values) of variables given with -e/--env-file
	Dir       string   `json:"dir,omitempty"`     // stdio: the server's working directory, when set
	Framing   string   `json:"framing,omitempty"` // stdio: the framing asked for (auto, ndjson, content-length)
	URL       string   `json:"url,omitempty"`     // http: the endpoint
}

// SSE holds the fields of a server-sent event other than its data.
type SSE struct {
	ID    string `json:"id,omitempty"`
	Event string `json:"event,omitempty"`
	Retry string `json:"retry,omitempty"`
}

// Peer names a client or server implementation.
type Peer struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// Event is one line after the header.
type Event struct {
	T float64 `json:"t"`
	// Server names the event's server in a recording of several (version 2).
	Server  string          `json:"server,omitempty"`
	Kind    string          `json:"kind,omitempty"` // empty on disk for a message
	Dir     string          `json:"dir,omitempty"`
	Framing string          `json:"framing,omitempty"`
	Msg     json.RawMessage `json:"msg,omitempty"`
	Text    string          `json:"text,omitempty"`
	Size    int             `json:"size,omitempty"` // full size when Text was cut short (a huge noise line)
	// Snapshot marks an event written when a recording started in the middle of a
	// session: the handshake and lists as the session knew them then (at t 0), so
	// that the recording can be opened, served and replayed on its own.
	Snapshot bool `json:"snapshot,omitempty"`
	// Target is the added server's target, on a KindServer event.
	Target *Target `json:"target,omitempty"`

	// closed
	Exit   *int   `json:"exit,omitempty"`
	Signal string `json:"signal,omitempty"`

	// HTTP transports: on "http" events and on messages sent or received over HTTP.
	// Exchange numbers the HTTP request/response pairs from 1; a request event (dir
	// send) has method, url and headers, a response event (dir recv) status and
	// headers; sse holds a server-sent event's fields; error says why an exchange
	// failed without a complete response.
	Exchange int                 `json:"exchange,omitempty"`
	Method   string              `json:"method,omitempty"`
	URL      string              `json:"url,omitempty"`
	Status   int                 `json:"status,omitempty"`
	Headers  map[string][]string `json:"headers,omitempty"`
	SSE      *SSE                `json:"sse,omitempty"`
	Error    string              `json:"error,omitempty"`

	// Line is the event's line number in the file it was read from (not stored).
	Line int `json:"-"`
}

// IsMessage reports whether e carries a JSON-RPC message from the wire.
func (e *Event) IsMessage() bool {
	return (e.Kind == "" || e.Kind == KindMessage) && len(e.Msg) > 0
}
