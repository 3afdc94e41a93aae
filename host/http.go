package host

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultHTTPAddr is where "mcpscope host --http" listens when given no address.
const DefaultHTTPAddr = "127.0.0.1:5757"

// MaxBodyBytes is the largest request body the HTTP endpoint accepts (413 above it).
const MaxBodyBytes = 4 << 20

// modernVersion is the first protocol version of the stateless era.
const modernVersion = "2026-07-28"

// HTTPOptions configure NewHTTPHandler.
type HTTPOptions struct {
	// StreamingTools names tools whose calls send notifications without being asked
	// for progress (the log tool, for one). Calls to them are answered as an SSE
	// stream, so the notifications have somewhere to go.
	StreamingTools []string
	// Logger receives the SDK's warnings and errors. Nil discards them.
	Logger *slog.Logger
	// Sessions gives a 2025 client that initializes a session (Mcp-Session-Id, with
	// resumable SSE streams): over it the host can send the client requests (sampling,
	// elicitation, roots), and it keeps the client's log level and subscriptions,
	// none of which stateless HTTP before 2026-07-28 has. Requests without a session
	// (2026-07-28 ones, and 2025 ones that carry no Mcp-Session-Id) stay stateless.
	// The conformance profile sets it; the default host is stateless only.
	Sessions bool
}

// HTTPHandler returns the host's HTTP handler (see NewHTTPHandler).
func (h *Host) HTTPHandler() http.Handler {
	var streaming []string
	if h.opts.Demo {
		streaming = []string{"log"}
	}
	return NewHTTPHandler(h.server, HTTPOptions{StreamingTools: streaming, Logger: h.log, Sessions: h.opts.Conformance})
}

// NewHTTPHandler serves s as stateless Streamable HTTP at /mcp, for clients of the 2025
// revisions (initialize handshake, no Mcp-Session-Id minted) and of 2026-07-28
// (server/discover, _meta on every request, mirrored headers) alike, and answers
// /healthz with 200.
//
// In front of the SDK's handler it adds: 403 for a request whose Origin is not a
// loopback origin; 413 for a body over MaxBodyBytes; -32022 (HTTP 400) with
// data.supported for an MCP-Protocol-Version the server does not support; -32601 as a
// JSON-RPC error for an unknown method in every era (HTTP 404 from 2026-07-28); and
// the choice between a JSON response (the default) and an SSE stream (when the client
// accepts only text/event-stream, or the request asks for progress or log messages).
func NewHTTPHandler(s *mcp.Server, opts HTTPOptions) http.Handler {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	base := mcp.StreamableHTTPOptions{
		Stateless:                    true,
		PropagateRequestCancellation: true,
		MaxRequestBodyBytes:          MaxBodyBytes,
		Logger:                       slog.New(minLevel{log.Handler(), slog.LevelWarn}),
	}
	jsonOpts, sseOpts := base, base
	jsonOpts.JSONResponse = true
	get := func(*http.Request) *mcp.Server { return s }
	m := &mcpEndpoint{
		json:      mcp.NewStreamableHTTPHandler(get, &jsonOpts),
		sse:       mcp.NewStreamableHTTPHandler(get, &sseOpts),
		streaming: slices.Clone(opts.StreamingTools),
	}
	if opts.Sessions {
		sessOpts := base
		sessOpts.Stateless = false
		sessOpts.EventStore = mcp.NewMemoryEventStore(nil)
		// A session a client abandoned without DELETE is closed after a while, so the
		// sessions cannot pile up.
		sessOpts.SessionTimeout = 10 * time.Minute
		m.sessions = mcp.NewStreamableHTTPHandler(get, &sessOpts)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", m)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok\n")
	})
	return mux
}

type mcpEndpoint struct {
	json, sse http.Handler
	sessions  http.Handler // nil unless HTTPOptions.Sessions
	streaming []string
}

func (m *mcpEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); origin != "" && !loopbackOrigin(origin) {
		http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not a loopback origin (protection against DNS rebinding)", origin), http.StatusForbidden)
		return
	}
	if r.Method != http.MethodPost {
		if m.sessions != nil && r.Header.Get("Mcp-Session-Id") != "" {
			m.sessions.ServeHTTP(w, r) // a session's GET stream (resumption) and DELETE
			return
		}
		m.json.ServeHTTP(w, r) // the SDK answers GET and DELETE with 405 when stateless
		return
	}
	if r.ContentLength > MaxBodyBytes {
		tooLarge(w)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			tooLarge(w)
			return
		}
		http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	p := peek(body)
	if p.ok && p.method == "tools/call" {
		body = liftTaskParamInBody(body) // as ServeStdio's connection does: params.task survives decoding
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	version := r.Header.Get("MCP-Protocol-Version")
	if version != "" && !slices.Contains(mcp.SupportedProtocolVersions(), version) {
		data, _ := json.Marshal(map[string]any{"supported": mcp.SupportedProtocolVersions(), "requested": version})
		writeRPCError(w, http.StatusBadRequest, p.id, mcp.CodeUnsupportedProtocolVersion,
			fmt.Sprintf("unsupported protocol version %q (MCP-Protocol-Version header)", version), data)
		return
	}
	modern := version >= modernVersion || (version == "" && p.metaVersion >= modernVersion)
	if modern && p.ok && len(p.id) > 0 && taskRouted(p.method) {
		// SEP-2663 routes tasks/get, tasks/update and tasks/cancel by Mcp-Name, the
		// task's id, as SEP-2243 routes tools/call by the tool's name; the SDK checks
		// only the methods it knows. A header that names another task is refused
		// before anything runs. One left out is served: clients written before
		// SEP-2663 (mcpscope's among them) do not send it.
		if name, ok := headerValue(r.Header.Get("Mcp-Name")); r.Header.Get("Mcp-Name") != "" && (!ok || name != p.taskID) {
			writeRPCError(w, http.StatusBadRequest, p.id, mcp.CodeHeaderMismatch,
				fmt.Sprintf("header mismatch: Mcp-Name %q does not match params.taskId %q of %s", r.Header.Get("Mcp-Name"), p.taskID, p.method), nil)
			return
		}
	}
	if p.ok && len(p.id) > 0 && !modern {
		// Which methods exist is the server's to say (its own and every custom method
		// the host added, the one table stdio dispatches with too); the SDK refuses an
		// unknown one before 2026-07-28 with a plain-text 400, which a client cannot
		// read as JSON-RPC. From 2026-07-28 it answers 404 with -32601 itself.
		rw := &notHandled{ResponseWriter: w}
		defer rw.finish(p)
		w = rw
	}

	if m.sessions != nil && !modern && (r.Header.Get("Mcp-Session-Id") != "" || p.method == "initialize") {
		m.sessions.ServeHTTP(w, r)
		return
	}

	jsonOK, sseOK := accepts(r.Header.Values("Accept"))
	useSSE := false
	if sseOK && !jsonOK {
		// The SDK insists on both; a client that takes only SSE gets SSE.
		r.Header.Set("Accept", "application/json, text/event-stream")
		useSSE = true
	}
	if p.progress || p.logLevel || p.method == "subscriptions/listen" ||
		(!modern && p.method == "tools/call" && slices.Contains(m.streaming, p.name)) {
		useSSE = true
	}
	if useSSE {
		w.Header().Set("X-Accel-Buffering", "no")
		m.sse.ServeHTTP(w, r)
		return
	}
	m.json.ServeHTTP(w, r)
}

// taskRouted reports whether a 2026-07-28 request of method carries the task's id in
// Mcp-Name (SEP-2663 §Streamable HTTP: Routing Headers).
func taskRouted(method string) bool {
	return method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel"
}

// headerValue decodes an Mcp-Name value: optional whitespace around it is not part
// of it (RFC 9110 §5.5), and =?base64?…?= holds a value a header cannot carry as is.
func headerValue(v string) (string, bool) {
	v = strings.Trim(v, " \t")
	if enc, ok := strings.CutPrefix(v, "=?base64?"); ok {
		if enc, ok = strings.CutSuffix(enc, "?="); ok {
			b, err := base64.StdEncoding.DecodeString(enc)
			return string(b), err == nil
		}
	}
	return v, true
}

// sdkNotHandled begins the SDK's plain-text refusal of a method its server does not
// handle (jsonrpc2.ErrNotHandled, in checkRequest). TestHTTPErrors' "unknown method,
// legacy" case fails if an SDK update changes it.
const sdkNotHandled = "JSON RPC not handled"

// notHandled holds back a 400 answer until it is known whether it is the SDK's
// refusal of an unknown method, which finish turns into the JSON-RPC error -32601
// (HTTP 200, as before 2026-07-28 an unknown method is a normal JSON-RPC error).
// Any other answer passes through unchanged.
type notHandled struct {
	http.ResponseWriter
	held bool
	body bytes.Buffer
}

func (n *notHandled) WriteHeader(code int) {
	if code == http.StatusBadRequest {
		n.held = true
		return
	}
	n.ResponseWriter.WriteHeader(code)
}

func (n *notHandled) Write(b []byte) (int, error) {
	if n.held {
		return n.body.Write(b)
	}
	return n.ResponseWriter.Write(b)
}

func (n *notHandled) Flush() {
	if !n.held {
		_ = http.NewResponseController(n.ResponseWriter).Flush()
	}
}

func (n *notHandled) Unwrap() http.ResponseWriter { return n.ResponseWriter }

func (n *notHandled) finish(p peeked) {
	if !n.held {
		return
	}
	if strings.HasPrefix(n.body.String(), sdkNotHandled) {
		n.Header().Del("X-Content-Type-Options")
		writeRPCError(n.ResponseWriter, http.StatusOK, p.id, jsonrpc.CodeMethodNotFound, fmt.Sprintf("method %q not found", p.method), nil)
		return
	}
	n.ResponseWriter.WriteHeader(http.StatusBadRequest)
	n.ResponseWriter.Write(n.body.Bytes())
}

// peeked is what the endpoint reads from a request body before the SDK sees it.
type peeked struct {
	ok          bool            // the body is one JSON-RPC object
	id          json.RawMessage // nil for a notification
	method      string
	name        string // params.name
	taskID      string // params.taskId
	metaVersion string // params._meta["io.modelcontextprotocol/protocolVersion"]
	progress    bool   // params._meta.progressToken is set
	logLevel    bool   // params._meta["io.modelcontextprotocol/logLevel"] is set
}

func peek(body []byte) peeked {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name   string                     `json:"name"`
			TaskID string                     `json:"taskId"`
			Meta   map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &msg) != nil {
		return peeked{}
	}
	p := peeked{ok: msg.Method != "", method: msg.Method, name: msg.Params.Name, taskID: msg.Params.TaskID}
	if len(msg.ID) > 0 && string(msg.ID) != "null" {
		p.id = msg.ID
	}
	if v, ok := msg.Params.Meta["io.modelcontextprotocol/protocolVersion"]; ok {
		_ = json.Unmarshal(v, &p.metaVersion)
	}
	if v, ok := msg.Params.Meta["progressToken"]; ok && string(v) != "null" {
		p.progress = true
	}
	if v, ok := msg.Params.Meta["io.modelcontextprotocol/logLevel"]; ok && string(v) != "null" {
		p.logLevel = true
	}
	return p
}

func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int64, msg string, data json.RawMessage) {
	type rpcError struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	}
	resp := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id,omitempty"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{code, msg, data}}
	b, _ := json.Marshal(resp)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

func tooLarge(w http.ResponseWriter) {
	http.Error(w, fmt.Sprintf("request body exceeds %d bytes (4 MiB)", MaxBodyBytes), http.StatusRequestEntityTooLarge)
}

// accepts reports whether an Accept header allows JSON and SSE.
func accepts(values []string) (jsonOK, sseOK bool) {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(mt)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				sseOK = true
			case "*/*":
				jsonOK, sseOK = true, true
			}
		}
	}
	return jsonOK, sseOK
}

func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return isLoopbackHost(u.Hostname())
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// CheckBindAddr refuses an address that is not loopback unless allowRemote is set: the
// host has no authentication, and its tools may run commands.
func CheckBindAddr(addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return fmt.Errorf("--http %q: want HOST:PORT, such as %s", addr, DefaultHTTPAddr)
	}
	if allowRemote || isLoopbackHost(host) {
		return nil
	}
	what := fmt.Sprintf("%q is not a loopback address", host)
	switch {
	case host == "":
		what = fmt.Sprintf("%q listens on every network interface", addr)
	case net.ParseIP(host) == nil:
		what = fmt.Sprintf("%q is a host name, not a loopback address", host)
	case net.ParseIP(host).IsUnspecified():
		what = fmt.Sprintf("%s listens on every network interface", host)
	}
	return fmt.Errorf("refusing to listen on %s: %s, and the host has no authentication, so anyone who can reach it could call its tools (and a tool file's tools run commands); use 127.0.0.1:%s, or add --allow-remote if you mean it", addr, what, port)
}

// HTTPLimits bound what one client can hold of the HTTP endpoint, so that slow or idle
// clients cannot starve the rest. Zero fields take the defaults of DefaultHTTPLimits.
type HTTPLimits struct {
	// HeaderTimeout bounds reading a request's line and headers.
	HeaderTimeout time.Duration
	// BodyTimeout bounds reading a request's body, counted from the end of its
	// headers. Once the body is read the deadline is lifted, so a slow tool or a long
	// SSE stream is not cut by it.
	BodyTimeout time.Duration
	// WriteTimeout bounds each write of a response (and the end of a response): a
	// client that stops reading is cut off, while an SSE stream lives as long as its
	// client keeps reading. It does not bound how long a handler takes.
	WriteTimeout time.Duration
	// IdleTimeout bounds how long a keep-alive connection waits for its next request.
	IdleTimeout time.Duration
	// MaxConns caps open connections. At the cap a new connection first replaces the
	// connection idle the longest, then the one that has been sending its request the
	// longest; connections whose request is being served are never cut. When every
	// open connection is being served, new ones wait in the listen queue.
	MaxConns int
}

// DefaultHTTPLimits are the limits of "mcpscope host --http": generous for a local
// client (a 4 MiB body crosses loopback in milliseconds), small enough that thousands
// of stalled connections are shed within a minute.
var DefaultHTTPLimits = HTTPLimits{
	HeaderTimeout: 10 * time.Second,
	BodyTimeout:   30 * time.Second,
	WriteTimeout:  30 * time.Second,
	IdleTimeout:   60 * time.Second,
	MaxConns:      512,
}

func (l HTTPLimits) withDefaults() HTTPLimits {
	d := DefaultHTTPLimits
	if l.HeaderTimeout <= 0 {
		l.HeaderTimeout = d.HeaderTimeout
	}
	if l.BodyTimeout <= 0 {
		l.BodyTimeout = d.BodyTimeout
	}
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = d.WriteTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = d.IdleTimeout
	}
	if l.MaxConns <= 0 {
		l.MaxConns = d.MaxConns
	}
	return l
}

// ServeHTTP listens on addr (after CheckBindAddr) and serves handler with
// DefaultHTTPLimits until ctx is cancelled, then shuts down, giving open requests a few
// seconds. ready, if not nil, is called with the bound address once the listener is
// open. It returns nil after a shutdown caused by ctx.
func ServeHTTP(ctx context.Context, handler http.Handler, addr string, allowRemote bool, ready func(net.Addr)) error {
	return ServeHTTPWithLimits(ctx, handler, addr, allowRemote, DefaultHTTPLimits, ready)
}

// ServeHTTPWithLimits is ServeHTTP with the given limits.
func ServeHTTPWithLimits(ctx context.Context, handler http.Handler, addr string, allowRemote bool, limits HTTPLimits, ready func(net.Addr)) error {
	if err := CheckBindAddr(addr, allowRemote); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	srv, ln := newLimitedServer(handler, ln, limits.withDefaults())
	if ready != nil {
		ready(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			srv.Close()
		}
		<-errc
		return nil
	}
}

type connKey struct{}

// newLimitedServer returns a server for handler that applies limits, and the listener
// to serve it on.
func newLimitedServer(handler http.Handler, ln net.Listener, limits HTTPLimits) (*http.Server, net.Listener) {
	cl := &connLimiter{Listener: ln, max: limits.MaxConns, conns: map[net.Conn]*trackedConn{}}
	cl.cond = sync.NewCond(&cl.mu)
	srv := &http.Server{
		Handler:           &deadlines{next: handler, limits: limits, conns: cl},
		ReadHeaderTimeout: limits.HeaderTimeout,
		IdleTimeout:       limits.IdleTimeout,
		ConnState:         cl.stateChanged,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
	}
	return srv, cl
}

// deadlines applies the body and write timeouts of one request. net/http's own
// ReadTimeout and WriteTimeout would cover the whole exchange, which would cut an SSE
// stream (and a slow tool call) short.
type deadlines struct {
	next   http.Handler
	limits HTTPLimits
	conns  *connLimiter
}

func (d *deadlines) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a deadline of the previous request on this connection
	conn, _ := r.Context().Value(connKey{}).(net.Conn)
	serving := func() {
		// The request is read: lift the read deadline, so that net/http's background
		// read (which notices a client going away) does not time out during a long
		// response, and never cut this connection to make room.
		_ = rc.SetReadDeadline(time.Time{})
		d.conns.serving(conn)
	}
	if r.Body == nil || r.Body == http.NoBody {
		serving()
	} else {
		_ = rc.SetReadDeadline(time.Now().Add(d.limits.BodyTimeout))
		r.Body = &bodyWatch{ReadCloser: r.Body, atEOF: serving}
	}
	d.next.ServeHTTP(&writeDeadline{ResponseWriter: w, rc: rc, d: d.limits.WriteTimeout}, r)
	// What net/http writes after the handler (buffered output, the chunked trailer)
	// gets a deadline too.
	_ = rc.SetWriteDeadline(time.Now().Add(d.limits.WriteTimeout))
}

// bodyWatch calls atEOF once the whole body has been read.
type bodyWatch struct {
	io.ReadCloser
	atEOF func()
	done  bool
}

func (b *bodyWatch) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		b.atEOF()
	}
	return n, err
}

// writeDeadline gives each write of a response WriteTimeout to complete.
type writeDeadline struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w *writeDeadline) Write(p []byte) (int, error) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.d))
	return w.ResponseWriter.Write(p)
}

func (w *writeDeadline) Flush() {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.d))
	_ = w.rc.Flush()
}

// Unwrap lets http.ResponseController (which the SDK uses to flush) reach the
// connection.
func (w *writeDeadline) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// connLimiter is a listener that caps open connections (see HTTPLimits.MaxConns).
type connLimiter struct {
	net.Listener
	max    int
	mu     sync.Mutex
	cond   *sync.Cond
	conns  map[net.Conn]*trackedConn
	seq    uint64
	closed bool
}

type trackedConn struct {
	idle    bool   // between requests
	serving bool   // its request has been read and is being answered
	since   uint64 // when it last changed state, in state changes of the listener
}

func (l *connLimiter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.conns) >= l.max && !l.closed {
		if v := l.victimLocked(); v != nil {
			delete(l.conns, v)
			v.Close()
			continue
		}
		l.cond.Wait()
	}
	if l.closed {
		c.Close()
		return nil, net.ErrClosed
	}
	l.seq++
	l.conns[c] = &trackedConn{since: l.seq}
	return c, nil
}

// victimLocked picks the connection to cut for a new one: the one idle the longest,
// else the one that has been sending its request the longest; nil when every
// connection is being served.
func (l *connLimiter) victimLocked() net.Conn {
	var best net.Conn
	var bestT *trackedConn
	for c, t := range l.conns {
		if t.serving {
			continue
		}
		if bestT == nil || (t.idle && !bestT.idle) || (t.idle == bestT.idle && t.since < bestT.since) {
			best, bestT = c, t
		}
	}
	return best
}

func (l *connLimiter) stateChanged(c net.Conn, s http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch s {
	case http.StateClosed, http.StateHijacked:
		delete(l.conns, c)
		l.cond.Broadcast()
	case http.StateActive, http.StateIdle:
		if t := l.conns[c]; t != nil {
			l.seq++
			t.idle, t.since = s == http.StateIdle, l.seq
			if t.idle {
				t.serving = false
				l.cond.Broadcast() // it may be cut now
			}
		}
	}
}

// serving marks c as being served until it next goes idle (or closes).
func (l *connLimiter) serving(c net.Conn) {
	if c == nil {
		return
	}
	l.mu.Lock()
	if t := l.conns[c]; t != nil {
		t.serving = true
	}
	l.mu.Unlock()
}

func (l *connLimiter) Close() error {
	l.mu.Lock()
	l.closed = true
	l.cond.Broadcast()
	l.mu.Unlock()
	return l.Listener.Close()
}
