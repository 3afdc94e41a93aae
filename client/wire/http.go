package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/redact"
	"github.com/mcpscope/mcpscope/internal/sse"
)

// KindHTTP is an event of an HTTP transport that is not itself a JSON-RPC message: a
// request's method, URL and headers (Dir Send); a response's status and headers (Dir
// Recv); a body that is not a JSON-RPC message (an HTML error page); a server-sent event
// that carries no message (a priming event, the legacy "endpoint" event); the end of an
// SSE stream, or a failed exchange. Event.HTTP says which exchange it belongs to.
const KindHTTP Kind = "http"

// Framings of messages on HTTP transports (Event.Framing of a KindMessage event).
const (
	// FramingHTTP: the message is the whole body of an HTTP request or response.
	FramingHTTP Framing = "http"
	// FramingSSE: the message is the data of one server-sent event.
	FramingSSE Framing = "sse"
)

// Redacted replaces secret values in events: header values, URL query values, and any
// occurrence of a value marked secret.
const Redacted = redact.Redacted

// HTTPInfo is the HTTP side of an event on an HTTP transport (Event.HTTP). Every event
// of one request/response exchange carries the same Exchange number, method and URL.
type HTTPInfo struct {
	// Exchange numbers the HTTP exchanges of a tap from 1, in the order they started.
	Exchange int
	Method   string // the request's method: POST, GET, DELETE
	URL      string // the request's URL, with secret query values redacted
	// Status is the response status; 0 on the request's events and on a failed exchange.
	Status int
	// Header is set on the request event (request headers) and the response event
	// (response headers) only. Secret values are replaced by Redacted.
	Header http.Header
	// SSE is set on events read from a text/event-stream body.
	SSE *SSEInfo
	// Error says why the exchange failed without a (complete) response: a connection
	// refused, a timeout, a body over the size limit, a stream cut off.
	Error string
}

// SSEInfo holds the fields of one server-sent event other than its data.
type SSEInfo struct {
	ID    string // the id field; "" when absent
	Event string // the event field; "" means "message"
	Retry string // the retry field, in milliseconds, as sent
}

// HTTPOptions configures an HTTPTap.
type HTTPOptions struct {
	// Base does the real round trips; nil means a transport cloned from
	// http.DefaultTransport.
	Base http.RoundTripper
	Tap  *Tap
	// Header is added to every request, except where the SDK has set the same header
	// (the protocol's own headers win).
	Header http.Header
	// Secrets are values never to appear in an event (tokens the user gave); they are
	// replaced by Redacted in headers, URLs and bodies, and so are their encoded and
	// case-changed copies (the rules of package internal/redact).
	Secrets []string
	// Origin is the origin (scheme://host:port) the credentials are for: the target
	// URL's. Credential headers (Authorization, Cookie, X-Api-Key… of Header or of the
	// request) never go to another origin: a request there (a redirect, a legacy
	// endpoint) that would carry them fails with a *CrossOriginError, or, with
	// AllowCrossOrigin, goes without them. "" means the origin of the first request.
	Origin string
	// AllowCrossOrigin sends requests to other origins without credentials instead of
	// refusing them (--allow-cross-origin).
	AllowCrossOrigin bool
	// Auth, when set, supplies OAuth tokens for the credentials' origin (never
	// another) and answers a 401 or 403 (a login), after which the request is sent
	// again. A request that already carries Authorization (--bearer) is left alone.
	Auth Authorizer
	// MaxBody bounds a response body or a single server-sent event (DefaultMaxFrame
	// when 0). A bigger one fails the exchange with a *TooLargeError.
	MaxBody int
	// HeaderTimeout bounds the wait for the response headers of a GET (the event
	// streams the SDK opens on its own). A standalone GET stream that times out is
	// answered with a synthetic 405, so the session goes on without it. 0: no bound.
	HeaderTimeout time.Duration
	// Meta goes into params._meta of every request sent (meta.go).
	Meta RequestMeta
}

// HTTPTap is an http.RoundTripper that turns every request and response into events,
// adds the user's headers, hands captured responses to the Capture of the request's
// context (wire.WithCapture) by JSON-RPC id, whatever stream they arrive on, and
// records what went wrong for error messages.
type HTTPTap struct {
	opts     HTTPOptions
	exchange atomic.Int64

	mu       sync.Mutex
	pending  map[string]pendingHTTP // JSON-RPC requests sent, by id, until answered
	waiters  map[string]chan json.RawMessage
	problems []HTTPProblem
	endpoint string // the legacy HTTP+SSE message endpoint, from the "endpoint" event
	rawSeq   int
	origin   string          // see HTTPOptions.Origin
	crossed  map[string]bool // other origins already reached without credentials

	secrets  atomic.Pointer[redact.Set]
	secretMu sync.Mutex // serializes AddSecret
}

// Authorizer supplies OAuth tokens to an HTTPTap (package oauth's Manager).
type Authorizer interface {
	// Token returns the access token to send; "" for none yet.
	Token(ctx context.Context) (string, error)
	// Challenge answers a 401 or 403 (its headers; sent is the token the request
	// carried): retry says to send the request again with Token's new value; an
	// error says why not (it becomes the session's error).
	Challenge(ctx context.Context, status int, header http.Header, sent string) (retry bool, err error)
}

// RequestAuthorizer is an Authorizer that sets each request's credentials itself:
// a sender-constrained token (DPoP, RFC 9449) goes under its own scheme with a
// proof made for that one request (its method and URL, a fresh jti), so the tap
// cannot write "Bearer TOKEN" for it. Package oauth's Manager is one.
type RequestAuthorizer interface {
	Authorizer
	// Authorize sets the Authorization header (and a DPoP proof) of one try of a
	// request for the token Token gave.
	Authorize(req *http.Request, token string) error
	// Answered sees each answer to such a request; true: the server wants it sent
	// again with a nonce it just gave (use_dpop_nonce), which Authorize puts in the
	// next proof. The tap sends a request again for that once.
	Answered(req *http.Request, status int, header http.Header) bool
}

// AddSecret adds a value never to appear in an event (a token learned during the
// session); safe for concurrent use.
func (t *HTTPTap) AddSecret(v string) {
	t.secretMu.Lock()
	defer t.secretMu.Unlock()
	cur := t.secrets.Load()
	if cur.Has(v) {
		return
	}
	t.secrets.Store(cur.With(v))
}

type pendingHTTP struct {
	method  string
	capture *Capture
}

// NewHTTPTap returns a tap with the given options.
func NewHTTPTap(opts HTTPOptions) *HTTPTap {
	if opts.Base == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.ResponseHeaderTimeout = 0
		opts.Base = t
	}
	if opts.Tap == nil {
		opts.Tap = &Tap{}
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxFrame
	}
	t := &HTTPTap{opts: opts, pending: map[string]pendingHTTP{}, waiters: map[string]chan json.RawMessage{},
		crossed: map[string]bool{}}
	t.secrets.Store(redact.NewSet(opts.Secrets...))
	if opts.Origin != "" {
		if u, err := url.Parse(opts.Origin); err == nil {
			t.origin = Origin(u)
		}
	}
	return t
}

// Origin is a URL's origin as scheme://host[:port], lower case, without the scheme's
// default port (http://h and http://h:80 are one origin).
func Origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	port := u.Port()
	if port == "" || (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		return scheme + "://" + host
	}
	return scheme + "://" + host + ":" + port
}

// CrossOriginError is a request to another origin than the one the credentials are
// for, refused because it would have carried them.
type CrossOriginError struct {
	From, To string // the credentials' origin; the other one
	// Via says how the request came about: "redirect", "endpoint" (the legacy
	// HTTP+SSE endpoint event named it), or "request".
	Via    string
	Status int    // the redirect's status
	URL    string // the request's URL (redacted)
	Prev   string // for a redirect: the URL that redirected (redacted)
	Header []string
}

func (e *CrossOriginError) Error() string {
	var what string
	switch e.Via {
	case "redirect":
		what = fmt.Sprintf("the server redirected %s (HTTP %d) to %s", e.Prev, e.Status, e.URL)
	case "endpoint":
		what = fmt.Sprintf("the legacy HTTP+SSE server's endpoint event names %s", e.URL)
	default:
		what = "a request went to " + e.URL
	}
	return fmt.Sprintf("%s, another origin (%s, not %s); mcpscope did not send it, so that the credentials (%s) stay with %s; pass --allow-cross-origin to send it without them, or give that URL itself if it is meant to get them",
		what, e.To, e.From, strings.Join(e.Header, ", "), e.From)
}

// crossOrigin handles a request to another origin than the credentials': it strips
// credential headers, or refuses the request when they would have gone and
// AllowCrossOrigin is off. The returned error is for the caller to return.
func (t *HTTPTap) crossOrigin(req *http.Request, origin string, x *exchange) error {
	var creds []string
	seen := map[string]bool{}
	note := func(k string) {
		if !seen[k] {
			seen[k] = true
			creds = append(creds, k)
		}
	}
	for k := range t.opts.Header {
		if redact.CredentialHeader(k) {
			note(http.CanonicalHeaderKey(k))
		}
	}
	for k := range req.Header {
		if redact.CredentialHeader(k) {
			note(http.CanonicalHeaderKey(k))
			delete(req.Header, k)
		}
	}
	if req.URL.User != nil {
		note("the URL's user info")
		req.URL.User = nil
	}
	for k, vs := range t.opts.Header {
		if _, set := req.Header[k]; !set && !redact.CredentialHeader(k) {
			req.Header[k] = append([]string(nil), vs...)
		}
	}
	if len(creds) == 0 {
		return nil
	}
	slices.Sort(creds)
	e := &CrossOriginError{From: t.origin, To: origin, Via: "request", URL: x.url, Header: creds}
	if prev := req.Response; prev != nil && prev.Request != nil {
		e.Via, e.Status, e.Prev = "redirect", prev.StatusCode, t.redactURL(prev.Request.URL)
	} else if ep := t.Endpoint(); ep != "" && sameURL(ep, req.URL) {
		e.Via = "endpoint"
	}
	if !t.opts.AllowCrossOrigin {
		info := x.info()
		info.Header = t.redactHeader(req.Header)
		t.opts.Tap.Emit(Event{Kind: KindHTTP, Dir: Send, HTTP: info, Text: req.Method + " " + x.url + " (not sent: another origin)"})
		t.failed(x, e, "cross-origin")
		return e
	}
	t.mu.Lock()
	first := !t.crossed[origin]
	t.crossed[origin] = true
	t.mu.Unlock()
	if first {
		t.opts.Tap.Emit(Event{Kind: KindSynthetic, HTTP: x.info(), Text: fmt.Sprintf("%s is another origin than %s; sending to it without the credentials (%s), as --allow-cross-origin says",
			origin, t.origin, strings.Join(creds, ", "))})
	}
	return nil
}

func sameURL(s string, u *url.URL) bool {
	v, err := url.Parse(s)
	return err == nil && Origin(v) == Origin(u) && v.Path == u.Path
}

// Tap returns the event fan-out.
func (t *HTTPTap) Tap() *Tap { return t.opts.Tap }

// Client returns an http.Client that sends through the tap.
func (t *HTTPTap) Client() *http.Client { return &http.Client{Transport: t} }

// CloseIdleConnections closes the base transport's idle connections.
func (t *HTTPTap) CloseIdleConnections() {
	if c, ok := t.opts.Base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// Endpoint is the message endpoint a legacy HTTP+SSE server announced, resolved
// against the URL of its event stream; "" before one arrived.
func (t *HTTPTap) Endpoint() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.endpoint
}

// HTTPProblem is what went wrong with one HTTP exchange, as the tap saw it.
type HTTPProblem struct {
	Exchange    int
	Method      string // HTTP method
	URL         string // redacted
	RPCMethod   string // the JSON-RPC method of the request body, if any
	Status      int    // 0 when there was no response
	ContentType string
	// WWWAuthenticate holds the WWW-Authenticate header values of a 401 or 403.
	WWWAuthenticate []string
	Body            []byte // the start of the response body (at most 4 KiB), redacted
	// What says what was wrong: "status" (not 2xx), "content-type" (neither JSON nor
	// SSE for a request), "transport" (no response), "too-large", "stream-cut" (an SSE
	// stream ended in the middle of an event), "bad-event" (an SSE event with invalid
	// JSON), "cross-origin" (a request to another origin refused: a *CrossOriginError),
	// "auth" (a 401 or 403 the Authorizer could not answer: Err says why and what to do).
	What string
	Err  string
	// SessionGone is set for a 404 to a request that carried Mcp-Session-Id: the
	// server has ended that session.
	SessionGone bool
}

// Problems returns the problems recorded since mark (see Mark), oldest first.
func (t *HTTPTap) Problems(mark int) []HTTPProblem {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []HTTPProblem
	for _, p := range t.problems {
		if p.Exchange > mark {
			out = append(out, p)
		}
	}
	return out
}

// Mark returns the number of the last exchange started, for Problems.
func (t *HTTPTap) Mark() int { return int(t.exchange.Load()) }

func (t *HTTPTap) problem(p HTTPProblem, capture *Capture) {
	t.mu.Lock()
	t.problems = append(t.problems, p)
	if len(t.problems) > 64 {
		t.problems = append([]HTTPProblem(nil), t.problems[len(t.problems)-32:]...)
	}
	t.mu.Unlock()
	if capture != nil {
		capture.mu.Lock()
		capture.problems = append(capture.problems, p)
		capture.mu.Unlock()
	}
}

// TooLargeError says a response body or an event was bigger than the limit.
type TooLargeError struct {
	What  string // "the response to tools/call", "an SSE event"
	Size  int64  // the size seen so far or announced (-1: unknown)
	Limit int
}

func (e *TooLargeError) Error() string {
	size := "more than " + HumanBytes(int64(e.Limit))
	if e.Size > int64(e.Limit) {
		size = HumanBytes(e.Size)
	}
	return fmt.Sprintf("%s is %s, over the %s limit (--max-frame); raise --max-frame to accept it", e.What, size, HumanBytes(int64(e.Limit)))
}

// exchange is one request/response pair in flight.
type exchange struct {
	n         int
	method    string
	url       string
	rpcMethod string
	capture   *Capture
	sessioned bool // the request carried Mcp-Session-Id
}

func (x *exchange) info() *HTTPInfo {
	return &HTTPInfo{Exchange: x.n, Method: x.method, URL: x.url}
}

// RoundTrip implements http.RoundTripper.
func (t *HTTPTap) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.opts.Auth == nil || req.Header.Get("Authorization") != "" || t.opts.Header.Get("Authorization") != "" {
		return t.roundTrip(req)
	}
	t.mu.Lock()
	if t.origin == "" {
		t.origin = Origin(req.URL)
	}
	home := t.origin
	t.mu.Unlock()
	if Origin(req.URL) != home {
		return t.roundTrip(req) // the token is for the target's origin only
	}
	return t.authorized(req)
}

// authorized sends a request with the Authorizer's token and, on a 401 or 403 that
// it answers with a login, sends it again.
func (t *HTTPTap) authorized(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	ra, _ := t.opts.Auth.(RequestAuthorizer)
	nonceRetried := false
	for try := 0; ; try++ {
		tok, err := t.opts.Auth.Token(ctx)
		if err != nil {
			t.opts.Tap.Emit(Event{Kind: KindSynthetic, Text: "oauth: " + t.redactString(err.Error())})
		}
		r := req.Clone(ctx)
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
			r.ContentLength = int64(len(body))
		}
		if tok != "" {
			t.AddSecret(tok)
			if ra == nil {
				r.Header.Set("Authorization", "Bearer "+tok)
			} else if aerr := ra.Authorize(r, tok); aerr != nil {
				return nil, fmt.Errorf("oauth: %s", t.redactString(aerr.Error()))
			}
		}
		resp, err := t.roundTrip(r)
		if err == nil && ra != nil && tok != "" && ra.Answered(r, resp.StatusCode, resp.Header) && !nonceRetried && try < 8 {
			// RFC 9449 §9: the resource server wants its nonce in the proof; once per
			// request, so that a server that keeps asking ends in its 401.
			nonceRetried = true
			resp.Body.Close()
			t.opts.Tap.Emit(Event{Kind: KindSynthetic, Text: fmt.Sprintf("oauth: the server asked for a DPoP nonce (use_dpop_nonce); sending %s %s again with it", req.Method, t.redactURL(req.URL))})
			continue
		}
		if err != nil || (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) || try >= 8 {
			return resp, err
		}
		retry, aerr := t.opts.Auth.Challenge(ctx, resp.StatusCode, resp.Header, tok)
		if aerr != nil {
			if ctx.Err() != nil {
				resp.Body.Close()
				return nil, ctx.Err()
			}
			msg := t.redactString(aerr.Error())
			t.opts.Tap.Emit(Event{Kind: KindSynthetic, Text: "oauth: " + msg})
			t.problem(HTTPProblem{Exchange: int(t.exchange.Load()), Method: req.Method, URL: t.redactURL(req.URL), Status: resp.StatusCode, What: "auth", Err: msg}, captureFrom(ctx))
			return resp, nil
		}
		if !retry {
			return resp, nil
		}
		resp.Body.Close()
		t.opts.Tap.Emit(Event{Kind: KindSynthetic, Text: fmt.Sprintf("oauth: logged in after HTTP %d; sending %s %s again with the new token", resp.StatusCode, req.Method, t.redactURL(req.URL))})
	}
}

func (t *HTTPTap) roundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	x := &exchange{
		n:         int(t.exchange.Add(1)),
		method:    req.Method,
		url:       t.redactURL(req.URL),
		capture:   captureFrom(req.Context()),
		sessioned: req.Header.Get("Mcp-Session-Id") != "",
	}
	origin := Origin(req.URL)
	t.mu.Lock()
	if t.origin == "" {
		t.origin = origin
	}
	home := t.origin
	t.mu.Unlock()
	if origin != home {
		if req.Body != nil {
			defer req.Body.Close()
		}
		if err := t.crossOrigin(req, origin, x); err != nil {
			return nil, err
		}
	} else {
		for k, vs := range t.opts.Header {
			if _, set := req.Header[k]; !set {
				req.Header[k] = append([]string(nil), vs...)
			}
		}
	}
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		if req.Method == http.MethodPost {
			body = t.opts.Meta.stampBody(body)
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req.ContentLength = int64(len(body))
		// SEP-2243 asks for Mcp-Method on every POST; the SDK leaves it off the legacy
		// initialize, sent before a protocol version is agreed.
		if req.Method == http.MethodPost && req.Header.Get("Mcp-Method") == "" && bytes.Contains(body, []byte(`"initialize"`)) {
			var m struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(body, &m) == nil && m.Method == "initialize" {
				req.Header.Set("Mcp-Method", m.Method)
			}
		}
	}
	info := x.info()
	info.Header = t.redactHeader(req.Header)
	t.opts.Tap.Emit(Event{Kind: KindHTTP, Dir: Send, HTTP: info, Text: req.Method + " " + x.url})
	if len(body) > 0 {
		t.sent(x, body)
	}

	ctx := req.Context()
	var stop context.CancelFunc = func() {}
	var timedOut atomic.Bool
	if req.Method == http.MethodGet && t.opts.HeaderTimeout > 0 {
		var cctx context.Context
		cctx, stop = context.WithCancel(ctx)
		timer := time.AfterFunc(t.opts.HeaderTimeout, func() { timedOut.Store(true); stop() })
		req = req.WithContext(cctx)
		defer timer.Stop()
	}
	resp, err := t.opts.Base.RoundTrip(req)
	if err != nil {
		stop()
		if timedOut.Load() {
			err = fmt.Errorf("no response headers within %v", t.opts.HeaderTimeout)
			// The stream the SDK opens on its own after the handshake: carry on without it.
			if req.Header.Get("Last-Event-ID") == "" && req.Header.Get("Mcp-Protocol-Version") != "" {
				t.failed(x, err, "transport")
				t.opts.Tap.Emit(Event{Kind: KindSynthetic, HTTP: x.info(), Text: fmt.Sprintf("the server sent no headers for its event stream (GET) within %v; going on without that stream (answered 405 for it)", t.opts.HeaderTimeout)})
				return &http.Response{
					Status: "405 Method Not Allowed", StatusCode: http.StatusMethodNotAllowed,
					Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
					Header: http.Header{}, Body: http.NoBody, Request: req, ContentLength: 0,
				}, nil
			}
		}
		t.failed(x, err, "transport")
		return nil, err
	}
	ri := x.info()
	ri.Status = resp.StatusCode
	ri.Header = t.redactHeader(resp.Header)
	ct := resp.Header.Get("Content-Type")
	note := resp.Status
	if ct != "" {
		note += " (" + ct + ")"
	}
	t.opts.Tap.Emit(Event{Kind: KindHTTP, Dir: Recv, HTTP: ri, Text: note})

	mt, _, _ := mime.ParseMediaType(ct)
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	if ok && mt == "text/event-stream" {
		resp.Body = &sseBody{t: t, x: x, rc: resp.Body, max: t.opts.MaxBody, stop: stop, base: req.URL}
		return resp, nil
	}
	// Any other body is read here whole (bounded), so that its event and its captured
	// response are ready before the SDK sees it.
	data, rerr := t.readBody(x, resp)
	resp.Body.Close()
	stop()
	if rerr != nil {
		return nil, rerr
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	if !ok {
		p := HTTPProblem{Exchange: x.n, Method: x.method, URL: x.url, RPCMethod: x.rpcMethod, Status: resp.StatusCode,
			ContentType: ct, Body: t.redactBytes(head(data, 4096)), What: "status", Err: resp.Status,
			SessionGone: resp.StatusCode == http.StatusNotFound && x.sessioned}
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			p.WWWAuthenticate = resp.Header.Values("WWW-Authenticate")
		}
		t.problem(p, x.capture)
	} else if x.rpcMethod != "" && x.method == http.MethodPost && resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusNoContent && mt != "application/json" {
		t.problem(HTTPProblem{Exchange: x.n, Method: x.method, URL: x.url, RPCMethod: x.rpcMethod, Status: resp.StatusCode,
			ContentType: ct, Body: t.redactBytes(head(data, 4096)), What: "content-type",
			Err: fmt.Sprintf("Content-Type %q is neither application/json nor text/event-stream", ct)}, x.capture)
	}
	if len(data) > 0 {
		if stand := t.received(x, data, FramingHTTP, nil, mt); stand != nil {
			resp.Body = io.NopCloser(bytes.NewReader(stand))
			resp.ContentLength = int64(len(stand))
		}
	}
	return resp, nil
}

func head(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

func (t *HTTPTap) readBody(x *exchange, resp *http.Response) ([]byte, error) {
	limit := t.opts.MaxBody
	what := "the response"
	if x.rpcMethod != "" {
		what = "the response to " + x.rpcMethod
	}
	if resp.ContentLength > int64(limit) {
		err := &TooLargeError{What: what, Size: resp.ContentLength, Limit: limit}
		t.failed(x, err, "too-large")
		return nil, err
	}
	body, n, err := readLimited(resp.Body, limit)
	if n > int64(limit) {
		err := &TooLargeError{What: what, Size: -1, Limit: limit}
		t.failed(x, err, "too-large")
		return nil, err
	}
	if err != nil {
		err = fmt.Errorf("reading the response body: %w", err)
		t.failed(x, err, "transport")
		return nil, err
	}
	return body, nil
}

// readLimited reads r to its end, or until more than limit bytes (decompressed bytes,
// for a body the transport decompresses) have come, which it reports as n > limit
// without keeping them. The body is collected in pieces and assembled once, so a body
// at the limit costs about the limit, not the 2 to 3 times of a doubling buffer.
func readLimited(r io.Reader, limit int) (body []byte, n int64, err error) {
	var lb lineBuf
	chunk := make([]byte, 64<<10)
	for {
		k, rerr := r.Read(chunk)
		if lb.total+k > limit {
			return nil, int64(lb.total + k), nil
		}
		lb.add(chunk[:k])
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, int64(lb.total), rerr
		}
	}
	if lb.total == 0 {
		return []byte{}, 0, nil
	}
	return lb.bytes(), int64(lb.total), nil
}

func (t *HTTPTap) failed(x *exchange, err error, what string) {
	info := x.info()
	info.Error = err.Error()
	t.opts.Tap.Emit(Event{Kind: KindHTTP, Dir: Recv, HTTP: info, Text: "failed: " + err.Error()})
	t.problem(HTTPProblem{Exchange: x.n, Method: x.method, URL: x.url, RPCMethod: x.rpcMethod, What: what, Err: err.Error()}, x.capture)
}

// httpEnvelope finds a message's top-level members in one validating scan (as the
// stdio reader does), so a 100 MiB body is not decoded to route it. A "jsonrpc" that
// is not a string is left to the SDK here (HTTP has no --repair); ok is false for a
// body that is not a JSON-RPC message.
func httpEnvelope(trimmed []byte) (env envelope, ok bool) {
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return env, false
	}
	env, err := parseEnvelope(trimmed)
	if err != nil && err != errNotString {
		return env, false
	}
	return env, env.Method || env.ID != nil
}

func (e envelope) isRequest() bool {
	return e.Method && len(e.ID) > 0 && string(e.ID) != "null"
}
func (e envelope) isResponse() bool {
	return !e.Method && len(e.ID) > 0 && (e.Result != nil || e.Error != nil)
}

// sent handles the body of a request.
func (t *HTTPTap) sent(x *exchange, body []byte) {
	trimmed := bytes.TrimSpace(body)
	env, ok := httpEnvelope(trimmed)
	if !ok {
		info := x.info()
		t.opts.Tap.Emit(Event{Kind: KindHTTP, Dir: Send, HTTP: info, Data: t.redactBytes(body), Text: "request body (not a JSON-RPC message)"})
		return
	}
	if env.Method {
		x.rpcMethod = env.MethodName
	}
	if env.isRequest() {
		t.mu.Lock()
		t.pending[string(normalizeID(env.ID))] = pendingHTTP{method: env.MethodName, capture: x.capture}
		t.mu.Unlock()
	}
	t.opts.Tap.Emit(Event{Kind: KindMessage, Dir: Send, Data: t.redactBytes(body), Framing: FramingHTTP, HTTP: x.info(), Head: env.head()})
}

// normalizeID makes equal ids equal bytes (whitespace aside).
func normalizeID(id json.RawMessage) json.RawMessage {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return id
	}
	b, _ := json.Marshal(v)
	return b
}

// received handles a message-sized piece of a response: a whole body or an event's
// data. For a complete tools/call or resources/read result that a client captures,
// it returns the message the SDK should decode instead (as on stdio: the client
// decodes the real result from the capture, once, and a 50 MB text is not decoded
// twice); otherwise nil.
func (t *HTTPTap) received(x *exchange, data []byte, framing Framing, sse *SSEInfo, contentType string) (stand []byte) {
	info := x.info()
	info.SSE = sse
	trimmed := bytes.TrimSpace(data)
	env, isJSON := httpEnvelope(trimmed)
	if !isJSON || (framing == FramingHTTP && contentType != "application/json" && contentType != "") {
		text := "response body"
		if contentType != "" {
			text += " (" + contentType + ")"
		}
		if framing == FramingSSE {
			text = "server-sent event data that is not a JSON-RPC message"
		}
		t.opts.Tap.Emit(Event{Kind: KindHTTP, Dir: Recv, HTTP: info, Data: t.redactBytes(data), Text: text})
		return
	}
	t.opts.Tap.Emit(Event{Kind: KindMessage, Dir: Recv, Data: t.redactBytes(data), Framing: framing, HTTP: info, Head: env.head()})
	if !env.isResponse() {
		return
	}
	key := string(normalizeID(env.ID))
	t.mu.Lock()
	p, ok := t.pending[key]
	if ok {
		delete(t.pending, key)
	}
	w, isRaw := t.waiters[key]
	if isRaw {
		delete(t.waiters, key)
	}
	t.mu.Unlock()
	if ok && p.capture != nil {
		p.capture.addOwned(p.method, data)
		stand = standIn(p.method, env.ID, env.Result)
	}
	if isRaw {
		w <- data
	}
	return stand
}

// standIn is the placeholder response for a plain tools/call or resources/read
// result (see plainResult), or nil. Not for tools/list: over HTTP the SDK's own copy
// of the tools may be what its requests need.
func standIn(method string, id, result json.RawMessage) []byte {
	var placeholder json.RawMessage
	switch method {
	case "tools/call":
		placeholder = placeholderResult
	case "resources/read":
		placeholder = placeholderRead
	default:
		return nil
	}
	if !plainResult(result) {
		return nil
	}
	out, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
	}{"2.0", id, placeholder})
	if err != nil {
		return nil
	}
	return out
}

// sseBody passes an SSE stream through to the SDK one complete event at a time,
// emitting each event as it completes. Where an event ends and what its fields are
// is internal/sse's to say (the tap's proxy reads streams by the same rules), and the
// SDK gets each event as sse.Encode writes it, not as the server did: its own reader
// knows LF line ends and "field: value" lines only, so a stream of CR line ends
// would be read by us and never by it. An event the stream ends in the middle of is
// not passed on (the SSE rule: an unfinished event is discarded), so a cut stream
// reads as a stream that ended after its last complete event, which the SDK can resume
// from its last event id.
type sseBody struct {
	t    *HTTPTap
	x    *exchange
	rc   io.ReadCloser
	base *url.URL
	max  int
	stop context.CancelFunc

	mu     sync.Mutex
	split  sse.Splitter
	chunk  []byte     // what one read of the network gets
	raw    eventBytes // the bytes of the current, unfinished event
	out    []byte     // complete events as the SDK reads them
	off    int        // next byte of out to hand out
	err    error
	events int
	done   atomic.Bool // the end of the stream was reported
	closed atomic.Bool
}

func (b *sseBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.off == len(b.out) {
		b.out, b.off = b.out[:0], 0
		if b.err != nil {
			return 0, b.err
		}
		if b.chunk == nil {
			b.split.Max = b.max
			b.chunk = make([]byte, 32<<10)
		}
		n, err := b.rc.Read(b.chunk)
		var tle *sse.TooLargeError
		if perr := b.feed(b.chunk[:n]); errors.As(perr, &tle) {
			b.err = &TooLargeError{What: "a server-sent event", Size: int64(tle.Size), Limit: b.max}
			b.t.failed(b.x, b.err, "too-large")
			b.done.Store(true)
			continue
		}
		if err != nil {
			b.end(err)
		}
	}
	n := copy(p, b.out[b.off:])
	b.off += n
	return n, nil
}

// feed takes the next bytes of the stream.
func (b *sseBody) feed(p []byte) error {
	for len(p) > 0 {
		n, end, err := b.split.Next(p)
		if err != nil {
			return err
		}
		b.raw.add(p[:n])
		p = p[n:]
		if end {
			b.complete()
		}
	}
	return nil
}

// eventBytes gathers one event's bytes as they come: a small event in one buffer, by
// append; past pieceSize, the rest in pieces of that size, joined once when the event
// ends into a buffer of exactly its size. append alone grows a big slice by a quarter:
// an event read 32 KiB at a time was copied into buffers adding up to five times its
// size (a 50 MiB result: 255 MB allocated), and the one kept, the event's data for as
// long as the result is held, had up to a quarter to spare. Now twice its size in all,
// and exactly its size kept.
type eventBytes struct {
	head   []byte
	pieces [][]byte // after head, pieceSize bytes each but the last
	n      int
}

const pieceSize = 1 << 20

func (e *eventBytes) add(p []byte) {
	e.n += len(p)
	if e.pieces == nil && len(e.head)+len(p) <= pieceSize {
		e.head = append(e.head, p...)
		return
	}
	for len(p) > 0 {
		if len(e.pieces) == 0 || len(e.pieces[len(e.pieces)-1]) == pieceSize {
			e.pieces = append(e.pieces, make([]byte, 0, pieceSize))
		}
		last := &e.pieces[len(e.pieces)-1]
		k := min(len(p), pieceSize-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
	}
}

// bytes is the event's bytes so far, in one slice.
func (e *eventBytes) bytes() []byte {
	if e.pieces == nil {
		return e.head
	}
	out := make([]byte, 0, e.n)
	out = append(out, e.head...)
	for _, p := range e.pieces {
		out = append(out, p...)
	}
	return out
}

// complete handles the event that has just ended in raw.
func (b *sseBody) complete() {
	ev, ok := sse.Parse(b.raw.bytes())
	if !ok {
		// Comments only: a keep-alive, for no one. A small buffer is used again.
		if b.raw.pieces == nil {
			b.raw = eventBytes{head: b.raw.head[:0]}
		} else {
			b.raw = eventBytes{}
		}
		return
	}
	b.event(ev)
	// The event's data may be raw itself, and now belongs to the events emitted: the
	// next event's bytes go to a new buffer.
	b.raw = eventBytes{}
}

// end handles the end of the underlying stream.
func (b *sseBody) end(err error) {
	rest := b.raw.bytes()
	b.done.Store(true)
	if len(bytes.TrimSpace(rest)) > 0 {
		// An unfinished event. Its complete lines may still hold a whole message (a
		// server that ends the stream without the final blank line): pass that on.
		if ev, ok := sse.Parse(rest); ok && !b.split.MidLine() && json.Valid(ev.Data) {
			b.event(ev)
		} else {
			dropped := len(rest)
			b.t.opts.Tap.Emit(Event{Kind: KindHTTP, Dir: Recv, HTTP: b.x.info(), Data: b.t.redactBytes(rest),
				Text: fmt.Sprintf("the SSE stream ended in the middle of an event; its %d bytes were dropped", dropped)})
			b.t.problem(HTTPProblem{Exchange: b.x.n, Method: b.x.method, URL: b.x.url, RPCMethod: b.x.rpcMethod, What: "stream-cut",
				Err: fmt.Sprintf("the server's SSE stream ended in the middle of an event (%d bytes of it arrived: %q)", dropped, abbreviate(string(rest), 120))}, b.x.capture)
		}
		b.raw = eventBytes{}
	}
	if errors.Is(err, io.EOF) {
		b.t.opts.Tap.Emit(Event{Kind: KindHTTP, Dir: Recv, HTTP: b.x.info(), Text: "end of the SSE stream (" + plural.Count(b.events, "event") + ")"})
		b.err = io.EOF
		return
	}
	b.err = err
	if !b.closed.Load() {
		info := b.x.info()
		info.Error = err.Error()
		b.t.opts.Tap.Emit(Event{Kind: KindHTTP, Dir: Recv, HTTP: info, Text: fmt.Sprintf("the SSE stream broke after %s: %v", plural.Count(b.events, "event"), err)})
	}
}

// event records one event and hands it to the SDK.
func (b *sseBody) event(ev sse.Event) {
	b.events++
	pass := ev // what the SDK reads: the event, or its data replaced by a stand-in
	defer func() { b.out = sse.Append(b.out, pass) }()
	info := SSEInfo{ID: ev.ID, Event: ev.Type, Retry: ev.Retry}
	switch {
	case ev.Type == "endpoint":
		ep := strings.TrimSpace(string(ev.Data))
		if u, err := b.base.Parse(ep); err == nil {
			ep = u.String()
		}
		b.t.mu.Lock()
		b.t.endpoint = ep
		home := b.t.origin
		b.t.mu.Unlock()
		hi := b.x.info()
		hi.SSE = &info
		text := "endpoint event: messages go to " + b.t.redactURLString(ep)
		if u, err := url.Parse(ep); err == nil && home != "" && Origin(u) != home {
			text += " (another origin than " + home + ")"
		}
		b.t.opts.Tap.Emit(Event{Kind: KindHTTP, Dir: Recv, HTTP: hi, Data: b.t.redactBytes(ev.Data), Text: text})
	case len(ev.Data) == 0:
		hi := b.x.info()
		hi.SSE = &info
		text := "server-sent event without data"
		if ev.ID != "" {
			text = "priming event (id " + ev.ID
			if ev.Retry != "" {
				text += ", retry " + ev.Retry + " ms"
			}
			text += ")"
		}
		b.t.opts.Tap.Emit(Event{Kind: KindHTTP, Dir: Recv, HTTP: hi, Text: text})
	case ev.Type != "" && ev.Type != "message":
		hi := b.x.info()
		hi.SSE = &info
		b.t.opts.Tap.Emit(Event{Kind: KindHTTP, Dir: Recv, HTTP: hi, Data: b.t.redactBytes(ev.Data), Text: "server-sent event of type " + strconv.Quote(ev.Type) + " (not a message; ignored)"})
	default:
		if !json.Valid(ev.Data) {
			b.t.problem(HTTPProblem{Exchange: b.x.n, Method: b.x.method, URL: b.x.url, RPCMethod: b.x.rpcMethod, What: "bad-event",
				Err: fmt.Sprintf("a server-sent event's data is not valid JSON: %q", abbreviate(string(ev.Data), 120))}, b.x.capture)
		}
		// A complete result a client captures is decoded once, by the client, from
		// the capture; the SDK gets the stand-in, as from a JSON body.
		if stand := b.t.received(b.x, ev.Data, FramingSSE, &info, ""); stand != nil {
			pass.Data = stand
		}
	}
}

// Close may be called while a Read waits for the network: it must not wait for the
// lock Read holds.
func (b *sseBody) Close() error {
	first := b.closed.CompareAndSwap(false, true)
	err := b.rc.Close()
	if first && !b.done.Load() {
		b.t.opts.Tap.Emit(Event{Kind: KindHTTP, HTTP: b.x.info(), Text: "mcpscope closed the SSE stream"})
	}
	b.stop()
	return err
}

// RawCall sends one hand-written JSON-RPC request as a POST to endpoint, with header
// added, and returns the response message with its id, whether it comes back in the
// POST's own response (JSON or an SSE stream) or on another stream (the GET stream of
// a legacy HTTP+SSE session). Its id is a private string, so it cannot collide with
// the SDK's numbers.
func (t *HTTPTap) RawCall(ctx context.Context, endpoint string, header http.Header, method string, params json.RawMessage) (json.RawMessage, error) {
	t.mu.Lock()
	t.rawSeq++
	id := "mcpscope-" + strconv.Itoa(t.rawSeq)
	key, _ := json.Marshal(id)
	ch := make(chan json.RawMessage, 1)
	t.waiters[string(key)] = ch
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.waiters, string(key))
		t.mu.Unlock()
	}()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if len(params) > 0 {
		msg["params"] = params
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	mark := t.Mark()
	resp, err := t.Client().Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		data, _ := io.ReadAll(resp.Body)
		// A JSON-RPC error in the body is the answer.
		select {
		case m := <-ch:
			return m, nil
		default:
		}
		return nil, &StatusError{Status: resp.StatusCode, Problems: t.Problems(mark), Body: t.redactBytes(head(data, 4096))}
	}
	// An SSE stream is read until the answer comes; reading delivers it.
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 32<<10)
		for {
			if _, err := resp.Body.Read(buf); err != nil {
				return
			}
			select {
			case <-ctx.Done():
				return
			default:
			}
			if len(ch) > 0 {
				return
			}
		}
	}()
	select {
	case m := <-ch:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-done:
		select {
		case m := <-ch:
			return m, nil
		default:
		}
		if resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent {
			// Legacy HTTP+SSE: the answer comes on the event stream.
			select {
			case m := <-ch:
				return m, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return nil, errors.New("the server's response carried no answer to the request")
	}
}

// StatusError is an HTTP error status for a request of ours.
type StatusError struct {
	Status   int
	Problems []HTTPProblem
	Body     []byte
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("HTTP %d %s", e.Status, http.StatusText(e.Status))
	if b := bytes.TrimSpace(e.Body); len(b) > 0 {
		s += ": " + abbreviate(string(b), 200)
	}
	return s
}

// Redaction.

// SensitiveHeader reports whether a header's values are secrets by its name alone:
// Authorization, Proxy-Authorization, Cookie, Set-Cookie, X-Api-Key and the like
// (redact.CredentialHeader). They are redacted in events and never sent to another
// origin.
func SensitiveHeader(name string) bool { return redact.CredentialHeader(name) }

func (t *HTTPTap) redactHeader(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		nv := make([]string, len(vs))
		for i, v := range vs {
			switch {
			case SensitiveHeader(k):
				if scheme, _, ok := strings.Cut(v, " "); ok && (strings.EqualFold(k, "Authorization") || strings.EqualFold(k, "Proxy-Authorization")) {
					nv[i] = scheme + " " + Redacted
				} else {
					nv[i] = Redacted
				}
			default:
				nv[i] = t.redactString(v)
			}
		}
		out[k] = nv
	}
	return out
}

func (t *HTTPTap) redactString(s string) string { return t.secrets.Load().String(s) }

func (t *HTTPTap) redactBytes(b []byte) []byte { return t.secrets.Load().Bytes(b) }

func (t *HTTPTap) redactURL(u *url.URL) string { return redact.URLOf(u, t.secrets.Load()) }

func (t *HTTPTap) redactURLString(s string) string { return redact.URL(s, t.secrets.Load()) }
