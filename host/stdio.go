package host

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/internal/pollread"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Framings for ServeStdio.
const (
	FramingNDJSON        = "ndjson"
	FramingContentLength = "content-length"
)

// MaxFrameBytes bounds one incoming message on stdio.
const MaxFrameBytes = 64 << 20

// DrainTimeout bounds how long the host keeps answering requests it has already read
// after stdin ends, so that "printf '…' | mcpscope host" gets its answers while a host
// whose client went away still exits promptly.
const DrainTimeout = 3 * time.Second

// ServeStdio serves s over in and out until in ends or ctx is cancelled. framing is
// "ndjson" (the MCP standard, also the default for "") or "content-length" (LSP-style
// "Content-Length: N\r\n\r\n<body>" frames in both directions). It returns nil when the
// client closes in.
//
// When in is an *os.File (os.Stdin) on a pipe or a socket, it is read through the
// runtime's poller rather than with blocking reads (see package pollread: with a
// blocking read, a garbage collection that starts as the host goes back to waiting
// for the next request can freeze the host for 60 s, or until the client writes again).
func ServeStdio(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer, framing string) error {
	if f, ok := in.(*os.File); ok {
		r, undo := pollread.Stdin(f)
		defer undo()
		in = r
	}
	var t mcp.Transport
	switch framing {
	case "", FramingNDJSON:
		t = &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}, MaxLineLength: MaxFrameBytes}
	case FramingContentLength:
		t = &ContentLengthTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}
	default:
		return fmt.Errorf("unknown framing %q: use %q or %q", framing, FramingNDJSON, FramingContentLength)
	}
	err := s.Run(ctx, &drainTransport{t})
	if ctx.Err() == nil && isEOF(err) {
		return nil
	}
	return err
}

func isEOF(err error) bool {
	return err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, mcp.ErrConnectionClosed)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// ContentLengthTransport is an mcp.Transport that frames messages the way the Language
// Server Protocol does: a header block holding "Content-Length: N" (other headers are
// ignored), an empty line, then N bytes of JSON. It accepts "\r\n" or "\n" line ends
// and writes "\r\n". A frame whose body is not JSON-RPC is answered with a -32700 parse
// error and the connection keeps going. It serves a client as well as a server; closing
// the connection closes Reader and Writer if they are io.Closers.
type ContentLengthTransport struct {
	Reader io.Reader
	Writer io.Writer
	// MaxFrame bounds one incoming body; zero means MaxFrameBytes.
	MaxFrame int
}

// Connect implements mcp.Transport.
func (t *ContentLengthTransport) Connect(context.Context) (mcp.Connection, error) {
	max := t.MaxFrame
	if max <= 0 {
		max = MaxFrameBytes
	}
	c := &clConn{r: t.Reader, w: t.Writer, incoming: make(chan readResult), closed: make(chan struct{})}
	go c.readLoop(bufio.NewReader(t.Reader), max)
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

type clConn struct {
	writeMu  sync.Mutex
	r        io.Reader
	w        io.Writer
	incoming chan readResult
	closed   chan struct{}
	once     sync.Once
}

func (c *clConn) readLoop(r *bufio.Reader, max int) {
	for {
		body, err := readFrame(r, max)
		var res readResult
		if err != nil {
			res.err = err
		} else if msg, derr := jsonrpc.DecodeMessage(body); derr != nil {
			// Answer and keep reading: a client under development should see why.
			_ = c.Write(context.Background(), &jsonrpc.Response{Error: &jsonrpc.Error{
				Code: jsonrpc.CodeParseError, Message: fmt.Sprintf("frame body is not a JSON-RPC message: %v", derr),
			}})
			continue
		} else {
			res.msg = msg
		}
		select {
		case c.incoming <- res:
		case <-c.closed:
			return
		}
		if res.err != nil {
			return
		}
	}
}

// readFrame reads one header block and its body.
func readFrame(r *bufio.Reader, max int) ([]byte, error) {
	length := -1
	sawHeader := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if err == io.EOF && !sawHeader && strings.TrimSpace(line) == "" {
				return nil, io.EOF
			}
			if err == io.EOF {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if !sawHeader {
				continue // blank lines between frames
			}
			break
		}
		if !sawHeader && (line[0] == '{' || line[0] == '[') {
			return nil, fmt.Errorf("content-length framing: got a bare JSON line; the client seems to use NDJSON framing (serve without --framing content-length)")
		}
		sawHeader = true
		name, value, ok := strings.Cut(line, ":")
		if !ok || !isToken(name) {
			return nil, fmt.Errorf("content-length framing: bad header line %q (want \"Content-Length: N\")", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("content-length framing: bad Content-Length %q", value)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, errors.New("content-length framing: header block without Content-Length")
	}
	if length > max {
		return nil, fmt.Errorf("content-length framing: frame of %d bytes exceeds the %d-byte limit", length, max)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("content-length framing: reading a %d-byte body: %w", length, err)
	}
	return body, nil
}

// isToken reports whether s is an RFC 9110 header field name.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 0x7e || r <= ' ' || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return false
		}
	}
	return true
}

func (c *clConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *clConn) Write(_ context.Context, msg jsonrpc.Message) error {
	body, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	var frame bytes.Buffer
	frame.Grow(len(body) + 32)
	fmt.Fprintf(&frame, "Content-Length: %d\r\n\r\n", len(body))
	frame.Write(body)
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.closed:
		return mcp.ErrConnectionClosed
	default:
	}
	_, err = c.w.Write(frame.Bytes())
	return err
}

func (c *clConn) Close() error {
	var errs []error
	c.once.Do(func() {
		close(c.closed)
		// No write lock: closing the writer is what unblocks a stuck Write.
		if wc, ok := c.w.(io.Closer); ok {
			errs = append(errs, wc.Close())
		}
		if rc, ok := c.r.(io.Closer); ok {
			errs = append(errs, rc.Close())
		}
	})
	return errors.Join(errs...)
}

func (c *clConn) SessionID() string { return "" }

// drainTransport wraps a transport so that, when the input ends, the connection reports
// the end only once the requests already read have been answered (or DrainTimeout has
// passed). Without it the SDK drops in-flight requests on EOF. It also keeps a
// tools/call's params.task where the SDK's decoding leaves it (liftTaskParam).
type drainTransport struct{ mcp.Transport }

func (t *drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainConn{Connection: c, pending: make(map[jsonrpc.ID]struct{}), idle: make(chan struct{}, 1)}, nil
}

type drainConn struct {
	mcp.Connection
	mu      sync.Mutex
	pending map[jsonrpc.ID]struct{}
	idle    chan struct{} // holds a token when pending has just become empty
}

func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		if isEOF(err) {
			c.drain(ctx)
		}
		return nil, err
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/call" {
		req.Params, _ = liftTaskParam(req.Params)
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		c.pending[req.ID] = struct{}{}
		c.mu.Unlock()
	}
	return msg, nil
}

func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		if _, ok := c.pending[resp.ID]; ok {
			delete(c.pending, resp.ID)
			if len(c.pending) == 0 {
				select {
				case c.idle <- struct{}{}:
				default:
				}
			}
		}
		c.mu.Unlock()
	}
	return err
}

func (c *drainConn) drain(ctx context.Context) {
	timer := time.NewTimer(DrainTimeout)
	defer timer.Stop()
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.idle:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}
