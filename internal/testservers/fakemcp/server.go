package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// JSON-RPC error codes used here.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

// request is an incoming message. The id stays raw so it can be echoed byte for byte;
// an absent id (len 0) marks a notification, while "id":null arrives as "null".
type request struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// response is an outgoing reply. JSONRPC is omitempty so the no-jsonrpc scenario can
// drop it; Result is an interface so an empty object ({}) is still written.
type response struct {
	JSONRPC string          `json:"jsonrpc,omitempty"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type notification struct {
	JSONRPC string `json:"jsonrpc,omitempty"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// server is the normal MCP server; scenario checks in its methods add the quirks.
type server struct {
	scenario string
	in       *bufio.Reader
	out      io.Writer
	lsp      bool // Content-Length framing instead of NDJSON

	writeMu sync.Mutex // one message at a time on stdout (progress writes concurrently)

	// Calls running in their own goroutine (the progress scenario's slow tool).
	inflight sync.WaitGroup
	runMu    sync.Mutex
	running  map[string]chan struct{} // canonical id -> closed when cancelled

	hugeSent    bool // huge-line: the big line goes out once only
	calls       int  // crash-call: the tools/call requests read
	endlessPage int  // endless: pages sent
	media       media
	asked       asksState // asks: the sampling requests sent

	foreverCancelled bool // primitives: tasks/cancel was asked for t-forever
}

func newServer(scenario string, in io.Reader, out io.Writer) *server {
	s := &server{
		scenario: scenario,
		in:       bufio.NewReader(in),
		out:      out,
		lsp:      scenario == "content-length",
		running:  map[string]chan struct{}{},
	}
	if scenario == "images" {
		s.media = newMedia()
	}
	return s
}

// serve handles messages until stdin reaches EOF and in-flight calls are done. It
// returns an error only if stdin fails in some other way.
func (s *server) serve() error {
	if s.scenario == "banner" {
		s.writeRaw([]byte("Fake MCP server v1.0 ready on stdio\n"))
	}
	for {
		msg, err := s.read()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			s.inflight.Wait()
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading stdin: %w", err)
		}
		s.handle(msg)
	}
}

func (s *server) read() ([]byte, error) {
	if s.lsp {
		return readLSP(s.in)
	}
	return readNDJSON(s.in)
}

// readNDJSON returns the next non-empty line, without its line ending. There is no
// size limit on purpose: the client under test decides how big messages get.
func readNDJSON(r *bufio.Reader) ([]byte, error) {
	for {
		line, err := r.ReadBytes('\n')
		line = bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil // a last line without "\n" still counts; EOF comes next call
		}
		if err != nil {
			return nil, err
		}
	}
}

// readLSP returns the body of the next "Content-Length: N\r\n\r\n" frame. Anything that
// is not part of a header block (an NDJSON line, say) is dropped silently: this server
// is deaf to other framings, as some real ones are.
func readLSP(r *bufio.Reader) ([]byte, error) {
	length := -1 // -1 until a valid Content-Length header is seen in this block
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil, err // a partial header line at EOF is not a frame
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) == 0 {
			if length < 0 {
				continue // a blank line outside a header block
			}
			body := make([]byte, length)
			if _, err := io.ReadFull(r, body); err != nil {
				return nil, err
			}
			return body, nil
		}
		name, value, ok := parseHeader(string(line))
		switch {
		case !ok:
			length = -1 // not a header: forget any half-read block
		case strings.EqualFold(name, "Content-Length"):
			n, err := strconv.Atoi(value)
			if err != nil || n < 0 {
				length = -1
			} else {
				length = n
			}
		}
		// Other headers (Content-Type) are allowed and ignored.
	}
}

// parseHeader splits "Name: value" and checks that Name is an HTTP token, which rules
// out JSON lines such as {"a":1} that also contain a colon.
func parseHeader(line string) (name, value string, ok bool) {
	name, value, ok = strings.Cut(line, ":")
	if !ok || name == "" {
		return "", "", false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return "", "", false
		}
	}
	return name, strings.TrimSpace(value), true
}

// handle dispatches one message. Everything but progress's slow tool is answered
// synchronously, so replies come out in request order.
func (s *server) handle(msg []byte) {
	if !json.Valid(msg) {
		s.replyError(json.RawMessage("null"), codeParseError, "Parse error")
		return
	}
	var req request
	if err := json.Unmarshal(msg, &req); err != nil {
		s.replyError(json.RawMessage("null"), codeInvalidRequest, "Invalid Request: "+err.Error())
		return
	}
	if s.skills(req.ID, req, msg) {
		return // the skills scenario (it also reads the client's answer to its question)
	}
	if s.skillDirs(req.ID, req) {
		return // the skill-dirs scenario (skilldirs.go)
	}
	if req.Method == "" {
		s.completionResponse(msg) // the completion scenario's answers
		if s.scenario == "asks" {
			s.asksResponse(msg) // the answer to a sampling request (asks.go)
		}
		return // a response from the client; no other scenario asks anything
	}
	if len(req.ID) == 0 {
		s.handleNotification(req)
		return
	}
	id := req.ID
	if s.primitives(id, req) || s.completionContext(id, req) || s.asks(id, req) {
		return
	}
	switch req.Method {
	case "server/discover":
		if s.scenario == "discover-silent" {
			return
		}
		s.replyError(id, codeMethodNotFound, "Method not found: server/discover")
	case "initialize":
		if s.scenario == "log-burst" {
			s.logBurst() // before the answer: the client has them all before it is connected
		}
		s.reply(id, s.initialize(req.Params))
		if s.scenario == "flood" {
			go s.flood()
		}
	case "ping":
		s.reply(id, struct{}{})
	case "tools/list":
		if s.scenario == "crash-list" {
			fmt.Fprintln(os.Stderr, "panic: assignment to entry in nil map")
			fmt.Fprintln(os.Stderr, "goroutine 1 [running]: main.listTools()")
			os.Exit(3)
		}
		if s.scenario == "huge-line" && !s.hugeSent {
			s.hugeSent = true
			s.writeHugeLine()
		}
		result, rerr := s.listTools(req.Params)
		s.answer(id, result, rerr)
	case "tools/call":
		if s.calls++; s.scenario == "crash-call" && s.calls == 3 {
			fmt.Fprintln(os.Stderr, "fakemcp: segmentation fault in call 3")
			os.Exit(139)
		}
		if s.scenario == "midnoise" {
			s.writeRaw([]byte("DEBUG: handling tools/call\n"))
		}
		if s.scenario == "deaf" {
			for { // reads nothing more: the client's writes fill the pipe
				time.Sleep(time.Hour)
			}
		}
		if s.scenario == "deep" {
			// The answer is valid JSON, nested far deeper than any decoder accepts.
			const n = 1000000
			s.writeRaw([]byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"content":[],"x":` +
				strings.Repeat("[", n) + strings.Repeat("]", n) + "}}\n"))
			return
		}
		if s.scenario == "stray" {
			s.writeRaw([]byte(`{"jsonrpc":"2.0","id":424242,"result":{"content":[]}}` + "\n"))
		}
		s.callTool(id, req.Params)
		if s.scenario == "stray" {
			s.callTool(id, req.Params) // the same reply again: a second answer to one id
		}
	default:
		s.replyError(id, codeMethodNotFound, "Method not found: "+req.Method)
	}
}

func (s *server) handleNotification(req request) {
	if req.Method != "notifications/cancelled" {
		return // notifications/initialized and anything else need nothing
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(req.Params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	s.runMu.Lock()
	defer s.runMu.Unlock()
	key := canonicalID(p.RequestID)
	if ch, ok := s.running[key]; ok {
		delete(s.running, key) // deleting first means a second cancel cannot close twice
		close(ch)
	}
}

// canonicalID makes 7 and " 7 " (and the same id in a cancel notification) compare
// equal, while "7" the string stays distinct from 7 the number.
func canonicalID(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

// supportedVersions are the protocol versions this server can speak.
var supportedVersions = map[string]bool{
	"2024-11-05": true,
	"2025-03-26": true,
	"2025-06-18": true,
	"2025-11-25": true,
}

func (s *server) initialize(params json.RawMessage) any {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(params, &p) // bad params just mean "no version offered"
	version := "2025-11-25"
	if supportedVersions[p.ProtocolVersion] {
		version = p.ProtocolVersion
	}
	if s.lsp {
		version = "2024-11-05" // an old server that knows nothing newer
	}
	result := map[string]any{
		"protocolVersion": version,
		"capabilities": map[string]any{
			"tools":   map[string]any{"listChanged": false},
			"logging": map[string]any{},
		},
		"serverInfo":   map[string]any{"name": "fakemcp", "version": "1.0.0"},
		"instructions": "fake server for tests: " + s.scenario,
	}
	if s.scenario == "hostile" {
		info := result["serverInfo"].(map[string]any)
		info["name"] = "fakemcp\x1b]2;name-title\x07\u202e"
		info["title"] = "Fake \x1b]52;c;dGl0bGU=\x07"
		info["description"] = "A server. " + hostilePayload
		info["websiteUrl"] = "https://evil.example/\x1b]2;site-title\x07"
		info["icons"] = []map[string]any{
			{"src": "https://evil.example/i.png\x1b]52;c;aWNvbg==\x07", "mimeType": "image/png\x1b[8m", "sizes": []string{"48x48\u202e"}},
			{"src": "data:image/svg+xml;base64,\x1b]2;data-title\x07" + strings.Repeat("A", 5000)},
		}
		result["instructions"] = "Use me.\n" + hostilePayload
	}
	return result
}

func (s *server) answer(id json.RawMessage, result any, rerr *rpcError) {
	if rerr != nil {
		s.write(s.response(id, nil, rerr))
		return
	}
	s.reply(id, result)
}

func (s *server) reply(id json.RawMessage, result any) {
	s.write(s.response(id, result, nil))
}

func (s *server) replyError(id json.RawMessage, code int, message string) {
	s.write(s.response(id, nil, &rpcError{Code: code, Message: message}))
}

// response builds a reply, applying the scenarios that tamper with the envelope.
func (s *server) response(id json.RawMessage, result any, rerr *rpcError) response {
	resp := response{JSONRPC: s.jsonrpc(), ID: id, Result: result, Error: rerr}
	if s.scenario == "string-id" && len(id) > 0 && (id[0] == '-' || id[0] >= '0' && id[0] <= '9') {
		resp.ID = json.RawMessage(strconv.Quote(canonicalID(id)))
	}
	return resp
}

func (s *server) notify(method string, params any) {
	s.write(notification{JSONRPC: s.jsonrpc(), Method: method, Params: params})
}

func (s *server) jsonrpc() string {
	if s.scenario == "no-jsonrpc" {
		return ""
	}
	return "2.0"
}

// write encodes msg once and sends it as a single frame.
func (s *server) write(msg any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep "<" and "&" readable in echoed text
	if err := enc.Encode(msg); err != nil {
		fmt.Fprintf(os.Stderr, "fakemcp: encoding reply: %v\n", err)
		os.Exit(1)
	}
	frame := buf.Bytes() // NDJSON: Encode already ended it with "\n"
	if s.lsp {
		body := bytes.TrimSuffix(frame, []byte("\n"))
		frame = append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))), body...)
	}
	if s.scenario == "empty-lines" {
		frame = append([]byte("\n"), frame...)
	}
	s.writeRaw(frame)
}

// writeRaw writes bytes to stdout unbuffered, so every message is flushed at once.
func (s *server) writeRaw(b []byte) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	mustWrite(s.out, b)
}

// writeHugeLine writes a 500 MiB line of 'x' in 1 MiB chunks: the client must cope
// with it, but this process should not need 500 MiB of memory to produce it.
func (s *server) writeHugeLine() {
	chunk := bytes.Repeat([]byte{'x'}, 1<<20)
	s.writeMu.Lock() // held throughout so nothing can land inside the line
	defer s.writeMu.Unlock()
	for range 500 {
		mustWrite(s.out, chunk)
	}
	mustWrite(s.out, []byte("\n"))
}

// mustWrite exits when stdout is gone: there is nobody left to serve.
func mustWrite(w io.Writer, b []byte) {
	if _, err := w.Write(b); err != nil {
		fmt.Fprintf(os.Stderr, "fakemcp: writing stdout: %v\n", err)
		os.Exit(1)
	}
}

// logBurst sends $FAKEMCP_LOGS (default 1000) log notifications as fast as stdout
// takes them, the last one "log burst done": what the log benchmark (scripts/bench-logs)
// times, and what the start of a chatty server looks like.
func (s *server) logBurst() {
	n, err := strconv.Atoi(os.Getenv("FAKEMCP_LOGS"))
	if err != nil || n < 1 {
		n = 1000
	}
	if s.lsp { // Content-Length frames: one write each, as any other frame
		for i := 1; i < n; i++ {
			s.notify("notifications/message", map[string]any{"level": "info", "logger": "burst", "data": fmt.Sprintf("burst message %d", i)})
		}
		s.notify("notifications/message", map[string]any{"level": "info", "logger": "burst", "data": "log burst done"})
		return
	}
	// As fast as a server can: the frames written in 64 KiB blocks, not a write
	// each, so that scripts/bench-logs measures the client's reading, not this
	// process's system calls.
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	w := bufio.NewWriterSize(s.out, 64<<10)
	for i := 1; i < n; i++ {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"burst message %d","level":"info","logger":"burst"}}`+"\n", i)
	}
	w.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"log burst done","level":"info","logger":"burst"}}` + "\n")
	if err := w.Flush(); err != nil {
		os.Exit(1) // the client is gone
	}
}

// flood sends log notifications about every millisecond until the process ends (a
// write to a closed stdout exits it).
func (s *server) flood() {
	for i := 1; ; i++ {
		s.notify("notifications/message", map[string]any{"level": "info", "logger": "flood", "data": fmt.Sprintf("flood message %d", i)})
		time.Sleep(time.Millisecond)
	}
}
