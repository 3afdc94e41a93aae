package host

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkHTTPEcho measures tools/call echo over loopback HTTP with raw net/http
// requests (no SDK client), sequentially and from parallel clients, in both eras.
func BenchmarkHTTPEcho(b *testing.B) {
	bodies := map[string]string{
		"2025-11-25": `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`,
		"2026-07-28": `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},` + modernMeta + `}}`,
	}
	for _, era := range eras {
		for _, mode := range []string{"sequential", "parallel"} {
			b.Run(era+"/"+mode, func(b *testing.B) {
				h, err := New(Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer h.Close()
				srv := httptest.NewServer(h.HTTPHandler())
				defer srv.Close()
				tr := srv.Client().Transport.(*http.Transport).Clone()
				tr.MaxIdleConnsPerHost = 256
				defer tr.CloseIdleConnections()
				client := &http.Client{Transport: tr}
				url, body := srv.URL+"/mcp", bodies[era]
				one := func() {
					req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json, text/event-stream")
					req.Header.Set("MCP-Protocol-Version", era)
					if era == "2026-07-28" {
						req.Header.Set("Mcp-Method", "tools/call")
						req.Header.Set("Mcp-Name", "echo")
					}
					resp, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Errorf("status %d", resp.StatusCode)
					}
				}
				b.ResetTimer()
				if mode == "sequential" {
					for b.Loop() {
						one()
					}
				} else {
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							one()
						}
					})
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
			})
		}
	}
}

// BenchmarkStdioEcho measures sequential tools/call echo between the SDK's client and
// the host over in-process pipes, per framing and era.
func BenchmarkStdioEcho(b *testing.B) {
	for _, framing := range []string{FramingNDJSON, FramingContentLength} {
		for _, era := range eras {
			b.Run(framing+"/"+era, func(b *testing.B) {
				h, err := New(Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer h.Close()
				inR, inW := io.Pipe()
				outR, outW := io.Pipe()
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() {
					ServeStdio(ctx, h.Server(), inR, outW, framing)
					outW.Close()
					close(done)
				}()
				defer func() { cancel(); inW.Close(); outR.Close(); <-done }()
				var t mcp.Transport = &mcp.IOTransport{Reader: outR, Writer: inW}
				if framing == FramingContentLength {
					t = &ContentLengthTransport{Reader: outR, Writer: inW}
				}
				c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
				cs, err := c.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: era})
				if err != nil {
					b.Fatal(err)
				}
				defer cs.Close()
				params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}
				b.ResetTimer()
				for b.Loop() {
					if _, err := cs.CallTool(ctx, params); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			})
		}
	}
}
