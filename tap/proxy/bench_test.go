package proxy

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/record"
)

// bigResult is a 100 MiB tools/call result, as a server sends it.
func bigResult() []byte {
	const size = 100 << 20
	head := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`
	tail := `"}]}}`
	return []byte(head + strings.Repeat("x", size-len(head)-len(tail)) + tail)
}

func bigServer(b *testing.B, body []byte, sse bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if sse {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "id: 1\ndata: ")
			w.Write(body)
			fmt.Fprint(w, "\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

func fetchAll(b *testing.B, u string) {
	resp, err := http.Post(u, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big"}}`))
	if err != nil {
		b.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if n < 100<<20 {
		b.Fatalf("got %d bytes", n)
	}
}

// BenchmarkBigResult: a 100 MiB result straight from the server, and through the
// tap with its recording (to a file), as JSON and as one SSE event. Compare ns/op
// (the time) and B/op (what the tap allocates: the recording's copy of the message).
//
//	go test -run XXX -bench BigResult -benchtime 5x ./tap/proxy/
func BenchmarkBigResult(b *testing.B) {
	body := bigResult()
	for _, sse := range []bool{false, true} {
		kind := "json"
		if sse {
			kind = "sse"
		}
		srv := bigServer(b, body, sse)
		b.Run(kind+"/direct", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				fetchAll(b, srv.URL+"/mcp")
			}
		})
		b.Run(kind+"/tapped-unrecorded", func(b *testing.B) {
			target, _ := url.Parse(srv.URL + "/mcp")
			px := New(Options{Target: target})
			ps := httptest.NewServer(px)
			defer func() { ps.Close(); px.Wait() }()
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				fetchAll(b, ps.URL+"/mcp")
			}
		})
		b.Run(kind+"/tapped-to-discard", func(b *testing.B) {
			target, _ := url.Parse(srv.URL + "/mcp")
			rec := NewRecorder(nopCloser{io.Discard}, nil, record.Header{}, nil, func(s string) { b.Log(s) })
			px := New(Options{Target: target, Recorder: rec})
			ps := httptest.NewServer(px)
			defer func() { ps.Close(); px.Wait(); rec.Close("done") }()
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				fetchAll(b, ps.URL+"/mcp")
			}
		})
		b.Run(kind+"/tapped", func(b *testing.B) {
			target, _ := url.Parse(srv.URL + "/mcp")
			f, err := record.OpenFile(filepath.Join(b.TempDir(), "tap.jsonl"))
			if err != nil {
				b.Fatal(err)
			}
			rec := NewRecorder(f, nil, record.Header{}, nil, func(s string) { b.Log(s) })
			px := New(Options{Target: target, Recorder: rec})
			ps := httptest.NewServer(px)
			defer func() { ps.Close(); px.Wait(); rec.Close("done") }()
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				fetchAll(b, ps.URL+"/mcp")
			}
		})
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
