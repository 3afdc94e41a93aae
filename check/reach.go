package check

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/plural"
)

// reach: for a URL, name resolution, TCP, TLS and what the endpoint answers; for a
// command, that it starts and speaks (its stdout before the first message, its
// stderr). Then the framing and era the session found.
func (r *runner) reach(ctx context.Context) {
	if r.o.Target.URL != "" {
		if !r.reachURL(ctx) {
			r.add(StepReach, "protocol", Skip, "not run: "+r.failed+" failed")
			return
		}
	}
	start := "start"
	if r.o.Target.URL != "" {
		start = "connect"
	}
	c, err := r.o.Connect(ctx)
	if err != nil {
		r.failed = StepReach + "/" + start
		why, details := reason(err)
		r.add(StepReach, start, Fail, why, details...)
		r.add(StepReach, "protocol", Skip, "not run: "+r.failed+" failed")
		// A server that asked for credentials (the probe's 401) wants a login this
		// run has not got: what a host would find to log in with is still worth
		// saying. (The session's error is a sentence; the probe's status is a fact.)
		r.needsLogin = r.probeStatus == http.StatusUnauthorized
		return
	}
	r.conn = c
	r.info = c.Session.Info()
	if r.o.Target.URL == "" {
		noise, stderr := max(c.NoiseTotal, len(c.Noise)), max(c.StderrTotal, len(c.Stderr))
		st, why := Pass, fmt.Sprintf("started and answered; %s before speaking, %s", plural.Count(noise, "stdout line"), plural.Count(stderr, "stderr line"))
		if noise > 0 {
			st, why = Warn, fmt.Sprintf("started, but printed %s on stdout that %s not messages (a host that reads stdout strictly fails on them)", plural.Count(noise, "line"), map[bool]string{true: "is", false: "are"}[noise == 1])
		}
		r.add(StepReach, start, st, why, append(tail("stdout", c.Noise, noise), tail("stderr", c.Stderr, stderr)...)...)
	} else {
		r.add(StepReach, start, Pass, "a session was opened")
	}
	how := r.info.Transport
	if r.info.Framing != "" {
		how += ", " + string(r.info.Framing) + " framing"
	}
	r.add(StepReach, "protocol", Pass, fmt.Sprintf("%s; protocol %s (%s era)", how, r.info.ProtocolVersion, r.info.Era))
}

// tail is the last lines of what a server printed, labelled, for a check's details;
// lines are the last of total it printed.
func tail(what string, lines []string, total int) []string {
	const keep = 5
	var out []string
	if len(lines) > keep {
		lines = lines[len(lines)-keep:]
	}
	if before := total - len(lines); before > 0 {
		out = append(out, fmt.Sprintf("%s: … %s before", what, plural.Count(before, "line")))
	}
	for _, l := range lines {
		out = append(out, what+": "+l)
	}
	return out
}

// head is the first lines of a crashed server's last stderr (a panic's message
// comes first, its stack after), labelled.
func head(what string, lines []string) []string {
	const keep = 3
	var out []string
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if len(out) == keep {
			out = append(out, fmt.Sprintf("%s: … %s more", what, plural.Count(len(lines)-i, "line")))
			break
		}
		out = append(out, what+": "+l)
	}
	return out
}

// reachURL checks an HTTP endpoint layer by layer, so that a failure names the layer.
func (r *runner) reachURL(ctx context.Context) bool {
	u, err := url.Parse(r.o.Target.URL)
	if err != nil || u.Host == "" {
		r.failed = StepReach + "/dns"
		r.add(StepReach, "dns", Fail, fmt.Sprintf("%q is not an http:// or https:// URL", r.o.Target.URL))
		for _, n := range []string{"tcp", "tls", "http"} {
			r.add(StepReach, n, Skip, "not run: "+r.failed+" failed")
		}
		return false
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	stop := func(name, why string, next ...string) bool {
		r.failed = StepReach + "/" + name
		r.add(StepReach, name, Fail, why)
		for _, n := range next {
			r.add(StepReach, n, Skip, "not run: "+r.failed+" failed")
		}
		return false
	}
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupHost(dctx, host)
	if err != nil {
		return stop("dns", fmt.Sprintf("%s does not resolve: %v", host, err), "tcp", "tls", "http")
	}
	r.add(StepReach, "dns", Pass, host+" resolves to "+strings.Join(addrs, ", "))
	var d net.Dialer
	conn, err := d.DialContext(dctx, "tcp", net.JoinHostPort(host, port))
	if err != nil {
		return stop("tcp", fmt.Sprintf("no TCP connection to %s: %v", net.JoinHostPort(host, port), err), "tls", "http")
	}
	r.add(StepReach, "tcp", Pass, "connected to "+conn.RemoteAddr().String())
	if u.Scheme == "https" {
		tc := tls.Client(conn, &tls.Config{ServerName: host})
		err := tc.HandshakeContext(dctx)
		if err != nil {
			tc.Close()
			return stop("tls", "the TLS handshake failed: "+tlsWhy(err), "http")
		}
		cs := tc.ConnectionState()
		tc.Close()
		leaf := cs.PeerCertificates[0]
		left := time.Until(leaf.NotAfter)
		st, why := Pass, fmt.Sprintf("TLS %s; certificate for %s, valid until %s", tls.VersionName(cs.Version), strings.Join(leaf.DNSNames, ", "), leaf.NotAfter.Format("2006-01-02"))
		if left < 14*24*time.Hour {
			st, why = Warn, why+" (expires in "+plural.Count(int(left.Hours()/24), "day")+")"
		}
		r.add(StepReach, "tls", st, why, "issuer: "+leaf.Issuer.String())
	} else {
		conn.Close()
		st, why := Skip, "plain http"
		if !loopbackHost(host) {
			st, why = Warn, "plain http to a host that is not this machine: credentials and results cross the network unencrypted"
		}
		r.add(StepReach, "tls", st, why)
	}
	status, ctype, err := r.probe(ctx)
	r.probeStatus = status
	if err != nil {
		return stop("http", "the endpoint did not answer a POST: "+err.Error())
	}
	why := fmt.Sprintf("HTTP %d, Content-Type %q to a POST of server/discover", status, ctype)
	mt := strings.TrimSpace(strings.Split(ctype, ";")[0])
	switch {
	case status >= 500:
		return stop("http", why+": a server error")
	case status == http.StatusNotFound && mt != "application/json":
		return stop("http", why+": is this the MCP endpoint's path?")
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		r.add(StepReach, "http", Pass, why+": the endpoint asks for credentials")
	case mt == "application/json" || mt == "text/event-stream" || status >= 400:
		r.add(StepReach, "http", Pass, why)
	default:
		r.add(StepReach, "http", Warn, why+": an MCP endpoint answers JSON or an event stream")
	}
	return true
}

// probe POSTs a 2026-07-28 server/discover, which every era can answer without
// keeping state: a 2025 server refuses it (400) or answers -32601.
func (r *runner) probe(ctx context.Context) (int, string, error) {
	body := discoverBody()
	resp, err := r.post(ctx, body, func(h http.Header) {
		h.Set("MCP-Protocol-Version", client.ModernVersion)
		h.Set("Mcp-Method", "server/discover")
	}, nil)
	if err != nil {
		return 0, "", err
	}
	return resp.status, resp.header.Get("Content-Type"), nil
}

func tlsWhy(err error) string {
	var h x509.HostnameError
	var u x509.UnknownAuthorityError
	var c x509.CertificateInvalidError
	switch {
	case errors.As(err, &h):
		return "the certificate is not for this host: " + err.Error()
	case errors.As(err, &u):
		return "the certificate is signed by an unknown authority: " + err.Error()
	case errors.As(err, &c):
		return "the certificate is not valid: " + err.Error()
	}
	return err.Error()
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// answer is what one hand-made HTTP request got.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// post sends body to the endpoint with the target's own headers (its credentials),
// then edit's; host, when set, replaces the Host header. The body read is capped.
func (r *runner) post(ctx context.Context, body []byte, edit func(http.Header), host *string) (*answer, error) {
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, r.o.Target.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range r.o.Target.Header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	if edit != nil {
		edit(req.Header)
	}
	if host != nil {
		req.Host = *host
	}
	resp, err := r.o.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	// An event stream may stay open: the first 64 KiB say enough.
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return &answer{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

// endSession DELETEs a session a hand-made request opened, so none is left behind.
func (r *runner) endSession(ctx context.Context, a *answer) {
	if a == nil {
		return
	}
	id := a.header.Get("Mcp-Session-Id")
	if id == "" {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodDelete, r.o.Target.URL, nil)
	if err != nil {
		return
	}
	for k, v := range r.o.Target.Header {
		req.Header[k] = v
	}
	req.Header.Set("Mcp-Session-Id", id)
	if resp, err := r.o.HTTP.Do(req); err == nil {
		resp.Body.Close()
	}
}

func discoverBody() []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{` + modernMeta + `}}}`)
}

const modernMeta = `"io.modelcontextprotocol/protocolVersion":"` + client.ModernVersion + `","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpscope-check","version":"1"}`
