package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/redact"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/tap/live"
	"github.com/mcpscope/mcpscope/tap/proxy"
)

// runTapListen is `mcpscope tap --listen ADDR [--name NAME] [--record FILE|DIR] URL`:
// a reverse proxy on loopback to the server at URL, recording what the host that
// uses it sends and gets, until interrupted.
func runTapListen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tap", flag.ContinueOnError)
	var listen, name, rec string
	fs.StringVar(&listen, "listen", "", "ADDR: serve the tap on this loopback address (127.0.0.1:0: a free port); the host uses the URL it prints")
	fs.StringVar(&name, "name", "", "the tap's name (default: the server's host name)")
	fs.StringVar(&rec, "record", "", "FILE, or DIR for a dated file in it (default: $XDG_STATE_HOME/mcpscope/taps)")
	pos, argv, err := parse(fs, args, func([]string, string) bool { return false })
	if err != nil {
		return err
	}
	if len(argv) > 0 {
		return usageErr("tap --listen forwards to a URL, not to a command after --: mcpscope tap --listen 127.0.0.1:0 https://HOST/mcp")
	}
	if listen == "" || len(pos) != 1 {
		return usageErr("mcpscope tap --listen ADDR URL: name a loopback address and the server's URL, e.g. mcpscope tap --listen 127.0.0.1:0 https://example.com/mcp")
	}
	if err := proxy.CheckListenAddr(listen); err != nil {
		return usageErr("%v", err)
	}
	target, err := url.Parse(pos[0])
	if err != nil || (target.Scheme != "http" && target.Scheme != "https") || target.Host == "" {
		return usageErr("%q is not an http:// or https:// URL: name the server's MCP endpoint, e.g. https://example.com/mcp", redact.URL(pos[0], nil))
	}
	target.Fragment = ""
	shown := redact.URL(target.String(), nil)
	if name == "" {
		name = target.Hostname()
	}

	file, path, err := openTapRecording(rec)
	if err != nil {
		return &exitError{code: exitUsage, msg: "--record: " + err.Error()}
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		file.Close()
		os.Remove(path)
		return &exitError{code: exitServer, msg: fmt.Sprintf("tap: cannot listen on %s: %v", listen, err)}
	}
	// "localhost" may resolve to anything a hosts file says.
	if a, ok := ln.Addr().(*net.TCPAddr); !ok || !a.IP.IsLoopback() {
		ln.Close()
		file.Close()
		os.Remove(path)
		return usageErr("--listen %s: it resolved to %s, which is not loopback; use 127.0.0.1", listen, ln.Addr())
	}
	if sameEndpoint(target, ln.Addr().String()) {
		ln.Close()
		file.Close()
		os.Remove(path)
		return usageErr("the URL %s is the tap's own address: name the server's URL", shown)
	}

	var mu sync.Mutex // one line at a time, from any request's goroutine
	say := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(stderr, "mcpscope tap: "+msg)
	}
	// Tapped, as a stdio tap's header: the client is the host, so replay runs as it.
	h := record.Header{McpscopeVersion: client.Version, Target: record.Target{Transport: "http", URL: target.String()}, Tapped: true}
	liveStream, endLive := publishTap(live.Info{Name: name, URL: target.String(), Recording: path}, stderr)
	defer endLive()
	recorder := proxy.NewRecorder(file, liveStream, h, nil, say)
	px := proxy.New(proxy.Options{Target: target, Recorder: recorder, Warn: say})
	srv := &http.Server{Handler: px, ReadHeaderTimeout: 30 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}

	proxyURL := "http://" + ln.Addr().String() + target.EscapedPath()
	if target.RawQuery != "" {
		proxyURL += "?" + target.RawQuery
	}
	say(fmt.Sprintf("listening on %s -> %s", redact.URL(proxyURL, nil), shown))
	say("recording to " + path + " (interrupt to stop)")

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	var serr error
	select {
	case <-ctx.Done():
	case serr = <-served:
	}
	// Close ends every connection, SSE streams too; the requests then finish and
	// record how they ended before the recording closes.
	srv.Close()
	px.Wait()
	text := "the tap stopped"
	if serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		text = fmt.Sprintf("the tap stopped: %v", serr)
	}
	if err := recorder.Close(text); err != nil {
		say(fmt.Sprintf("the recording %s is incomplete: %v", path, err))
	} else {
		say("stopped; the recording is " + path)
	}
	if serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return &exitError{code: exitServer, msg: "tap: " + serr.Error()}
	}
	return nil
}

// sameEndpoint reports whether target names the tap's own listening address (a loop).
func sameEndpoint(target *url.URL, addr string) bool {
	if target.Scheme != "http" {
		return false
	}
	_, port, _ := net.SplitHostPort(addr)
	tport := target.Port()
	if tport == "" {
		tport = "80"
	}
	if tport != port {
		return false
	}
	ip := net.ParseIP(target.Hostname())
	return target.Hostname() == "localhost" || (ip != nil && ip.IsLoopback())
}
