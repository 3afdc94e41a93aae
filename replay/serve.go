package replay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/record"
)

// Stdio framings for ServeStdio.
const (
	FramingAuto          = "auto"           // answer in the framing of the client's first frame
	FramingNDJSON        = "ndjson"         // one message a line
	FramingContentLength = "content-length" // LSP-style header blocks
)

// MaxFrame bounds one incoming message.
const MaxFrame = 64 << 20

// ServeStdio serves m over in and out until in ends (nil) or ctx is cancelled.
// Incoming frames are read in either framing; replies use framing, or with
// FramingAuto the framing of the client's first frame.
func ServeStdio(ctx context.Context, m *Mock, in io.Reader, out io.Writer, framing string) error {
	switch framing {
	case "", FramingAuto, FramingNDJSON, FramingContentLength:
	default:
		return fmt.Errorf("unknown framing %q: use auto, ndjson or content-length", framing)
	}
	errc := make(chan error, 1)
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		w := &frameWriter{w: out, framing: framing}
		for {
			frame, cl, err := readFrame(br)
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				errc <- err
				return
			}
			if w.framing == "" || w.framing == FramingAuto {
				w.framing = FramingNDJSON
				if cl {
					w.framing = FramingContentLength
				}
			}
			var replies [][]byte
			if !json.Valid(frame) {
				replies = [][]byte{errorResponse(json.RawMessage("null"), -32700, "Parse error: not JSON", nil)}
			} else {
				replies = m.Handle(frame)
			}
			for _, r := range replies {
				if err := w.write(r); err != nil {
					errc <- fmt.Errorf("writing to stdout: %w", err)
					return
				}
			}
		}
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

type frameWriter struct {
	mu      sync.Mutex
	w       io.Writer
	framing string
	buf     []byte
}

func (f *frameWriter) write(msg []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf = f.buf[:0]
	if f.framing == FramingContentLength {
		f.buf = append(f.buf, "Content-Length: "...)
		f.buf = strconv.AppendInt(f.buf, int64(len(msg)), 10)
		f.buf = append(f.buf, "\r\n\r\n"...)
		f.buf = append(f.buf, msg...)
	} else {
		f.buf = append(append(f.buf, msg...), '\n')
	}
	_, err := f.w.Write(f.buf)
	return err
}

// readFrame reads the next message in either framing: a line starting with { or [, or
// a Content-Length header block and its body. Blank lines are skipped; another line is
// returned as it is (the caller answers it with a parse error).
func readFrame(br *bufio.Reader) (frame []byte, contentLength bool, err error) {
	for {
		line, err := readLine(br)
		if err != nil && len(line) == 0 {
			return nil, false, err
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			if err != nil {
				return nil, false, err
			}
			continue
		}
		name, value, ok := bytes.Cut(t, []byte(":"))
		if ok && bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			n, perr := strconv.Atoi(string(bytes.TrimSpace(value)))
			if perr != nil || n < 0 || n > MaxFrame {
				return t, false, nil
			}
			// Further headers up to a blank line.
			for {
				h, herr := readLine(br)
				if len(bytes.TrimSpace(h)) == 0 {
					if herr != nil {
						return nil, true, io.ErrUnexpectedEOF
					}
					break
				}
				if herr != nil {
					return nil, true, io.ErrUnexpectedEOF
				}
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(br, body); err != nil {
				return nil, true, io.ErrUnexpectedEOF
			}
			return body, true, nil
		}
		return t, false, nil
	}
}

func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > MaxFrame {
			return nil, fmt.Errorf("a line longer than %d bytes", MaxFrame)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, err
	}
}

// HTTPHandler serves m as stateless Streamable HTTP at /mcp for clients of both eras:
// POST only (GET and DELETE get 405), no sessions, a JSON response, or an SSE stream
// when notifications come with the response and the client accepts one. Requests with
// an Origin that is not loopback get 403, as the bundled host does.
func (m *Mock) HTTPHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", m.serveHTTP)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok\n")
	})
	return mux
}

func (m *Mock) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); origin != "" && !loopbackOrigin(origin) {
		http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not a loopback origin", origin), http.StatusForbidden)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "Method Not Allowed: this mock server is stateless (POST only)", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxFrame))
	if err != nil {
		http.Error(w, "request body too large or unreadable", http.StatusRequestEntityTooLarge)
		return
	}
	if !json.Valid(body) {
		writeJSON(w, http.StatusBadRequest, errorResponse(json.RawMessage("null"), -32700, "Parse error: not JSON", nil))
		return
	}
	var env record.Message
	_ = json.Unmarshal(body, &env)
	if !env.IsRequest() {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	replies := m.Handle(body)
	if len(replies) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	sse := strings.Contains(r.Header.Get("Accept"), "text/event-stream")
	if env.Method == "subscriptions/listen" {
		if !sse {
			writeJSON(w, http.StatusNotAcceptable, errorResponse(env.ID, -32600, "subscriptions/listen needs Accept: text/event-stream", nil))
			return
		}
		startSSE(w)
		for _, msg := range replies {
			writeEvent(w, msg)
		}
		<-r.Context().Done() // open until the client closes it
		return
	}
	if len(replies) == 1 || !sse {
		last := replies[len(replies)-1]
		status := http.StatusOK
		if env.Method != "" && methodNotFound(last) {
			status = http.StatusNotFound
		}
		writeJSON(w, status, last)
		return
	}
	startSSE(w)
	for _, msg := range replies {
		writeEvent(w, msg)
	}
}

func methodNotFound(resp []byte) bool {
	var r struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	return json.Unmarshal(resp, &r) == nil && r.Error != nil && r.Error.Code == -32601
}

func writeJSON(w http.ResponseWriter, status int, msg []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(msg)
}

func startSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeEvent(w http.ResponseWriter, msg []byte) {
	fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	return h == "127.0.0.1" || h == "::1" || strings.HasPrefix(h, "127.")
}
