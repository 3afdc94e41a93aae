package host

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serveLimited runs ServeHTTPWithLimits on 127.0.0.1:0 until the test ends and returns
// its address.
func serveLimited(t *testing.T, limits HTTPLimits) string {
	t.Helper()
	h := newHost(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- ServeHTTPWithLimits(ctx, h.HTTPHandler(), "127.0.0.1:0", false, limits, func(a net.Addr) { addrc <- a })
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-errc:
		case <-time.After(30 * time.Second):
			t.Error("ServeHTTPWithLimits did not return after cancel")
		}
	})
	select {
	case a := <-addrc:
		return a.String()
	case err := <-errc:
		t.Fatal(err)
	}
	return ""
}

// heldConn is a raw connection of the test; closed reports when the server has closed
// it (a read returned EOF or a reset).
type heldConn struct {
	net.Conn
	closed chan struct{}
}

func dialHeld(t *testing.T, addr, send string) *heldConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, send); err != nil {
		t.Fatal(err)
	}
	h := &heldConn{Conn: c, closed: make(chan struct{})}
	go func() {
		// Read (and drop) whatever the server answers until it closes; the test's own
		// Close at cleanup ends this too, after the test has looked.
		io.Copy(io.Discard, c)
		close(h.closed)
	}()
	return h
}

const slowBody = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":"

// Connections that send half a body, and keep-alive connections left idle, are closed
// by the server after the body and idle timeouts; an SSE stream that outlives both is
// not cut.
func TestHTTPSlowAndIdleConnectionsAreClosed(t *testing.T) {
	addr := serveLimited(t, HTTPLimits{BodyTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond, MaxConns: 1000})
	var held []*heldConn
	for range 20 {
		held = append(held, dialHeld(t, addr, slowBody))
	}
	for range 20 {
		// A complete request on a keep-alive connection, then nothing.
		held = append(held, dialHeld(t, addr, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
	}

	// A streamed call whose notifications come over more time than either timeout
	// (the slow tool sleeps between its steps) gets its whole stream.
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{"steps":4,"delayMs":250},` +
		strings.Replace(modernMeta, `{`, `{"progressToken":"p",`, 1) + `}}`
	r := post(t, "http://"+addr+"/mcp", modernHeaders("tools/call", "slow"), body)
	if !strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") || strings.Count(r.body, "notifications/progress") != 4 {
		t.Fatalf("SSE stream cut short: %d %s\n%s", r.status, r.header.Get("Content-Type"), r.body)
	}
	if res, rpcErr := r.rpc(t); rpcErr != nil || res == nil {
		t.Fatalf("stream ended without its result: %v %v", res, rpcErr)
	}

	deadline := time.After(30 * time.Second)
	for i, h := range held {
		select {
		case <-h.closed:
		case <-deadline:
			t.Fatalf("connection %d (of 20 slow-body, then 20 idle) still open 30 s after the timeouts", i)
		}
	}
}

// With the connection cap reached by clients that never finish their request, a new
// client is still served: the oldest of them is cut to make room.
func TestHTTPConnectionCapServesNewClients(t *testing.T) {
	const max = 8
	addr := serveLimited(t, HTTPLimits{BodyTimeout: time.Hour, HeaderTimeout: time.Hour, MaxConns: max})
	// max slow clients fill the cap, and three more each take the place of one.
	var held []*heldConn
	for range max + 3 {
		held = append(held, dialHeld(t, addr, slowBody))
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("a new client was not served within 30 s while slow clients held the cap of %d", max)
		}
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %s", resp.Status)
	}
	// Four slow connections were cut: one for each of the three late slow clients,
	// one for the new client. The others are still open (their timeouts are an hour).
	closed := func() int {
		n := 0
		for _, h := range held {
			select {
			case <-h.closed:
				n++
			default:
			}
		}
		return n
	}
	deadline := time.Now().Add(30 * time.Second)
	for closed() < 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := closed(); n != 4 {
		t.Fatalf("%d of the %d slow connections were cut; want 4, so that at most %d are open", n, len(held), max)
	}
}
