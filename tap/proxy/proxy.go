// Package proxy is `mcpscope tap --listen`: a reverse proxy on loopback between an
// MCP host and a remote server, which forwards every request and response as it is
// (streams as they arrive) and records the exchange as an ordinary mcpscope
// recording whose client side is the host.
//
// The host must never break because of the tap: a recording that fails stops, says
// so once, and forwarding goes on; the proxy adds and drops no header but the
// hop-by-hop ones, follows no redirect on the host's behalf, and passes every status
// (202, 401 with its WWW-Authenticate, 403) through as the server sent it.
package proxy

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/jsonscan"
	"github.com/mcpscope/mcpscope/internal/redact"
)

// Options configure a Proxy.
type Options struct {
	// Target is the server's URL; a request's path and query go to its origin as the
	// host sent them (the proxy's URL is the target's path on the proxy's origin).
	Target *url.URL
	// Transport does the round trips to the server; nil: a clone of
	// http.DefaultTransport that adds no Accept-Encoding of its own.
	Transport http.RoundTripper
	// Recorder records the traffic; nil: nothing is recorded.
	Recorder *Recorder
	// MaxRecord is the largest message (a body, an event's data) the recording keeps;
	// a bigger one passes through whole and is recorded as its size. 0:
	// wire.DefaultMaxFrame, the bound of every other mcpscope transport.
	MaxRecord int
	// Warn says something once to the person who started the tap (stderr).
	Warn func(string)
}

// Proxy is the reverse proxy, an http.Handler.
type Proxy struct {
	target   *url.URL
	origin   string // the target's origin, wire.Origin
	rt       http.RoundTripper
	rec      *Recorder
	max      int
	warn     func(string)
	exchange atomic.Int64
	wg       sync.WaitGroup
	once     sync.Map // warnings said once, by key
}

// holdMax is how much of a server-sent event the proxy holds back until the event
// is complete (to rewrite a legacy endpoint event). A host's SSE parser acts on
// complete events only, so holding one back delays nothing it could see; a bigger
// event is passed on as its bytes arrive.
const holdMax = 64 << 10

// New returns a proxy to opts.Target.
func New(opts Options) *Proxy {
	rt := opts.Transport
	if rt == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		// The host's own Accept-Encoding goes as it is; the transport adds none
		// (it would, and then decompress the body the host asked for as it is).
		t.DisableCompression = true
		rt = t
	}
	max := opts.MaxRecord
	if max <= 0 {
		max = wire.DefaultMaxFrame
	}
	warn := opts.Warn
	if warn == nil {
		warn = func(string) {}
	}
	if opts.Recorder == nil {
		max = 0 // nothing is kept of a message nobody records
	}
	return &Proxy{target: opts.Target, origin: wire.Origin(opts.Target), rt: rt, rec: opts.Recorder, max: max, warn: warn}
}

// Wait waits for the requests being served to finish (after the server closed their
// connections), so that their last events are recorded before the recording closes.
func (p *Proxy) Wait() { p.wg.Wait() }

func (p *Proxy) warnOnce(key, msg string) {
	if _, loaded := p.once.LoadOrStore(key, true); !loaded {
		p.warn(msg)
	}
}

func (p *Proxy) emit(e wire.Event) {
	if p.rec != nil {
		p.rec.Event(e)
	}
}

// hopByHop are the headers of one connection (RFC 9110 §7.6.1), which a proxy does
// not forward; the headers a Connection header names are too.
var hopByHop = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func removeHopByHop(h http.Header) {
	for _, v := range h.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, k := range hopByHop {
		h.Del(k)
	}
}

// exch is one request/response exchange.
type exch struct {
	n      int
	method string
	url    string // the server's URL of the request
}

func (x *exch) info() *wire.HTTPInfo {
	return &wire.HTTPInfo{Exchange: x.n, Method: x.method, URL: x.url}
}

// ServeHTTP forwards one request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.wg.Add(1)
	defer p.wg.Done()
	// DNS rebinding: a web page whose name resolves to 127.0.0.1 must not reach
	// the server through the tap. A host names the tap by a loopback address.
	if !loopbackHost(r.Host) {
		http.Error(w, fmt.Sprintf("mcpscope tap: refusing a request for host %q: the tap answers to loopback names only (127.0.0.1, [::1], localhost)", r.Host), http.StatusForbidden)
		return
	}
	u := *p.target
	u.Path, u.RawPath, u.RawQuery, u.Fragment = r.URL.Path, r.URL.RawPath, r.URL.RawQuery, ""
	// Query values with secret names (a legacy session id, an api_key) never reach
	// the recording, in the url member or in any text.
	x := &exch{n: int(p.exchange.Add(1)), method: r.Method, url: redact.URLOf(&u, nil)}
	if p.rec != nil {
		p.rec.QuerySecrets(&u)
	}

	// The response may start before the transport has read the request body to its
	// end (an SSE response flushed at once, a server that answers early); by default
	// Go's server then closes the body, and the transport, failing to finish the
	// request, closes the connection to the server mid-response.
	_ = http.NewResponseController(w).EnableFullDuplex()
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL = &u
	out.Host = "" // the server's own name, from the URL
	out.Close = false
	removeHopByHop(out.Header)
	if p.rec != nil {
		p.rec.Secret(out.Header)
	}
	info := x.info()
	info.Header = out.Header.Clone()
	p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Send, HTTP: info, Text: r.Method + " " + x.url})
	if _, ok := out.Header["User-Agent"]; !ok {
		// Go's transport would send its own; an empty value sends none.
		out.Header["User-Agent"] = []string{""}
	}
	if r.ContentLength == 0 {
		out.Body = http.NoBody
	} else {
		out.Body = &teeBody{rc: r.Body, buf: newRecBuf(p.max, r.ContentLength), done: func(data []byte, size int64, err error) {
			p.sent(x, data, size, err)
		}}
	}

	resp, err := p.rt.RoundTrip(out)
	if err != nil {
		fi := x.info()
		if r.Context().Err() != nil {
			fi.Error = "the host closed the connection before the server answered"
			p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: fi, Text: "failed: " + fi.Error})
			return
		}
		fi.Error = err.Error()
		p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: fi, Text: "failed: " + fi.Error})
		p.warnOnce("unreachable", fmt.Sprintf("cannot reach the server: %v (the host gets 502 Bad Gateway)", err))
		http.Error(w, fmt.Sprintf("mcpscope tap: cannot reach the server: %v", err), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	removeHopByHop(resp.Header)
	if p.rec != nil {
		p.rec.Secret(resp.Header) // Set-Cookie
	}
	ct := resp.Header.Get("Content-Type")
	ri := x.info()
	ri.Status = resp.StatusCode
	ri.Header = resp.Header.Clone()
	note := resp.Status
	if ct != "" {
		note += " (" + ct + ")"
	}
	p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: ri, Text: note})

	proxyOrigin := "http://" + r.Host
	h := w.Header()
	for k, vs := range resp.Header {
		h[k] = vs
	}
	// A redirect within the server's origin keeps the host on the tap; the tap
	// itself follows none.
	if loc := resp.Header.Get("Location"); loc != "" {
		if nu, ok := p.toProxy(loc, proxyOrigin); ok {
			h.Set("Location", nu)
		}
	}
	mt, _, _ := mime.ParseMediaType(ct)
	sse := mt == "text/event-stream"
	if sse {
		// An endpoint event rewritten to the proxy changes the stream's length.
		h.Del("Content-Length")
	}
	w.WriteHeader(resp.StatusCode)
	if sse {
		p.streamSSE(w, r, resp, x, proxyOrigin)
		return
	}
	p.streamBody(w, r, resp, x, mt)
}

// toProxy rewrites an absolute URL of the server's origin to the proxy's origin; ok
// is false for anything else (a relative URL needs nothing: the proxy keeps paths).
func (p *Proxy) toProxy(raw, proxyOrigin string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || wire.Origin(u) != p.origin {
		return "", false
	}
	return proxyOrigin + u.RequestURI(), true
}

// sent records a request's body once the transport has read it.
func (p *Proxy) sent(x *exch, data []byte, size int64, err error) {
	if err != nil && !errors.Is(err, io.EOF) {
		fi := x.info()
		p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Send, HTTP: fi, Text: fmt.Sprintf("the host's request body broke after %d bytes: %v", size, err)})
		return
	}
	if data == nil {
		p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Send, HTTP: x.info(), Size: int(size),
			Text: fmt.Sprintf("request body of %s, over the recording limit of %s: passed through, not recorded", wire.HumanBytes(size), wire.HumanBytes(int64(p.max)))})
		return
	}
	p.body(wire.Send, x, data, wire.FramingHTTP, nil, "application/json")
}

// body records one body or event's data: a JSON-RPC message as a message event,
// anything else (an error page, a 401's JSON) as an http event with the bytes.
func (p *Proxy) body(dir wire.Dir, x *exch, data []byte, framing wire.Framing, sse *wire.SSEInfo, mt string) {
	if len(bytes.TrimSpace(data)) == 0 {
		return
	}
	info := x.info()
	info.SSE = sse
	if (mt == "application/json" || mt == "") && isRPC(data) {
		p.emit(wire.Event{Kind: wire.KindMessage, Dir: dir, Data: data, Size: len(data), Framing: framing, HTTP: info})
		return
	}
	text := "body (not a JSON-RPC message)"
	if dir == wire.Recv {
		text = "response body"
		if mt != "" {
			text += " (" + mt + ")"
		}
		if framing == wire.FramingSSE {
			text = "server-sent event data that is not a JSON-RPC message"
		}
	}
	p.emit(wire.Event{Kind: wire.KindHTTP, Dir: dir, HTTP: info, Data: data, Text: text})
}

// streamBody passes a body that is not an event stream to the host as it arrives,
// and records it when it ends.
func (p *Proxy) streamBody(w http.ResponseWriter, r *http.Request, resp *http.Response, x *exch, mt string) {
	fl, _ := w.(http.Flusher)
	rec := newRecBuf(p.max, resp.ContentLength)
	var size int64
	buf := make([]byte, 32<<10)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			size += int64(n)
			rec.write(buf[:n])
			if _, werr := w.Write(buf[:n]); werr != nil {
				p.hostGone(x, fmt.Sprintf("the host closed the connection after %s of the response", wire.HumanBytes(size)))
				return
			}
			if fl != nil {
				fl.Flush()
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			if r.Context().Err() != nil {
				p.hostGone(x, fmt.Sprintf("the host closed the connection after %s of the response", wire.HumanBytes(size)))
				return
			}
			fi := x.info()
			fi.Error = fmt.Sprintf("the response broke after %s: %v", wire.HumanBytes(size), rerr)
			p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: fi, Text: "failed: " + fi.Error})
			// The host must see a broken response, not a short one that looks whole.
			panic(http.ErrAbortHandler)
		}
	}
	if rec.over {
		p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: x.info(), Size: int(size),
			Text: fmt.Sprintf("response body of %s, over the recording limit of %s: passed through, not recorded", wire.HumanBytes(size), wire.HumanBytes(int64(p.max)))})
		return
	}
	data := rec.bytes()
	if enc := strings.ToLower(resp.Header.Get("Content-Encoding")); enc != "" && enc != "identity" {
		d, err := p.decode(enc, data)
		if err != nil {
			p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: x.info(), Size: len(data),
				Text: fmt.Sprintf("response body in Content-Encoding %s (%v): passed through, not recorded", enc, err)})
			return
		}
		data = d
	}
	p.body(wire.Recv, x, data, wire.FramingHTTP, nil, mt)
}

// decode undoes a Content-Encoding for the recording (the host gets the bytes as
// they came), bounded by the recording limit.
func (p *Proxy) decode(enc string, data []byte) ([]byte, error) {
	var rd io.Reader
	switch enc {
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		rd = zr
	case "deflate":
		zr, err := zlib.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		rd = zr
	default:
		return nil, errors.New("not decoded by the tap")
	}
	out, err := io.ReadAll(io.LimitReader(rd, int64(p.max)+1))
	if err != nil {
		return nil, err
	}
	if len(out) > p.max {
		return nil, fmt.Errorf("over the recording limit of %s once decoded", wire.HumanBytes(int64(p.max)))
	}
	return out, nil
}

func (p *Proxy) hostGone(x *exch, text string) {
	fi := x.info()
	fi.Error = text
	p.emit(wire.Event{Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: fi, Text: text})
}

// teeBody is a request body on its way to the server, kept for the recording up to
// max bytes; done is called once, at its end or when it broke (data nil when it was
// over max).
type teeBody struct {
	rc   io.ReadCloser
	buf  *recBuf
	size int64
	once sync.Once
	done func(data []byte, size int64, err error)
}

func (b *teeBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.size += int64(n)
		b.buf.write(p[:n])
	}
	if err != nil {
		b.finish(err)
	}
	return n, err
}

func (b *teeBody) finish(err error) {
	b.once.Do(func() { b.done(b.buf.bytes(), b.size, err) })
}

func (b *teeBody) Close() error { return b.rc.Close() }

// isRPC reports whether data is a JSON-RPC message or batch: valid JSON, an array,
// or an object with a jsonrpc, method or id member (found without decoding the
// rest: a 100 MiB result is scanned, not decoded).
func isRPC(data []byte) bool {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || jsonscan.Valid(data) != nil {
		return false
	}
	if data[0] == '[' {
		return true
	}
	if data[0] != '{' {
		return false
	}
	i := skipWS(data, 1)
	for i < len(data) && data[i] == '"' {
		end, err := jsonscan.Skip(data, i)
		if err != nil {
			return false
		}
		switch string(data[i+1 : end-1]) {
		case "jsonrpc", "method", "id":
			return true
		}
		i = skipWS(data, end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipWS(data, i+1)
		if i, err = jsonscan.Skip(data, i); err != nil {
			return false
		}
		i = skipWS(data, i)
		if i < len(data) && data[i] == ',' {
			i = skipWS(data, i+1)
		}
	}
	return false
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// loopbackHost reports whether a Host header names a loopback address.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// CheckListenAddr refuses an ADDR that is not HOST:PORT on loopback: the tap passes
// the host's credentials on to the server, so nothing but this machine may reach it.
func CheckListenAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return fmt.Errorf("--listen %q: want HOST:PORT on loopback, such as 127.0.0.1:0 (a free port) or 127.0.0.1:5858", addr)
	}
	if loopbackHost(host) {
		return nil
	}
	what := fmt.Sprintf("%q is not a loopback address", host)
	switch {
	case host == "":
		what = "it listens on every network interface"
	case net.ParseIP(host) != nil && net.ParseIP(host).IsUnspecified():
		what = host + " listens on every network interface"
	}
	return fmt.Errorf("--listen %s: %s; the tap listens on loopback only (it forwards the host's credentials), use 127.0.0.1:%s", addr, what, port)
}
