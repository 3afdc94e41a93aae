package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/internal/jsonscan"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults for StdioOptions.
const (
	DefaultGrace        = 500 * time.Millisecond
	DefaultProbeTimeout = 500 * time.Millisecond
)

// StdioOptions configures a server run as a child process.
type StdioOptions struct {
	Argv    []string
	Env     []string // K=V pairs added to the inherited environment
	Dir     string
	Framing Framing // auto (default), ndjson or content-length
	// Repair fixes a missing "jsonrpc" tag and a numeric id echoed back as a string,
	// each reported as a KindRepair event. Without it such messages end the session
	// with an error that suggests --repair.
	Repair bool
	// Grace is how long the server gets after stdin closes, and again after SIGTERM.
	Grace time.Duration
	// ProbeTimeout bounds the probes: how long after the server has read a
	// server/discover request its silence counts as "legacy server", and how long after
	// it has read an NDJSON request its silence counts as "wants Content-Length".
	// Negative disables both probes.
	ProbeTimeout time.Duration
	// NoDiscoverProbe disables only the server/discover probe (the user forced a
	// protocol version and wants the server's real answer, however slow).
	NoDiscoverProbe bool
	MaxFrame        int // default DefaultMaxFrame
	Tap             *Tap
	// Meta goes into params._meta of every request sent (meta.go).
	Meta RequestMeta
}

// Stdio is an mcp.Transport that runs the server command and owns its bytes.
type Stdio struct {
	opts StdioOptions

	mu   sync.Mutex
	conn *StdioConn
}

// NewStdio returns a transport for the command in opts.
func NewStdio(opts StdioOptions) *Stdio {
	if opts.Framing == "" {
		opts.Framing = FramingAuto
	}
	if opts.Grace == 0 {
		opts.Grace = DefaultGrace
	}
	if opts.ProbeTimeout == 0 {
		opts.ProbeTimeout = DefaultProbeTimeout
	}
	if opts.MaxFrame <= 0 {
		opts.MaxFrame = DefaultMaxFrame
	}
	if opts.Tap == nil {
		opts.Tap = &Tap{}
	}
	return &Stdio{opts: opts}
}

// Tap returns the event fan-out of this transport.
func (s *Stdio) Tap() *Tap { return s.opts.Tap }

// Connect starts the server process.
func (s *Stdio) Connect(ctx context.Context) (mcp.Connection, error) {
	c := &StdioConn{
		opts:     s.opts,
		tap:      s.opts.Tap,
		incoming: make(chan jsonrpc.Message, 16),
		readDone: make(chan struct{}),
		closed:   make(chan struct{}),
		pending:  map[string]*pendingRequest{},
		probed:   map[string]bool{},
		raw:      map[string]chan json.RawMessage{},
		stderr:   newRing(20),
	}
	c.writeFraming = s.opts.Framing
	if c.writeFraming == FramingAuto {
		c.writeFraming = FramingNDJSON
	}
	if err := c.start(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.conn = c
	s.mu.Unlock()
	return c, nil
}

// Conn returns the live connection, or nil before Connect.
func (s *Stdio) Conn() *StdioConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn
}

type pendingRequest struct {
	id      jsonrpc.ID
	method  string
	data    []byte
	capture *Capture
	numeric bool
	// sent: its frame was written whole to the process (under StdioConn.mu). Until
	// then an empty pipe says nothing about whether the server read it.
	sent bool
	// resent: a Content-Length restart wrote it to the new process (under
	// StdioConn.mu). A request is pending before its own write waits for writeMu, so a
	// restart holding writeMu resends it too; its own write then must not send it a
	// second time (the host answered the second initialize "duplicate initialize
	// request" and ended the session).
	resent bool
}

type StdioConn struct {
	opts StdioOptions
	tap  *Tap

	writeMu sync.Mutex // serializes writes and restarts

	mu           sync.Mutex
	proc         *process
	gen          int
	writeFraming Framing
	framingKnown bool // a frame has arrived, so its framing is the server's
	restarted    bool
	restartWhy   string                     // why it was restarted with Content-Length framing
	closing      bool                       // Close has begun: no restart may start a new process
	hurry        bool                       // Close ends the server with hurryGrace
	pending      map[string]*pendingRequest // written calls not yet answered, by id JSON
	order        []string                   // pending keys in write order, for a restart
	probed       map[string]bool            // ids answered by a synthetic reply
	// discoverAnswered: the server answered a server/discover itself, so it speaks
	// 2026-07-28 and a later one (a ping, a re-discovery) is never given a synthetic
	// "method not found" because it was slow (a loaded machine takes more than the
	// probe time).
	discoverAnswered bool
	raw              map[string]chan json.RawMessage
	rawSeq           int
	maxID            int64 // the highest numeric request id written, to tell late replies from strays
	err              error // why reading stopped (nil: clean EOF)
	writeErr         error // a write was cut off: the server's input is torn, later writes fail
	noiseLines       int   // stdout lines that were not JSON-RPC
	firstNoise       string
	stderr           *ring

	incoming  chan jsonrpc.Message
	readDone  chan struct{}
	readOnce  sync.Once
	closed    chan struct{}
	closeOnce sync.Once
	lastExit  *Exit
}

func (c *StdioConn) start() error {
	p, err := startProcessGrace(c.opts.Argv, c.opts.Env, c.opts.Dir, c.opts.Grace)
	if err != nil {
		return err
	}
	c.attach(p)
	return nil
}

// attach makes p the current process: a new generation whose stdout is read as the
// session's, whose stderr is captured, and whose end is reported.
func (c *StdioConn) attach(p *process) {
	c.mu.Lock()
	c.proc = p
	c.gen++
	gen := c.gen
	c.mu.Unlock()
	go c.readStdout(p, gen)
	go c.readStderr(p)
	go func() {
		<-p.done
		e := p.exit
		c.mu.Lock()
		c.lastExit = &e
		current := gen == c.gen
		c.mu.Unlock()
		note := "server " + e.String()
		if !current {
			note += " (replaced by a restart)"
		}
		c.tap.Emit(Event{Kind: KindClosed, Exit: &e, Text: note})
		close(p.reported)
	}()
}

func (c *StdioConn) readStderr(p *process) {
	defer close(p.stderrDone)
	readLines(p.stderr, func(line []byte, full int) {
		text := strings.TrimRight(string(line), "\r")
		c.stderr.add(text)
		c.tap.Emit(Event{Kind: KindStderr, Data: []byte(text), Size: full})
	})
}

// Ended reports whether the server's output has ended (or reading failed).
func (c *StdioConn) Ended() bool {
	select {
	case <-c.readDone:
		return true
	default:
		return false
	}
}

// SessionID implements mcp.Connection; stdio has no sessions.
func (c *StdioConn) SessionID() string { return "" }

// Read implements mcp.Connection.
func (c *StdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.incoming:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case <-c.readDone:
		select {
		case m := <-c.incoming:
			return m, nil
		default:
		}
		c.mu.Lock()
		err := c.err
		c.mu.Unlock()
		if err == nil {
			err = io.EOF
		}
		return nil, err
	}
}

// Write implements mcp.Connection.
func (c *StdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && len(c.opts.Meta) > 0 {
		r := *req // the SDK's own request stays as it made it
		r.Params = c.opts.Meta.stamp(r.Params)
		msg = &r
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	var watch *pendingRequest
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		key := idKey(req.ID)
		pr := &pendingRequest{id: req.ID, method: req.Method, data: data, capture: captureFrom(ctx)}
		n, numeric := req.ID.Raw().(int64)
		pr.numeric = numeric
		c.mu.Lock()
		if numeric && n > c.maxID {
			c.maxID = n
		}
		c.pending[key] = pr
		c.order = append(c.order, key)
		c.mu.Unlock()
		watch = pr
	}
	req, _ := msg.(*jsonrpc.Request)
	canceling := req != nil && req.Method == "notifications/cancelled"
	if err := c.writeFrame(ctx, data, canceling, watch); err != nil {
		return err
	}
	if watch != nil {
		c.mu.Lock()
		watch.sent = true
		c.mu.Unlock()
	}
	if watch != nil && c.opts.ProbeTimeout > 0 {
		go c.probe(watch)
	}
	return nil
}

// pipeRoom is what a pipe holds unread on every system mcpscope runs on (Linux's
// default is 64 KiB): a write that fits in it with what is unread does not block.
const pipeRoom = 64 << 10

// writeFrame writes one message. A write that blocks because the server does not read
// its stdin gives up when ctx ends or the connection closes; the frame is then cut
// off, so later writes fail too. A cancellation (canceling) that would block is not
// written at all: the SDK waits for it before it closes the connection, and a server
// that does not read cannot act on it anyway.
func (c *StdioConn) writeFrame(ctx context.Context, data []byte, canceling bool, pr *pendingRequest) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.mu.Lock()
	p, f, broken := c.proc, c.writeFraming, c.writeErr
	resent := pr != nil && pr.resent
	c.mu.Unlock()
	if broken != nil {
		return broken
	}
	if resent {
		return nil // a restart has written it to the new process already
	}
	frame := encodeFrame(f, data)
	if canceling {
		if unread, err := unreadInput(p.stdin); err == nil && unread+len(frame) > pipeRoom {
			c.tap.Emit(Event{Kind: KindSynthetic, Text: fmt.Sprintf("notifications/cancelled not sent: the server has not read the last %s written to it", HumanBytes(int64(unread)))})
			return nil
		}
	}
	c.tap.Emit(Event{Kind: KindMessage, Dir: Send, Data: data, Framing: f, Head: sentHead(data)})
	stop := context.AfterFunc(ctx, func() { _ = p.stdin.SetWriteDeadline(time.Now()) })
	_, err := p.stdin.Write(frame)
	stop()
	_ = p.stdin.SetWriteDeadline(time.Time{})
	if err == nil {
		p.written.Add(int64(len(frame)))
		return nil
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = errors.New("the server is not reading its stdin: a message to it was cut off unsent; restart the session")
		c.mu.Lock()
		c.writeErr = err
		c.mu.Unlock()
		c.tap.Emit(Event{Kind: KindSynthetic, Text: err.Error()})
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		return err
	}
	return fmt.Errorf("writing to the server's stdin: %w", err)
}

func idKey(id jsonrpc.ID) string {
	b, _ := json.Marshal(id.Raw())
	return string(b)
}

// readStdout turns the server's stdout into events and messages for the SDK.
func (c *StdioConn) readStdout(p *process, gen int) {
	fr := newFrameReader(p.stdout, c.opts.MaxFrame)
	for {
		f, err := fr.next()
		if err == nil {
			err = c.handleFrame(f, gen)
		}
		if err != nil {
			if errors.Is(err, io.EOF) && c.current(gen) && c.retryContentLengthAtEOF(p) {
				return
			}
			c.mu.Lock()
			current := gen == c.gen
			if current && !errors.Is(err, io.EOF) && c.err == nil {
				c.err = err
			}
			c.mu.Unlock()
			if current {
				c.endRead()
			}
			return
		}
	}
}

func (c *StdioConn) current(gen int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return gen == c.gen
}

// envelope is what the reader needs of a message: its top-level members, found in one
// validating pass without decoding (or copying) the result.
type envelope struct {
	JSONRPC *string
	ID      json.RawMessage // raw, as sent; nil when absent
	Method  bool
	// MethodName is the method's value when it is a string.
	MethodName string
	Result     json.RawMessage // raw; nil when absent
	Error      json.RawMessage // raw; nil when absent
	Params     json.RawMessage // raw; nil when absent
}

// member keeps one top-level member of a message that names what it is (every one
// but "jsonrpc", which parseEnvelope checks itself); ParseHead and parseEnvelope both
// read a frame through it. A repeated member's last value wins, as in encoding/json.
func (env *envelope) member(key, value []byte) {
	switch {
	case jsonscan.KeyIs(key, "id"):
		env.ID = value
	case jsonscan.KeyIs(key, "method"):
		env.Method = true
		env.MethodName, _ = jsonscan.String(value)
	case jsonscan.KeyIs(key, "result"):
		env.Result = value
	case jsonscan.KeyIs(key, "error"):
		env.Error = value
	case jsonscan.KeyIs(key, "params"):
		env.Params = value
	}
}

var errNotString = errors.New(`"jsonrpc" is not a string`)

// parseEnvelope validates one message (with the SDK's nesting limit) and finds its
// top-level members. Like encoding/json, a repeated member's last value wins.
func parseEnvelope(data []byte) (envelope, error) {
	var env envelope
	var bad error
	err := jsonscan.Members(data, func(key, value []byte) bool {
		switch {
		case jsonscan.KeyIs(key, "jsonrpc"):
			s, ok := jsonscan.String(value)
			if !ok {
				bad = errNotString // the walk goes on: the head is read all the same
				break
			}
			env.JSONRPC = &s
		default:
			env.member(key, value)
		}
		return true
	})
	if err == nil {
		err = bad
	}
	return env, err
}

// plainResult reports whether a tools/call result is complete as it stands: an object
// whose resultType is absent or "complete" and that asks for no input. The SDK has
// nothing to do with such a result but decode it, so the reader can hand it a
// placeholder and leave the one decode to the client.
func plainResult(result []byte) bool {
	if len(result) == 0 || result[0] != '{' {
		return false
	}
	plain := true
	jsonscan.MembersTrusted(result, func(key, value []byte) bool {
		switch {
		case jsonscan.KeyIs(key, "resultType"):
			plain = string(value) == `"complete"`
		case jsonscan.KeyIs(key, "inputRequests"), jsonscan.KeyIs(key, "requestState"):
			plain = false
		}
		return plain
	})
	return plain
}

// placeholderResult is what the SDK decodes instead of a plain tools/call result; the
// client reads the real one from the capture.
var placeholderResult = json.RawMessage(`{"content":[]}`)

// placeholderRead is what the SDK decodes instead of a plain resources/read result.
var placeholderRead = json.RawMessage(`{"contents":[]}`)

// placeholderList is what the SDK decodes instead of a tools/list result.
var placeholderList = json.RawMessage(`{"tools":[]}`)

func (c *StdioConn) handleFrame(f frame, gen int) error {
	if !c.current(gen) {
		return nil // output of a process a probe replaced
	}
	if f.noise {
		c.noise(f.data)
		c.tap.Emit(Event{Kind: KindNoise, Dir: Recv, Data: f.data, Size: f.size})
		return nil
	}
	// A batch (allowed only in 2025-03-26) is split into its messages.
	var items [][]byte
	if f.data[0] == '[' {
		if err := jsonscan.Valid(f.data); err != nil {
			c.noise(f.data)
			c.tap.Emit(Event{Kind: KindNoise, Dir: Recv, Data: f.data})
			return nil
		}
		jsonscan.ElementsTrusted(f.data, func(v []byte) bool { items = append(items, v); return true })
	} else {
		items = [][]byte{f.data}
	}
	envs := make([]envelope, len(items))
	for i, it := range items {
		env, err := parseEnvelope(it)
		if err != nil && jsonscan.IsDepth(err) && len(items) == 1 {
			return c.tooDeep(f)
		}
		if err != nil || !(env.Method || env.ID != nil) {
			// Valid-looking start but not a JSON-RPC message (a JSON log line, a torn
			// line): noise, and the session goes on.
			c.noise(f.data)
			c.tap.Emit(Event{Kind: KindNoise, Dir: Recv, Data: f.data})
			return nil
		}
		envs[i] = env
	}
	ev := Event{Kind: KindMessage, Dir: Recv, Data: f.data, Framing: f.framing}
	if len(envs) == 1 {
		ev.Head = envs[0].head()
	} else if len(envs) > 1 {
		ev.Head = batchHead
	}
	var strays []string
	for _, env := range envs {
		if note := c.strayNote(env); note != "" {
			strays = append(strays, note)
		}
	}
	if len(strays) > 0 {
		ev.Stray, ev.Text = true, strings.Join(strays, "; ")
	}
	c.tap.Emit(ev)
	c.mu.Lock()
	if !c.framingKnown {
		c.framingKnown = true
		if c.opts.Framing == FramingAuto && f.framing == FramingContentLength && c.writeFraming != FramingContentLength {
			c.writeFraming = FramingContentLength
			c.mu.Unlock()
			c.tap.Emit(Event{Kind: KindSynthetic, Text: "the server answers in Content-Length frames; writing Content-Length frames from now on"})
			c.mu.Lock()
		}
	}
	c.mu.Unlock()
	for i, it := range items {
		if err := c.handleMessage(it, envs[i]); err != nil {
			return err
		}
	}
	return nil
}

// strayNote says why a received response answers no request in flight, or "" when it
// answers one (or is not a response).
func (c *StdioConn) strayNote(env envelope) string {
	if env.Method || env.ID == nil {
		return ""
	}
	key := string(env.ID)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[key]; ok {
		return ""
	}
	if _, ok := c.raw[key]; ok || c.probed[key] {
		return ""
	}
	if key == "null" {
		return "a response with id null: the server could not tell which request it answers (often a parse error)"
	}
	var sid string
	if json.Unmarshal(env.ID, &sid) == nil {
		if n, err := strconv.ParseInt(sid, 10, 64); err == nil {
			if cand, ok := c.pending[strconv.FormatInt(n, 10)]; ok && cand.numeric {
				return "" // an id echoed as a string: repaired or refused below
			}
		}
		if n, err := strconv.Atoi(strings.TrimPrefix(sid, "mcpscope-")); err == nil && strings.HasPrefix(sid, "mcpscope-") && n <= c.rawSeq {
			return fmt.Sprintf("a stray response: request id %s is no longer awaited (already answered, or given up)", key)
		}
	} else if n, err := strconv.ParseInt(key, 10, 64); err == nil && n > 0 && n <= c.maxID {
		return fmt.Sprintf("a stray response: request id %s is no longer awaited (already answered, or given up)", key)
	}
	return fmt.Sprintf("a stray response: mcpscope never sent a request with id %s", abbreviate(key, 40))
}

// tooDeep handles a message nested deeper than the SDK accepts: the request it
// answers fails at once with a clear error instead of waiting for its timeout.
func (c *StdioConn) tooDeep(f frame) error {
	var env envelope
	jsonscan.MembersDeep(f.data, func(key, value []byte) bool {
		switch {
		case jsonscan.KeyIs(key, "id"):
			env.ID = value
		case jsonscan.KeyIs(key, "method"):
			env.Method = true
			env.MethodName, _ = jsonscan.String(value)
		case jsonscan.KeyIs(key, "error"):
			env.Error = value
		case jsonscan.KeyIs(key, "result"):
			env.Result = value
		}
		return true
	})
	why := fmt.Sprintf("the server's message is nested more than %d levels deep; no MCP message needs that, so mcpscope refused it", jsonscan.MaxDepth)
	var pr *pendingRequest
	if !env.Method && env.ID != nil {
		key := string(env.ID)
		c.mu.Lock()
		if p, ok := c.pending[key]; ok {
			pr = p
			delete(c.pending, key)
			c.dropOrder(key)
		}
		c.mu.Unlock()
	}
	c.tap.Emit(Event{Kind: KindMessage, Dir: Recv, Data: f.data, Framing: f.framing, Text: why, Head: env.head()})
	if pr == nil {
		c.tap.Emit(Event{Kind: KindSynthetic, Text: why + "; skipped"})
		return nil
	}
	resp := &jsonrpc.Response{ID: pr.id, Error: &jsonrpc.Error{
		Code:    jsonrpc.CodeParseError,
		Message: fmt.Sprintf("response too deeply nested: the response to %s is nested more than %d levels deep; mcpscope refused it (no MCP message needs that)", pr.method, jsonscan.MaxDepth),
	}}
	data, _ := jsonrpc.EncodeMessage(resp)
	c.tap.Emit(Event{Kind: KindSynthetic, Dir: Recv, Data: data, Text: "answered the request with an error for the server: its response is too deeply nested"})
	select {
	case c.incoming <- resp:
	case <-c.closed:
	}
	return nil
}

func (c *StdioConn) noise(line []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.noiseLines == 0 {
		c.firstNoise = abbreviate(string(line), 80)
	}
	c.noiseLines++
}

func abbreviate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// NotMCPError says the server writes to stdout, but nothing it writes is JSON-RPC.
type NotMCPError struct {
	Lines int
	First string
}

func (e *NotMCPError) Error() string {
	return fmt.Sprintf("the server wrote %d lines to stdout and none was a JSON-RPC message (the first: %q); is it an MCP server speaking stdio? (a server that logs to stdout must log to stderr instead)", e.Lines, e.First)
}

// RepairNeededError says the server broke the protocol in a way --repair can fix.
type RepairNeededError struct{ What string }

func (e *RepairNeededError) Error() string {
	return e.What + "; rerun with --repair to accept such messages"
}

func (c *StdioConn) handleMessage(data []byte, env envelope) error {
	if env.JSONRPC == nil || *env.JSONRPC != "2.0" {
		if !c.opts.Repair {
			if env.JSONRPC == nil {
				return &RepairNeededError{What: `the server sent a message without "jsonrpc":"2.0"`}
			}
			return &RepairNeededError{What: fmt.Sprintf(`the server sent a message with "jsonrpc":%q instead of "2.0"`, *env.JSONRPC)}
		}
		fixed, err := setMember(data, "jsonrpc", []byte(`"2.0"`))
		if err != nil {
			return err
		}
		data = fixed
		c.tap.Emit(Event{Kind: KindRepair, Dir: Recv, Data: data, Text: `inserted the missing "jsonrpc":"2.0"`})
	}
	if tapOnly(env) {
		return nil // the tap has it; the SDK would only drop it (tapped.go)
	}
	isResponse := !bool(env.Method) && env.ID != nil
	if isResponse {
		key := string(env.ID)
		c.mu.Lock()
		rawCh, isRaw := c.raw[key]
		if isRaw {
			delete(c.raw, key)
		}
		pr, ok := c.pending[key]
		if !ok && !isRaw {
			// An id echoed as a string: "1" for 1.
			var s string
			if json.Unmarshal(env.ID, &s) == nil {
				if n, err := strconv.ParseInt(s, 10, 64); err == nil {
					if cand, found := c.pending[strconv.FormatInt(n, 10)]; found && cand.numeric {
						c.mu.Unlock()
						if !c.opts.Repair {
							return &RepairNeededError{What: fmt.Sprintf("the server echoed request id %d as the string %q", n, s)}
						}
						fixed, err := setMember(data, "id", []byte(strconv.FormatInt(n, 10)))
						if err != nil {
							return err
						}
						data = fixed
						c.tap.Emit(Event{Kind: KindRepair, Dir: Recv, Data: data, Text: fmt.Sprintf("rewrote id %q to %d", s, n)})
						key = strconv.FormatInt(n, 10)
						c.mu.Lock()
						pr, ok = c.pending[key]
					}
				}
			}
		}
		if ok {
			delete(c.pending, key)
			c.dropOrder(key)
			if pr.method == "server/discover" && !c.probed[key] {
				c.discoverAnswered = true
			}
		}
		late := c.probed[key]
		c.mu.Unlock()
		if isRaw {
			rawCh <- append(json.RawMessage(nil), data...)
			return nil
		}
		if late {
			c.tap.Emit(Event{Kind: KindSynthetic, Text: "a late reply to a request mcpscope had already answered for the server; not passed on"})
			return nil
		}
		if ok && pr.capture != nil {
			// data is the frame (or its repaired copy): nothing modifies it, so the
			// capture shares it rather than copying a result that may be 100 MiB.
			pr.capture.addOwned(pr.method, data)
			var placeholder json.RawMessage
			switch {
			case pr.method == "tools/call" && env.Result != nil && plainResult(env.Result):
				placeholder = placeholderResult
			case pr.method == "resources/read" && env.Result != nil && plainResult(env.Result):
				// The same for a read: a 50 MB text is decoded once, by the client.
				placeholder = placeholderRead
			case pr.method == "tools/list" && len(env.Result) > 0 && env.Result[0] == '{':
				// The client reads the tools (and follows the cursor) from the capture;
				// the SDK's own copy of every tool would double what a listing holds.
				placeholder = placeholderList
			}
			if placeholder != nil {
				// The SDK gets a placeholder: decoding the real result is the client's
				// (why: the comment at the top of capture.go).
				msg := &jsonrpc.Response{ID: pr.id, Result: placeholder}
				select {
				case c.incoming <- msg:
				case <-c.closed:
				}
				return nil
			}
		}
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		c.tap.Emit(Event{Kind: KindSynthetic, Text: "message not understood and skipped: " + err.Error()})
		return nil
	}
	select {
	case c.incoming <- msg:
	case <-c.closed:
	}
	return nil
}

func (c *StdioConn) dropOrder(key string) {
	for i, k := range c.order {
		if k == key {
			c.order = append(c.order[:i], c.order[i+1:]...)
			return
		}
	}
}

// setMember sets one top-level member of a JSON object, keeping the rest as it was.
func setMember(obj []byte, name string, value []byte) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		return nil, err
	}
	m[name] = value
	return json.Marshal(m)
}

// probe watches one request. Its clock starts once the server has read the request
// from its stdin. When the server stays silent for ProbeTimeout after that:
//   - server/discover gets a synthetic "method not found", so the SDK falls back to the
//     legacy initialize handshake (a legacy server may simply ignore the method);
//   - any other request, while the server has sent no frame at all in auto framing,
//     means the server may not understand NDJSON: it is restarted once with
//     Content-Length framing and the pending requests are sent again.
func (c *StdioConn) probe(pr *pendingRequest) {
	key := idKey(pr.id)
	isDiscover := pr.method == "server/discover"
	c.mu.Lock()
	answered := c.discoverAnswered
	c.mu.Unlock()
	if isDiscover && answered {
		return // the era is known: only the first discovery is probed
	}
	if isDiscover && c.opts.NoDiscoverProbe {
		// The version is forced: server/discover is not answered for the server, but
		// its silence still says the framing may be wrong.
		isDiscover = false
	}
	c.mu.Lock()
	p := c.proc
	c.mu.Unlock()
	var drainedAt time.Time
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-c.closed:
			return
		case <-c.readDone:
			return
		case <-tick.C:
		}
		c.mu.Lock()
		_, still := c.pending[key]
		known, proc := c.framingKnown, c.proc
		c.mu.Unlock()
		if !still || proc != p {
			return
		}
		if !isDiscover && (known || c.opts.Framing != FramingAuto) {
			return // nothing to probe: the framing is settled
		}
		if drainedAt.IsZero() {
			// Where the system cannot count (errUnreadUnknown), the clock starts now,
			// with the request written: a slow start then counts against ProbeTimeout.
			if n, err := unreadInput(p.stdin); (err != nil && !errors.Is(err, errUnreadUnknown)) || n > 0 {
				continue
			}
			drainedAt = time.Now()
			continue
		}
		if time.Since(drainedAt) < c.opts.ProbeTimeout {
			continue
		}
		if isDiscover {
			c.answerDiscover(pr, key)
			return
		}
		c.mu.Lock()
		noise, first := c.noiseLines, c.firstNoise
		c.mu.Unlock()
		if noise == 0 {
			c.restartContentLength(fmt.Sprintf("no reply to NDJSON within %v of the server reading it", c.opts.ProbeTimeout))
			return
		}
		// Not silent, only never JSON-RPC: give it ten probe times, in case a banner
		// comes before a slow answer, then say what it is writing.
		if time.Since(drainedAt) >= 10*c.opts.ProbeTimeout {
			c.fail(&NotMCPError{Lines: noise, First: first})
			return
		}
	}
}

// endRead marks the end of the server's output for Read.
func (c *StdioConn) endRead() { c.readOnce.Do(func() { close(c.readDone) }) }

// fail ends reading with err, which the session reports.
func (c *StdioConn) fail(err error) {
	c.mu.Lock()
	if c.err != nil || c.closing {
		c.mu.Unlock()
		return
	}
	c.err = err
	c.gen++ // the reader stops delivering
	c.mu.Unlock()
	c.endRead()
}

func (c *StdioConn) answerDiscover(pr *pendingRequest, key string) {
	c.mu.Lock()
	if _, still := c.pending[key]; !still {
		c.mu.Unlock()
		return
	}
	delete(c.pending, key)
	c.dropOrder(key)
	c.probed[key] = true
	c.mu.Unlock()
	resp := &jsonrpc.Response{ID: pr.id, Error: &jsonrpc.Error{
		Code:    jsonrpc.CodeMethodNotFound,
		Message: fmt.Sprintf("mcpscope: no reply to server/discover within %v of the server reading it; treating it as a legacy server", c.opts.ProbeTimeout),
	}}
	data, _ := jsonrpc.EncodeMessage(resp)
	c.tap.Emit(Event{Kind: KindSynthetic, Dir: Recv, Data: data, Text: "the server ignored server/discover; answered for it so the client falls back to initialize"})
	select {
	case c.incoming <- resp:
	case <-c.closed:
	}
}

// retryContentLengthAtEOF handles a server that read the first NDJSON request and
// ended without writing anything (a Content-Length server may exit on a line that is
// no header, as `mcpscope host --framing content-length` does): in auto framing it is
// restarted once with Content-Length. It reports whether it restarted.
//
// Only a request whose frame was written whole counts: a server that crashed at start
// can end while the first request is still on its way (registered as pending, not yet
// written), and an empty pipe then does not mean it read anything.
func (c *StdioConn) retryContentLengthAtEOF(p *process) bool {
	c.mu.Lock()
	ok := c.opts.Framing == FramingAuto && !c.framingKnown && !c.restarted && !c.closing &&
		c.err == nil && c.noiseLines == 0 && c.anySentLocked() && c.proc == p
	c.mu.Unlock()
	if !ok {
		return false
	}
	// A server that never read its stdin (it failed at start) is not retried. One that
	// read the first request and ended may have more unread behind it: on a loaded
	// machine the discover probe gives up on it first, and the SDK's initialize is
	// written before its end is seen. Unread bytes short of all written mean it read.
	if n, err := unreadInput(p.stdin); err != nil || int64(n) >= p.written.Load() {
		return false
	}
	c.restartContentLength("the server ended after reading an NDJSON request, without a reply")
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.restarted && c.proc != p
}

// anySentLocked reports whether a pending request was written whole; c.mu is held.
func (c *StdioConn) anySentLocked() bool {
	for _, pr := range c.pending {
		if pr.sent {
			return true
		}
	}
	return false
}

func (c *StdioConn) restartContentLength(why string) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.mu.Lock()
	if c.restarted || c.framingKnown || c.closing {
		c.mu.Unlock()
		return
	}
	c.restarted = true
	c.restartWhy = why
	old := c.proc
	c.gen++ // output of the old process is ignored from here on
	c.writeFraming = FramingContentLength
	var resend [][]byte
	for _, k := range c.order {
		pr := c.pending[k]
		pr.resent = true
		resend = append(resend, pr.data)
	}
	c.mu.Unlock()
	c.tap.Emit(Event{Kind: KindSynthetic, Text: why + "; restarting it with Content-Length framing"})
	old.kill()
	p, err := startProcessGrace(c.opts.Argv, c.opts.Env, c.opts.Dir, c.opts.Grace)
	if err != nil {
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
		c.endRead()
		return
	}
	c.attach(p)
	for _, data := range resend {
		c.tap.Emit(Event{Kind: KindMessage, Dir: Send, Data: data, Framing: FramingContentLength, Head: sentHead(data)})
		frame := encodeFrame(FramingContentLength, data)
		if _, err := p.stdin.Write(frame); err != nil {
			return
		}
		p.written.Add(int64(len(frame)))
	}
}

// Restarted says why the server was restarted with Content-Length framing, or ""
// when it was not. Its stderr then holds both processes' lines, and a failure after
// it is the second process's: a message about it says so.
func (c *StdioConn) Restarted() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.restartWhy
}

// hurryGrace replaces Grace when the session never got going (Hurry): a server
// that did not answer the handshake in time gets no long goodbye.
const hurryGrace = 100 * time.Millisecond

// Hurry makes a later Close end the server quickly (hurryGrace instead of Grace):
// the session failed, so the error need not wait for a graceful shutdown.
func (c *StdioConn) Hurry() {
	c.mu.Lock()
	c.hurry = true
	c.mu.Unlock()
}

// Close implements mcp.Connection: it ends the server and returns once it is reaped.
func (c *StdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.mu.Lock()
		if c.proc != nil {
			// A write blocked on a server that does not read gives up now.
			_ = c.proc.stdin.SetWriteDeadline(time.Now())
		}
		c.mu.Unlock()
		c.writeMu.Lock() // no restart may start a new process after this
		c.mu.Lock()
		p := c.proc
		c.closing = true
		hurry := c.hurry
		c.mu.Unlock()
		c.writeMu.Unlock()
		grace := c.opts.Grace
		if hurry {
			grace = min(grace, hurryGrace)
		}
		p.stop(grace)
		if note := p.leftNote(); note != "" {
			c.tap.Emit(Event{Kind: KindSynthetic, Text: note})
		}
		// Return only once the exit is on the tap too, so that a recorder or a view
		// closed right after this sees how the server ended.
		select {
		case <-p.reported:
		case <-time.After(time.Second):
		}
	})
	return nil
}

// Err is why reading stopped, if not a clean end of output.
func (c *StdioConn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Exit waits up to d for the current server process to end and reports how it did.
func (c *StdioConn) Exit(d time.Duration) (Exit, bool) {
	c.mu.Lock()
	p := c.proc
	c.mu.Unlock()
	if p == nil || !p.waitExit(d) {
		return Exit{}, false
	}
	return p.exit, true
}

// LastStderr returns the server's first stderr lines and its last (at most 5 and 20,
// with how many were left out between). When the server has
// exited it first waits a moment for the rest of its stderr, so that a fatal message
// written just before exiting is included.
func (c *StdioConn) LastStderr() []string {
	c.mu.Lock()
	p := c.proc
	c.mu.Unlock()
	if p != nil && p.exited() {
		t := time.NewTimer(200 * time.Millisecond)
		select {
		case <-p.stderrDone:
		case <-t.C:
		}
		t.Stop()
	}
	return c.stderr.lines()
}

// RawCall sends a hand-written request past the SDK and returns the raw response
// message. Its id is a private string, so it cannot collide with the SDK's numbers.
func (c *StdioConn) RawCall(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	c.mu.Lock()
	c.rawSeq++
	id := "mcpscope-" + strconv.Itoa(c.rawSeq)
	ch := make(chan json.RawMessage, 1)
	key, _ := json.Marshal(id)
	c.raw[string(key)] = ch
	c.mu.Unlock()
	jid, _ := jsonrpc.MakeID(id)
	req := &jsonrpc.Request{ID: jid, Method: method, Params: c.opts.Meta.stamp(params)}
	data, err := jsonrpc.EncodeMessage(req)
	if err != nil {
		return nil, err
	}
	if err := c.writeFrame(ctx, data, false, nil); err != nil {
		return nil, err
	}
	select {
	case resp := <-ch:
		return resp, nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.raw, string(key))
		c.mu.Unlock()
		return nil, ctx.Err()
	case <-c.readDone:
		return nil, errors.New("the server closed the connection before answering")
	case <-c.closed:
		return nil, errors.New("connection closed")
	}
}

// ring keeps a server's first stderr lines and its last n. A server that fails often
// prints its cause first and a long trace after it; the last lines alone would lose
// the cause under the trace.
type ring struct {
	mu    sync.Mutex
	head  []string // the first headLines lines
	buf   []string // the last len(buf) lines after them
	next  int
	full  bool
	total int // lines added
}

// headLines is how many first lines a ring keeps beside its last ones.
const headLines = 5

func newRing(n int) *ring { return &ring{buf: make([]string, n)} }

func (r *ring) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total++
	if len(r.head) < headLines {
		r.head = append(r.head, s)
		return
	}
	r.buf[r.next] = s
	r.next = (r.next + 1) % len(r.buf)
	if r.next == 0 {
		r.full = true
	}
}

// lines returns the first lines, then "… N more lines …" when lines between them and
// the last ones were dropped, then the last lines: in the order they were written.
func (r *ring) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]string(nil), r.head...)
	if !r.full {
		return append(out, r.buf[:r.next]...)
	}
	if dropped := r.total - len(r.head) - len(r.buf); dropped > 0 {
		out = append(out, fmt.Sprintf("… %d more lines …", dropped))
	}
	return append(append(out, r.buf[r.next:]...), r.buf[:r.next]...)
}

// Framing is the framing mcpscope writes in now.
func (c *StdioConn) Framing() Framing {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writeFraming
}
