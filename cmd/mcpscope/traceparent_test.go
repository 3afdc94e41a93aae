package main_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

const (
	someTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	someTracestate  = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"
)

// tsTraceServer is the command of interop/ts-trace-server.mjs, a stdio server on the
// TS SDK v2 whose seen tool reports the trace context of every request it got.
func tsTraceServer(t *testing.T) []string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed: %v", err)
	}
	return []string{node, filepath.Join(testutil.Root(), "interop", "ts-trace-server.mjs")}
}

type seenRequest struct {
	Method      string  `json:"method"`
	Traceparent *string `json:"traceparent"`
	Tracestate  *string `json:"tracestate"`
}

func seenRequests(t *testing.T, stdout string) []seenRequest {
	t.Helper()
	var seen []seenRequest
	if err := json.Unmarshal([]byte(strings.TrimSpace(stdout)), &seen); err != nil {
		t.Fatalf("the seen tool's answer: %v\n%s", err, stdout)
	}
	methods := map[string]bool{}
	for _, r := range seen {
		methods[r.Method] = true
	}
	for _, m := range []string{"initialize", "tools/list", "tools/call"} {
		if !methods[m] {
			t.Errorf("the server saw no %s: %+v", m, seen)
		}
	}
	return seen
}

// --traceparent and --tracestate reach a TS SDK v2 server in params._meta of every
// request mcpscope sends: the handshake, the list and the call.
func TestTraceparentReachesTheTSServer(t *testing.T) {
	t.Parallel()
	args := append([]string{"call", "seen", "--traceparent", someTraceparent, "--tracestate", someTracestate, "--"}, tsTraceServer(t)...)
	r := mcpscope(t, nil, args...)
	expect(t, r, 0, nil, nil)
	for _, s := range seenRequests(t, r.stdout) {
		if s.Traceparent == nil || *s.Traceparent != someTraceparent || s.Tracestate == nil || *s.Tracestate != someTracestate {
			t.Errorf("%s arrived with traceparent %v, tracestate %v", s.Method, s.Traceparent, s.Tracestate)
		}
	}
	// Without the flags nothing is added.
	r = mcpscope(t, nil, append([]string{"call", "seen", "--"}, tsTraceServer(t)...)...)
	expect(t, r, 0, nil, nil)
	for _, s := range seenRequests(t, r.stdout) {
		if s.Traceparent != nil || s.Tracestate != nil {
			t.Errorf("%s carries a trace context nobody asked for", s.Method)
		}
	}
}

// --traceparent new makes one trace for the run, named on stderr, which every
// request carries.
func TestTraceparentNew(t *testing.T) {
	t.Parallel()
	r := mcpscope(t, nil, append([]string{"call", "seen", "--traceparent", "new", "--"}, tsTraceServer(t)...)...)
	expect(t, r, 0, nil, nil)
	m := regexp.MustCompile(`mcpscope: traceparent (00-[0-9a-f]{32}-[0-9a-f]{16}-01)\n`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("stderr names no traceparent:\n%s", r.stderr)
	}
	for _, s := range seenRequests(t, r.stdout) {
		if s.Traceparent == nil || *s.Traceparent != m[1] {
			t.Errorf("%s arrived with %v, want the generated %s", s.Method, s.Traceparent, m[1])
		}
	}
}

func TestTraceparentBadInput(t *testing.T) {
	t.Parallel()
	expect(t, mcpscope(t, nil, "call", "echo", "--traceparent", "4bf92f3577b34da6a3ce929d0e0e4736"), 2, nil,
		[]string{`--traceparent "4bf92f3577b34da6a3ce929d0e0e4736": not a version-00 W3C traceparent; give 00-<32 hex>-<16 hex>-<2 hex> (lowercase), or "new"`})
	expect(t, mcpscope(t, nil, "call", "echo", "--traceparent", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"), 2, nil,
		[]string{"the trace id is all zeros"})
	expect(t, mcpscope(t, nil, "call", "echo", "--tracestate", "a=b"), 2, nil, []string{"--tracestate needs --traceparent"})
	expect(t, mcpscope(t, nil, "call", "echo", "--traceparent", someTraceparent, "--tracestate", "no equals"), 2, nil, []string{`member "no equals" is not key=value`})
}

// The bundled host echoes the trace context of each request in its log (stderr,
// which --trace shows), on stdio and over HTTP.
func TestHostEchoesTraceparent(t *testing.T) {
	t.Parallel()
	r := mcpscope(t, nil, "call", "echo", "text=hi", "--traceparent", someTraceparent, "--tracestate", someTracestate, "--trace", "--", testutil.Mcpscope(t), "host")
	expect(t, r, 0, []string{"hi"}, []string{
		`msg="trace context" method=tools/list traceparent=` + someTraceparent + ` tracestate="` + someTracestate + `"`,
		`msg="trace context" method=tools/call traceparent=` + someTraceparent,
	})
}

// Over HTTP the trace context goes in the POSTed request too, and the host's log says
// it arrived.
func TestHostEchoesTraceparentHTTP(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(testutil.Mcpscope(t), "host", "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var log strings.Builder
	urls := make(chan string, 1)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			if m := regexp.MustCompile(`(http://127\.0\.0\.1:\d+/mcp)`).FindStringSubmatch(lines.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
			mu.Lock()
			log.WriteString(lines.Text() + "\n")
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		<-drained
		cmd.Wait()
	})
	var url string
	testutil.Eventually(t, "the host's URL", func() (bool, string) {
		select {
		case url = <-urls:
			return true, ""
		default:
			return false, "no URL on the host's stderr yet"
		}
	})
	expect(t, mcpscope(t, nil, "call", "echo", "text=hi", "--traceparent", someTraceparent, url), 0, []string{"hi"}, nil)
	testutil.Eventually(t, "the host's log of the call's trace context", func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(log.String(), `msg="trace context" method=tools/call traceparent=`+someTraceparent), log.String()
	})
}

// A server's own traceparent (here in a log message's _meta, from the TS SDK v2) is
// kept in a recording as the server sent it, beside the one mcpscope sent.
func TestRecordingKeepsTraceparent(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "trace.jsonl")
	args := append([]string{"call", "traced", "--traceparent", someTraceparent, "--record", file, "--"}, tsTraceServer(t)...)
	expect(t, mcpscope(t, nil, args...), 0, []string{"traced"}, nil)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var sent, recv bool
	for _, line := range strings.Split(string(b), "\n") {
		var rec struct {
			Dir string `json:"dir"`
			Msg struct {
				Method string `json:"method"`
				Params struct {
					Meta map[string]any `json:"_meta"`
				} `json:"params"`
			} `json:"msg"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		switch {
		case rec.Dir == "send" && rec.Msg.Method == "tools/call":
			sent = rec.Msg.Params.Meta["traceparent"] == someTraceparent
		case rec.Dir == "recv" && rec.Msg.Method == "notifications/message":
			recv = rec.Msg.Params.Meta["traceparent"] == "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
		}
	}
	if !sent || !recv {
		t.Errorf("the recording lacks the traceparent sent (%v) or the server's (%v):\n%s", sent, recv, b)
	}
}
