package client

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/target"
)

// Transport names, as Info.Transport shows them.
const (
	TransportStdio      = "stdio"
	TransportStreamable = "streamable-http" // Streamable HTTP: 2025-03-26 … 2025-11-25 with sessions, 2026-07-28 stateless
	TransportSSE        = "http+sse"        // the legacy HTTP+SSE transport of 2024-11-05
)

// legacyVersion is offered over HTTP+SSE, a transport no 2026-07-28 server speaks.
const legacyVersion = "2025-11-25"

// ParseTransport reads a --transport value: "" or "auto" (detect), "streamable"
// (also "http", "streamable-http"), or "sse".
func ParseTransport(s string) (string, bool) {
	switch strings.ToLower(s) {
	case "", "auto":
		return "", true
	case "streamable", "streamable-http", "streamablehttp", "http", "shttp":
		return "streamable", true
	case "sse", "http+sse":
		return "sse", true
	}
	return "", false
}

// IsURL reports whether a target word is an HTTP URL.
func IsURL(s string) bool { return target.IsURL(s) }

// httpConn is the HTTP side of a session.
type httpConn struct {
	tap  *wire.HTTPTap
	url  string
	mode string // "streamable" or "sse", as connected

	mu     sync.Mutex
	cancel context.CancelFunc // ends the legacy SSE stream's context
	mark   int                // the tap's exchange count when the current SDK session connected
}

func (h *httpConn) endSSE() {
	h.mu.Lock()
	c := h.cancel
	h.cancel = nil
	h.mu.Unlock()
	if c != nil {
		c()
	}
}

// sseTransport gives the SDK's SSE client a context that lives as long as the
// session: the SDK ties its GET stream to the context given to Connect, and the
// handshake's context ends when Connect returns. The handshake's deadline still
// bounds the GET until Connect returns.
type sseTransport struct {
	inner  *mcp.SSEClientTransport
	ctx    context.Context
	cancel context.CancelFunc
}

func (t *sseTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stop := context.AfterFunc(ctx, t.cancel)
	conn, err := t.inner.Connect(t.ctx)
	if !stop() && err == nil {
		// The handshake's context ended while the stream was opening.
		conn.Close()
		return nil, ctx.Err()
	}
	return conn, err
}

func (s *Session) newHTTPTap(target Target) (*wire.HTTPTap, error) {
	header := http.Header{}
	for k, vs := range target.Header {
		header[http.CanonicalHeaderKey(k)] = vs
	}
	for k, vs := range s.opts.Header {
		header[http.CanonicalHeaderKey(k)] = vs
	}
	u, err := url.Parse(target.URL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, &UsageError{Msg: fmt.Sprintf("%q is not an http:// or https:// URL", target.URL)}
	}
	headerTimeout := s.opts.ConnectTimeout
	if s.opts.Timeout > 0 && s.opts.Timeout < headerTimeout {
		headerTimeout = s.opts.Timeout
	}
	var auth wire.Authorizer
	var tap *wire.HTTPTap
	var early []string // secrets the authorizer knows before the tap exists
	if s.opts.Auth != nil && header.Get("Authorization") == "" {
		auth = s.opts.Auth(target, func(line string) {
			s.tap.Emit(wire.Event{Kind: wire.KindSynthetic, Text: "oauth: " + line})
		}, func(v string) {
			if tap == nil {
				early = append(early, v)
				return
			}
			tap.AddSecret(v)
		})
	}
	tap = wire.NewHTTPTap(wire.HTTPOptions{
		Auth:          auth,
		Tap:           s.tap,
		Header:        header,
		Secrets:       append(append([]string(nil), target.Secrets...), s.opts.Secrets...),
		MaxBody:       s.opts.MaxFrame,
		HeaderTimeout: headerTimeout,
		Meta:          s.opts.requestMeta(),
		// Credentials go to the target's origin only (a redirect or a legacy
		// endpoint elsewhere is refused, or followed without them).
		Origin:           wire.Origin(u),
		AllowCrossOrigin: s.opts.AllowCrossOrigin,
	})
	for _, v := range early {
		tap.AddSecret(v)
	}
	return tap, nil
}

// connectHTTP reaches an HTTP server, detecting the transport and era unless the user
// chose: (mcp-wire §4.10, §3.7)
//  1. Streamable HTTP: POST server/discover with 2026-07-28 _meta. A result means the
//     stateless revision; any other answer (an error, a 4xx without a modern error
//     body) falls back to POST initialize (legacy Streamable HTTP). The SDK does both.
//  2. If those POSTs got 400, 404 or 405 (and no modern error, and no 401/403), GET
//     the URL and wait for the legacy HTTP+SSE "endpoint" event.
//
// Every connection probes server/discover, even to a server that refused it last time:
// what a server answered is not remembered. The probe costs a 2025-era server one round
// trip, which a bare go-sdk client pays too; a remembered era is safe only if this
// connection's own discover answer still decides (discover and initialize sent
// together, the legacy session closed when the server has been upgraded), which sends
// an upgraded server an initialize it did not ask for and reorders the first frames of
// every 2025 session, to save about a millisecond on a local server.
func (s *Session) connectHTTP(ctx, cctx context.Context, client *mcp.Client, target Target, sopts *mcp.ClientSessionOptions) (*mcp.ClientSession, error) {
	mode := s.opts.Transport
	if mode == "" {
		mode = target.Transport
	}
	mode, ok := ParseTransport(mode)
	if !ok {
		return nil, &UsageError{Msg: fmt.Sprintf("unknown transport %q; use streamable or sse", s.opts.Transport)}
	}
	tap, err := s.newHTTPTap(target)
	if err != nil {
		return nil, err
	}
	s.h = &httpConn{tap: tap, url: target.URL}
	if mode == "sse" {
		cs, err := s.dialHTTP(cctx, client, "sse", sopts)
		if err != nil {
			return nil, s.httpConnectError(ctx, cctx, err, tap.Problems(0), "")
		}
		return cs, nil
	}
	cs, err := s.dialHTTP(cctx, client, "streamable", sopts)
	if err == nil {
		return cs, nil
	}
	probs := tap.Problems(0)
	if mode != "" || ctx.Err() != nil || cctx.Err() != nil || !worthTryingSSE(probs) {
		return nil, s.httpConnectError(ctx, cctx, err, probs, "")
	}
	first := describeProblem(lastProblem(probs))
	s.tap.Emit(wire.Event{Kind: wire.KindSynthetic, Text: "Streamable HTTP refused (" + first + "); trying the legacy HTTP+SSE transport: GET the URL and wait for its endpoint event"})
	mark := tap.Mark()
	cs, err2 := s.dialHTTP(cctx, client, "sse", sopts)
	if err2 == nil {
		return cs, nil
	}
	return nil, s.httpConnectError(ctx, cctx, err2, tap.Problems(mark), first)
}

// dialHTTP connects one SDK session over the given transport.
func (s *Session) dialHTTP(cctx context.Context, client *mcp.Client, mode string, sopts *mcp.ClientSessionOptions) (*mcp.ClientSession, error) {
	h := s.h
	mark := h.tap.Mark()
	var t mcp.Transport
	var cancel context.CancelFunc
	maxEvent := s.opts.MaxFrame
	if maxEvent <= 0 {
		maxEvent = wire.DefaultMaxFrame
	}
	if mode == "sse" {
		sctx, c := context.WithCancel(context.WithoutCancel(cctx))
		cancel = c
		t = &sseTransport{inner: &mcp.SSEClientTransport{Endpoint: h.url, HTTPClient: h.tap.Client(), MaxEventSize: maxEvent}, ctx: sctx, cancel: c}
		if sopts == nil || sopts.ProtocolVersion == "" {
			sopts = &mcp.ClientSessionOptions{ProtocolVersion: legacyVersion}
		}
	} else {
		t = &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: h.tap.Client(), MaxEventSize: maxEvent}
	}
	cs, err := client.Connect(cctx, t, sopts)
	if err != nil {
		if cancel != nil {
			cancel()
		}
		return nil, err
	}
	h.mu.Lock()
	h.mode = mode
	h.cancel = cancel
	h.mark = mark
	h.mu.Unlock()
	return cs, nil
}

func lastProblem(probs []wire.HTTPProblem) wire.HTTPProblem {
	for i := len(probs) - 1; i >= 0; i-- {
		if probs[i].What == "status" || probs[i].What == "transport" || probs[i].What == "content-type" {
			return probs[i]
		}
	}
	if len(probs) > 0 {
		return probs[len(probs)-1]
	}
	return wire.HTTPProblem{}
}

// worthTryingSSE: the POSTs were refused the way a server without Streamable HTTP
// refuses them (400, 404 or 405 with no modern JSON-RPC error), and not for want of
// credentials.
func worthTryingSSE(probs []wire.HTTPProblem) bool {
	last := wire.HTTPProblem{}
	for _, p := range probs {
		if p.Status == http.StatusUnauthorized || p.Status == http.StatusForbidden {
			return false
		}
		if p.What == "status" {
			last = p
		}
	}
	switch last.Status {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
	default:
		return false
	}
	return !modernErrorBody(last.Body)
}

// modernErrorBody reports whether a body is a JSON-RPC error of the 2026-07-28
// revision (-32020 … -32022): the server is modern and the request needs fixing.
func modernErrorBody(body []byte) bool {
	var r struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &r) != nil || r.Error == nil {
		return false
	}
	return r.Error.Code <= -32020 && r.Error.Code >= -32022
}

// AuthError is an HTTP 401 or 403: the server wants credentials, or better ones.
type AuthError struct {
	Status    int
	Method    string // HTTP method
	URL       string
	RPCMethod string
	// Challenges are the parsed WWW-Authenticate challenges.
	Challenges []Challenge
	// TokenSent says the request carried an Authorization header.
	TokenSent bool
	Body      string
}

// Challenge is one WWW-Authenticate challenge.
type Challenge struct {
	Scheme string
	Params [][2]string // in the order sent; names lower-cased
}

// Param returns a parameter's value.
func (c Challenge) Param(name string) string {
	for _, p := range c.Params {
		if p[0] == name {
			return p[1]
		}
	}
	return ""
}

func (e *AuthError) Error() string {
	var b strings.Builder
	what := e.Method + " " + e.URL
	if e.RPCMethod != "" {
		what += " (" + e.RPCMethod + ")"
	}
	fmt.Fprintf(&b, "the server refused %s: HTTP %d %s", what, e.Status, http.StatusText(e.Status))
	var scope, errCode string
	for _, c := range e.Challenges {
		fmt.Fprintf(&b, "\n  WWW-Authenticate: %s", c.Scheme)
		for _, name := range []string{"resource_metadata", "scope", "error", "error_description", "realm"} {
			if v := c.Param(name); v != "" {
				fmt.Fprintf(&b, "\n    %s: %s", name, v)
			}
		}
		if scope == "" {
			scope = c.Param("scope")
		}
		if errCode == "" {
			errCode = c.Param("error")
		}
	}
	if len(e.Challenges) == 0 && e.Body != "" {
		fmt.Fprintf(&b, "\n  body: %s", e.Body)
	}
	b.WriteString("\n  what to do: ")
	switch {
	case e.Status == http.StatusForbidden && errCode == "insufficient_scope":
		b.WriteString("the token lacks a scope the server wants")
		if scope != "" {
			b.WriteString(" (" + scope + ")")
		}
		b.WriteString("; log in with it (mcpscope auth login --scope '…' URL), or pass a token that has it with --bearer or --bearer-env")
	case e.Status == http.StatusForbidden:
		b.WriteString("the server forbids this request with these credentials (or from this Origin); check the token's rights and pass a suitable one with --bearer or --bearer-env")
	case e.TokenSent:
		b.WriteString("the token was not accepted")
		if errCode != "" {
			b.WriteString(" (" + errCode + ")")
		}
		b.WriteString("; get a fresh one and pass it with --bearer TOKEN or --bearer-env VAR, or drop --bearer and log in: mcpscope auth login URL")
	default:
		b.WriteString("log in: mcpscope auth login " + e.URL + "; or pass a token with --bearer TOKEN or --bearer-env VAR (or a header with -H 'Authorization: …')")
	}
	for _, c := range e.Challenges {
		if rm := c.Param("resource_metadata"); rm != "" {
			b.WriteString("; the resource metadata names the authorization server that issues tokens")
			break
		}
	}
	return b.String()
}

// ParseChallenges reads WWW-Authenticate header values (RFC 9110 §11.6.1):
// `Bearer realm="x", error="invalid_token", Basic realm="y"`.
func ParseChallenges(values []string) []Challenge {
	var out []Challenge
	for _, v := range values {
		s := v
		var cur *Challenge
		for {
			s = strings.TrimLeft(s, " \t,")
			if s == "" {
				break
			}
			tok := s
			if i := strings.IndexAny(s, " \t,="); i >= 0 {
				tok = s[:i]
			}
			rest := strings.TrimLeft(s[len(tok):], " \t")
			if strings.HasPrefix(rest, "=") && cur != nil && !strings.HasPrefix(rest, "==") {
				// name=value
				rest = strings.TrimLeft(rest[1:], " \t")
				var val string
				if strings.HasPrefix(rest, `"`) {
					var b strings.Builder
					i := 1
					for ; i < len(rest); i++ {
						if rest[i] == '\\' && i+1 < len(rest) {
							i++
							b.WriteByte(rest[i])
							continue
						}
						if rest[i] == '"' {
							break
						}
						b.WriteByte(rest[i])
					}
					val = b.String()
					if i < len(rest) {
						i++
					}
					rest = rest[i:]
				} else {
					j := strings.IndexAny(rest, ",")
					if j < 0 {
						j = len(rest)
					}
					val = strings.TrimSpace(rest[:j])
					rest = rest[j:]
				}
				cur.Params = append(cur.Params, [2]string{strings.ToLower(tok), val})
				s = rest
				continue
			}
			if cur != nil && strings.HasPrefix(rest, "=") {
				// token68 (base64 with padding) after a scheme
				j := strings.IndexAny(rest, ",")
				if j < 0 {
					j = len(rest)
				}
				s = rest[j:]
				continue
			}
			// a new challenge
			out = append(out, Challenge{Scheme: tok})
			cur = &out[len(out)-1]
			s = rest
		}
	}
	return out
}

// Compiled on first use, not at start: every command links this package (issue 23).
var tagRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)<(script|style)[^>]*>.*?</(script|style)>|<[^>]*>`)
})

// bodyText makes a response body printable: HTML tags dropped, white space collapsed,
// at most n characters.
func bodyText(body []byte, n int) string {
	s := string(body)
	if strings.Contains(s, "<") && strings.Contains(s, ">") {
		s = tagRE().ReplaceAllString(s, " ")
	}
	s = strings.Join(strings.Fields(s), " ")
	return abbreviateString(s, n)
}

func abbreviateString(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// unsupportedVersion reads a -32022 (UnsupportedProtocolVersion) error body: the
// versions the server speaks (data.supported) and the one it was asked for
// (data.requested, often absent when the request was a legacy initialize).
func unsupportedVersion(body []byte) (supported []string, requested string, ok bool) {
	var r struct {
		Error *struct {
			Code int `json:"code"`
			Data struct {
				Supported []string `json:"supported"`
				Requested string   `json:"requested"`
			} `json:"data"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &r) != nil || r.Error == nil || r.Error.Code != -32022 {
		return nil, "", false
	}
	return r.Error.Data.Supported, r.Error.Data.Requested, true
}

// describeVersionRefusal says a -32022 answer in words: the server does not speak the
// version asked for, and what it offered. asked is the version the client sent when
// the server's data does not name it. "" when the body is not a -32022 error.
func describeVersionRefusal(body []byte, asked string) string {
	supported, requested, ok := unsupportedVersion(body)
	if !ok {
		return ""
	}
	if requested == "" {
		requested = asked
	}
	if requested == "" {
		requested = "the version mcpscope asked for"
	}
	offered := "no version it speaks"
	if len(supported) > 0 {
		offered = strings.Join(supported, ", ")
	}
	// Both are the server's strings: one line, made safe where it is shown.
	return fmt.Sprintf("the server does not speak %s; it offered %s", abbreviateString(requested, 40), abbreviateString(offered, 200))
}

// describe is describeProblem for this session: a refused protocol version names the
// one this session asked for (--protocol, or what it negotiated).
func (s *Session) describe(p wire.HTTPProblem) string {
	if p.What == "status" {
		asked := s.opts.Protocol
		if asked == "" {
			asked = s.info.ProtocolVersion
		}
		if why := describeVersionRefusal(p.Body, asked); why != "" {
			if s.opts.Protocol != "" {
				why += "; force one of those with --protocol, or leave --protocol out to negotiate"
			}
			return why
		}
	}
	return describeProblem(p)
}

// describeProblem says in one line what one HTTP exchange went wrong with.
func describeProblem(p wire.HTTPProblem) string {
	what := p.Method + " " + p.URL
	if p.RPCMethod != "" {
		what = p.Method + " " + p.RPCMethod
	}
	switch p.What {
	case "status":
		if why := describeVersionRefusal(p.Body, ""); why != "" {
			return why
		}
		s := fmt.Sprintf("%s → HTTP %d %s", what, p.Status, http.StatusText(p.Status))
		if t := bodyText(p.Body, 160); t != "" {
			s += ": " + t
		}
		return s
	case "content-type":
		s := fmt.Sprintf("%s → HTTP %d with Content-Type %q, which is neither application/json nor text/event-stream", what, p.Status, p.ContentType)
		if t := bodyText(p.Body, 120); t != "" {
			s += " (body: " + t + ")"
		}
		return s
	case "":
		return "no answer"
	}
	return what + " → " + p.Err
}

// crossOriginFrom finds a request refused for going to another origin with
// credentials, in an error or the problems of the exchanges.
func crossOriginFrom(err error, probs []wire.HTTPProblem) error {
	var ce *wire.CrossOriginError
	if errors.As(err, &ce) {
		return &ServerError{Reason: ce.Error()}
	}
	for i := len(probs) - 1; i >= 0; i-- {
		if probs[i].What == "cross-origin" {
			return &ServerError{Reason: probs[i].Err}
		}
	}
	return nil
}

// loginErrorFrom finds a 401 or 403 that the OAuth login could not answer.
func loginErrorFrom(probs []wire.HTTPProblem) error {
	for i := len(probs) - 1; i >= 0; i-- {
		if probs[i].What == "auth" {
			reason := probs[i].Err
			if ae := authErrorFrom(probs[:i], false); ae != nil {
				what := ae.Method + " " + ae.URL
				if ae.RPCMethod != "" {
					what += " (" + ae.RPCMethod + ")"
				}
				reason += fmt.Sprintf("\n  the server answered %s with HTTP %d %s", what, ae.Status, http.StatusText(ae.Status))
				for _, c := range ae.Challenges {
					reason += "\n  WWW-Authenticate: " + c.Scheme
					for _, name := range []string{"resource_metadata", "scope", "error", "error_description"} {
						if v := c.Param(name); v != "" {
							reason += "\n    " + name + ": " + v
						}
					}
				}
			}
			return &ServerError{Reason: reason}
		}
	}
	return nil
}

func authErrorFrom(probs []wire.HTTPProblem, tokenSent bool) *AuthError {
	for i := len(probs) - 1; i >= 0; i-- {
		p := probs[i]
		if p.Status == http.StatusUnauthorized || p.Status == http.StatusForbidden {
			return &AuthError{Status: p.Status, Method: p.Method, URL: p.URL, RPCMethod: p.RPCMethod,
				Challenges: ParseChallenges(p.WWWAuthenticate), TokenSent: tokenSent, Body: bodyText(p.Body, 200)}
		}
	}
	return nil
}

func (s *Session) tokenSent() bool {
	for _, h := range []http.Header{s.opts.Header, s.target.Header} {
		for k := range h {
			if strings.EqualFold(k, "Authorization") {
				return true
			}
		}
	}
	return false
}

// httpConnectError explains why the handshake over HTTP failed. before, if set, says
// how the Streamable HTTP attempt failed before HTTP+SSE was tried.
func (s *Session) httpConnectError(parent, cctx context.Context, err error, probs []wire.HTTPProblem, before string) error {
	if parent.Err() != nil {
		return parent.Err()
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		return err
	}
	if ce := crossOriginFrom(err, probs); ce != nil {
		return ce
	}
	if le := loginErrorFrom(probs); le != nil {
		return le
	}
	if ae := authErrorFrom(probs, s.tokenSent()); ae != nil {
		return ae
	}
	var tle *wire.TooLargeError
	if errors.As(err, &tle) {
		return &ServerError{Reason: tle.Error()}
	}
	last := lastProblem(probs)
	var reason string
	switch {
	case cctx.Err() == context.DeadlineExceeded:
		reason = fmt.Sprintf("the server did not complete the handshake within %v (--connect-timeout)", s.opts.ConnectTimeout)
		if last.What != "" {
			reason += "; last: " + s.describe(last)
		}
	case last.What == "transport":
		reason = fmt.Sprintf("cannot reach %s: %s", s.target.URL, last.Err)
	case last.What != "":
		reason = "could not connect: " + s.describe(last)
	default:
		reason = "could not connect to " + s.target.URL + ": " + err.Error()
	}
	if before != "" {
		reason = fmt.Sprintf("%s speaks neither Streamable HTTP (%s) nor the legacy HTTP+SSE transport (%s); is it the MCP endpoint (often …/mcp, or …/sse for HTTP+SSE)?",
			s.target.URL, before, strings.TrimPrefix(reason, "could not connect: "))
	} else if last.Status == http.StatusNotFound || last.Status == http.StatusMethodNotAllowed || last.What == "content-type" {
		reason += "; is " + s.target.URL + " the MCP endpoint (often …/mcp, or …/sse for HTTP+SSE)?"
	}
	return &ServerError{Reason: reason}
}

// httpCallError explains a failed request of a session over HTTP.
func (s *Session) httpCallError(err error, capture *wire.Capture) error {
	probs := capture.Problems()
	if ce := crossOriginFrom(err, probs); ce != nil {
		return ce
	}
	if le := loginErrorFrom(probs); le != nil {
		return le
	}
	if ae := authErrorFrom(probs, s.tokenSent()); ae != nil {
		return ae
	}
	var tle *wire.TooLargeError
	if errors.As(err, &tle) {
		return &ServerError{Reason: tle.Error()}
	}
	for i := len(probs) - 1; i >= 0; i-- {
		p := probs[i]
		switch p.What {
		case "too-large", "stream-cut", "bad-event":
			return &ServerError{Reason: p.Err + "; the request was lost (" + sdkReason(err) + ")"}
		}
	}
	if p := lastProblem(probs); p.What != "" {
		return &ServerError{Reason: s.describe(p)}
	}
	if errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, mcp.ErrSessionMissing) {
		return &ServerError{Reason: "the connection to the server ended: " + err.Error()}
	}
	return err
}

// sdkReason shortens an SDK error for a note.
func sdkReason(err error) string {
	if err == nil {
		return "no answer"
	}
	return abbreviateString(err.Error(), 160)
}

// sessionExpired reports whether a failed request met a server that has ended the
// session (404 to a request with Mcp-Session-Id).
func (s *Session) sessionExpired(err error, capture *wire.Capture) bool {
	if s.h == nil || err == nil {
		return false
	}
	if errors.Is(err, mcp.ErrSessionMissing) {
		return true
	}
	for _, p := range capture.Problems() {
		if p.SessionGone {
			return true
		}
	}
	s.h.mu.Lock()
	mark := s.h.mark
	s.h.mu.Unlock()
	for _, p := range s.h.tap.Problems(mark) {
		if p.SessionGone {
			return true
		}
	}
	return false
}

// reinitialize replaces an expired HTTP session with a new one (mcp-wire §3.5: on
// 404 the client must initialize again, without the old session id). old is the SDK
// session the failed request used; if another request has already replaced it,
// nothing is done.
func (s *Session) reinitialize(ctx context.Context, old *mcp.ClientSession) error {
	s.reconnectMu.Lock()
	defer s.reconnectMu.Unlock()
	if s.session() != old {
		return nil
	}
	s.tap.Emit(wire.Event{Kind: wire.KindSynthetic, Text: fmt.Sprintf("the server answered 404 for session %q: it has ended the session; initializing a new one", old.ID())})
	cctx, cancel := context.WithTimeout(ctx, s.opts.ConnectTimeout)
	defer cancel()
	s.h.endSSE()
	cs, err := s.dialHTTP(cctx, s.client, s.h.mode, s.sopts)
	if err != nil {
		return s.httpConnectError(ctx, cctx, err, s.h.tap.Problems(s.h.tap.Mark()-4), "")
	}
	s.mu.Lock()
	s.cs = cs
	s.mu.Unlock()
	go old.Close()
	return nil
}

// rawHTTP sends a hand-written request over HTTP: a POST of its own with the headers
// the session's era wants.
func (s *Session) rawHTTP(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	h := s.h
	header := http.Header{}
	endpoint := h.url
	h.mu.Lock()
	mode := h.mode
	h.mu.Unlock()
	if mode == "sse" {
		endpoint = h.tap.Endpoint()
		if endpoint == "" {
			return nil, &ServerError{Reason: "the HTTP+SSE server has not announced a message endpoint"}
		}
		header.Set("Content-Type", "application/json")
	} else {
		header.Set("Content-Type", "application/json")
		header.Set("Accept", "application/json, text/event-stream")
		if v := s.info.ProtocolVersion; v >= "2025-06-18" {
			header.Set("MCP-Protocol-Version", v)
		}
		if id := s.session().ID(); id != "" {
			header.Set("Mcp-Session-Id", id)
		}
		if s.info.Era == EraModern {
			header.Set("Mcp-Method", method)
			var p struct {
				Name   *string `json:"name"`
				URI    *string `json:"uri"`
				TaskID *string `json:"taskId"`
			}
			_ = json.Unmarshal(params, &p)
			switch {
			case (method == "tools/call" || method == "prompts/get") && p.Name != nil:
				header.Set("Mcp-Name", EncodeHeaderValue(*p.Name))
			case method == "resources/read" && p.URI != nil:
				header.Set("Mcp-Name", EncodeHeaderValue(*p.URI))
			case (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel") && p.TaskID != nil:
				// The tasks extension (SEP-2663) names the task as tools/call names
				// its tool; a server may refuse a header naming another task.
				header.Set("Mcp-Name", EncodeHeaderValue(*p.TaskID))
			}
		}
	}
	raw, err := h.tap.RawCall(ctx, endpoint, header, method, params)
	if err != nil {
		var se *wire.StatusError
		if errors.As(err, &se) {
			if le := loginErrorFrom(se.Problems); le != nil {
				return nil, le
			}
			if ae := authErrorFrom(se.Problems, s.tokenSent()); ae != nil {
				return nil, ae
			}
			return nil, &ServerError{Reason: fmt.Sprintf("the server answered the %s request with %v", method, err)}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if ce := crossOriginFrom(err, nil); ce != nil {
			return nil, ce
		}
		return nil, &ServerError{Reason: fmt.Sprintf("sending %s: %v", method, err)}
	}
	return raw, nil
}

// EncodeHeaderValue encodes a value for Mcp-Name or an Mcp-Param-* header: as is when
// it is header-safe (visible ASCII, space and tab, no leading or trailing white
// space), otherwise as =?base64?…?= (2026-07-28).
func EncodeHeaderValue(v string) string {
	safe := v == strings.TrimSpace(v) && !strings.HasPrefix(v, "=?base64?")
	for i := 0; safe && i < len(v); i++ {
		c := v[i]
		if !(c == ' ' || c == '\t' || (c >= 0x21 && c <= 0x7e)) {
			safe = false
		}
	}
	if safe {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}
