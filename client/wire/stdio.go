package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

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
	closing      bool                       // Close has begun: no restart may start a new process
	pending      map[string]*pendingRequest // written calls not yet answered, by id JSON
	order        []string                   // pending keys in write order, for a restart
	probed       map[string]bool            // ids answered by a synthetic reply
	raw          map[string]chan json.RawMessage
	rawSeq       int
	err          error // why reading stopped (nil: clean EOF)
	noiseLines   int   // stdout lines that were not JSON-RPC
	firstNoise   string
	stderr       *ring

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
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	var watch *pendingRequest
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		key := idKey(req.ID)
		pr := &pendingRequest{id: req.ID, method: req.Method, data: data, capture: captureFrom(ctx)}
		_, pr.numeric = req.ID.Raw().(int64)
		c.mu.Lock()
		c.pending[key] = pr
		c.order = append(c.order, key)
		c.mu.Unlock()
		watch = pr
	}
	if err := c.writeFrame(data); err != nil {
		return err
	}
	if watch != nil && c.opts.ProbeTimeout > 0 {
		go c.probe(watch)
	}
	return nil
}

func (c *StdioConn) writeFrame(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.mu.Lock()
	p, f := c.proc, c.writeFraming
	c.mu.Unlock()
	c.tap.Emit(Event{Kind: KindMessage, Dir: Send, Data: data, Framing: f})
	if _, err := p.stdin.Write(encodeFrame(f, data)); err != nil {
		return fmt.Errorf("writing to the server's stdin: %w", err)
	}
	return nil
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

// presence records that a JSON member exists without copying its value.
type presence bool

func (p *presence) UnmarshalJSON([]byte) error { *p = true; return nil }

type envelope struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  presence        `json:"method"`
	Result  presence        `json:"result"`
	Error   presence        `json:"error"`
}

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
	var items []json.RawMessage
	if f.data[0] == '[' {
		if err := json.Unmarshal(f.data, &items); err != nil {
			c.noise(f.data)
			c.tap.Emit(Event{Kind: KindNoise, Dir: Recv, Data: f.data})
			return nil
		}
	} else {
		items = []json.RawMessage{f.data}
	}
	envs := make([]envelope, len(items))
	for i, it := range items {
		if err := json.Unmarshal(it, &envs[i]); err != nil || !(bool(envs[i].Method) || envs[i].ID != nil) {
			// Valid-looking start but not a JSON-RPC message (a JSON log line, a torn
			// line): noise, and the session goes on.
			c.noise(f.data)
			c.tap.Emit(Event{Kind: KindNoise, Dir: Recv, Data: f.data})
			return nil
		}
	}
	c.tap.Emit(Event{Kind: KindMessage, Dir: Recv, Data: f.data, Framing: f.framing})
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
			pr.capture.add(pr.method, data)
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
	if isDiscover && c.opts.NoDiscoverProbe {
		return
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
			if n, err := unreadInput(p.stdin); err != nil || n > 0 {
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
			c.restartContentLength()
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

func (c *StdioConn) restartContentLength() {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.mu.Lock()
	if c.restarted || c.framingKnown || c.closing {
		c.mu.Unlock()
		return
	}
	c.restarted = true
	old := c.proc
	c.gen++ // output of the old process is ignored from here on
	c.writeFraming = FramingContentLength
	var resend [][]byte
	for _, k := range c.order {
		resend = append(resend, c.pending[k].data)
	}
	c.mu.Unlock()
	c.tap.Emit(Event{Kind: KindSynthetic, Text: fmt.Sprintf("no reply to NDJSON within %v of the server reading it; restarting it with Content-Length framing", c.opts.ProbeTimeout)})
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
		c.tap.Emit(Event{Kind: KindMessage, Dir: Send, Data: data, Framing: FramingContentLength})
		if _, err := p.stdin.Write(encodeFrame(FramingContentLength, data)); err != nil {
			return
		}
	}
}

// Close implements mcp.Connection: it ends the server and returns once it is reaped.
func (c *StdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.writeMu.Lock() // no restart may start a new process after this
		c.mu.Lock()
		p := c.proc
		c.closing = true
		c.mu.Unlock()
		c.writeMu.Unlock()
		p.stop(c.opts.Grace)
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

// LastStderr returns the server's last stderr lines (at most 20). When the server has
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
	req := &jsonrpc.Request{ID: jid, Method: method, Params: params}
	data, err := jsonrpc.EncodeMessage(req)
	if err != nil {
		return nil, err
	}
	if err := c.writeFrame(data); err != nil {
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

// ring keeps the last n lines.
type ring struct {
	mu   sync.Mutex
	buf  []string
	next int
	full bool
}

func newRing(n int) *ring { return &ring{buf: make([]string, n)} }

func (r *ring) add(s string) {
	r.mu.Lock()
	r.buf[r.next] = s
	r.next = (r.next + 1) % len(r.buf)
	if r.next == 0 {
		r.full = true
	}
	r.mu.Unlock()
}

func (r *ring) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]string(nil), r.buf[:r.next]...)
	}
	return append(append([]string(nil), r.buf[r.next:]...), r.buf[:r.next]...)
}

// Framing is the framing mcpscope writes in now.
func (c *StdioConn) Framing() Framing {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writeFraming
}
