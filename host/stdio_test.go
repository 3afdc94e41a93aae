package host

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveStdio runs ServeStdio over pipes and returns the client's ends. The returned
// channel yields ServeStdio's error once it returns; the test's cleanup waits for it.
func serveStdio(t *testing.T, h *Host, framing string) (toServer io.WriteCloser, fromServer io.ReadCloser, done <-chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		err := ServeStdio(ctx, h.Server(), inR, outW, framing)
		outW.Close()
		errc <- err
	}()
	result := make(chan error, 1)
	var once sync.Once
	wait := func() error {
		var err error
		once.Do(func() { err = <-errc; result <- err })
		return err
	}
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
		wait()
	})
	go wait()
	return inW, outR, result
}

func TestStdioSDKClient(t *testing.T) {
	for _, framing := range []string{FramingNDJSON, FramingContentLength} {
		for _, version := range eras {
			t.Run(framing+"/"+version, func(t *testing.T) {
				h := newHost(t, Options{})
				toServer, fromServer, done := serveStdio(t, h, framing)
				var transport mcp.Transport = &mcp.IOTransport{Reader: fromServer, Writer: toServer}
				if framing == FramingContentLength {
					transport = &ContentLengthTransport{Reader: fromServer, Writer: toServer}
				}
				progress := make(chan float64, 10)
				c := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "0"}, &mcp.ClientOptions{
					ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
						progress <- req.Params.Progress
					},
					ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Pipe"}}, nil
					},
				})
				cs, err := c.Connect(t.Context(), transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
				if err != nil {
					t.Fatal(err)
				}
				if got := cs.InitializeResult().ProtocolVersion; got != version {
					t.Errorf("negotiated %s", got)
				}
				tools, err := cs.ListTools(t.Context(), nil)
				if err != nil || len(tools.Tools) < 19 {
					t.Fatalf("tools/list: %d tools, %v", len(tools.Tools), err)
				}
				if got := textOf(call(t, cs, "echo", map[string]any{"text": "über\nline"})); got != "über\nline" {
					t.Errorf("echo = %q", got)
				}
				params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"steps": 2, "delayMs": 1}}
				params.SetProgressToken("p")
				if _, err := cs.CallTool(t.Context(), params); err != nil {
					t.Fatal(err)
				}
				for range 2 {
					<-progress
				}
				if got := textOf(call(t, cs, "ask", nil)); got != "Hello, Pipe!" {
					t.Errorf("ask = %q", got)
				}
				if got := textOf(call(t, cs, "big", map[string]any{"megabytes": 2})); len(got) != 2<<20 {
					t.Errorf("big over stdio: %d bytes", len(got))
				}
				if err := cs.Close(); err != nil {
					t.Logf("close: %v", err)
				}
				if err := <-done; err != nil {
					t.Errorf("ServeStdio after the client closed stdin = %v; want nil", err)
				}
			})
		}
	}
}

// TestStdioPipedRequests is "printf '…' | mcpscope host": requests already sent when
// stdin ends are still answered.
func TestStdioPipedRequests(t *testing.T) {
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`,
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"slow","arguments":{"steps":2,"delayMs":20}}}`,
	}
	var out bytes.Buffer
	err := ServeStdio(t.Context(), newHost(t, Options{}).Server(), strings.NewReader(strings.Join(lines, "\n")+"\n"), &out, "")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			t.Fatalf("stdout line %q: %v", sc.Text(), err)
		}
		ids[string(msg.ID)] = true
	}
	for _, id := range []string{`1`, `2`, `"three"`} {
		if !ids[id] {
			t.Errorf("no response with id %s in:\n%s", id, out.String())
		}
	}
}

// TestContentLengthWire checks the exact framing and that a broken frame is answered
// with -32700 without ending the session.
func TestContentLengthWire(t *testing.T) {
	frame := func(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	input := frame(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`) +
		frame(`not json`) +
		// other headers and a lower-case name, LF-only line ends
		"content-type: application/vscode-jsonrpc; charset=utf-8\ncontent-length: " +
		fmt.Sprint(len(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"cl"},`+meta+`}}`)) +
		"\n\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"cl"},` + meta + `}}`
	var out bytes.Buffer
	if err := ServeStdio(t.Context(), newHost(t, Options{}).Server(), strings.NewReader(input), &out, FramingContentLength); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(&out)
	var bodies []string
	for {
		body, err := readFrame(r, MaxFrameBytes)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("server output is not Content-Length framed: %v\n%q", err, out.String())
		}
		bodies = append(bodies, string(body))
	}
	if len(bodies) != 3 {
		t.Fatalf("got %d frames; want 3: %q", len(bodies), bodies)
	}
	all := strings.Join(bodies, "\n")
	for _, want := range []string{`"supportedVersions"`, `"code":-32700`, `"text":"cl"`} {
		if !strings.Contains(all, want) {
			t.Errorf("frames do not contain %s:\n%s", want, all)
		}
	}
}

func TestContentLengthFramingErrors(t *testing.T) {
	tests := []struct{ input, want string }{
		{"Content-Length: 5\r\n\r\n{}", "reading a 5-byte body"},
		{"Content-Length: x\r\n\r\n", "bad Content-Length"},
		{"X-Other: 1\r\n\r\n{}", "without Content-Length"},
		{"{\"jsonrpc\":\"2.0\"}\n", "seems to use NDJSON framing"},
		{"Content-Length: 2\r\nbad line\r\n\r\n{}", "bad header line"},
		{"Content-Length: 99999999999\r\n\r\n", "exceeds"},
	}
	for _, tt := range tests {
		_, err := readFrame(bufio.NewReader(strings.NewReader(tt.input)), MaxFrameBytes)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("readFrame(%q) = %v; want %q", tt.input, err, tt.want)
		}
	}
	if _, err := readFrame(bufio.NewReader(strings.NewReader("\r\n")), MaxFrameBytes); err != io.EOF {
		t.Errorf("trailing blank line: %v; want io.EOF", err)
	}
}

func TestServeStdioUnknownFraming(t *testing.T) {
	err := ServeStdio(t.Context(), newHost(t, Options{}).Server(), strings.NewReader(""), io.Discard, "lsp")
	if err == nil || !strings.Contains(err.Error(), `unknown framing "lsp"`) {
		t.Errorf("err = %v", err)
	}
}
