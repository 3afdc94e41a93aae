package client_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpscope/mcpscope/client"
)

// gzipBomb is a gzip stream of a JSON-RPC response whose text is mib MiB of "0",
// about a thousandth of that in size.
func gzipBomb(mib int) ([]byte, error) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	fmt.Fprint(zw, `{"jsonrpc":"2.0","id":ID,"result":{"content":[{"type":"text","text":"`)
	zeros := bytes.Repeat([]byte{'0'}, 1<<20)
	for range mib {
		zw.Write(zeros)
	}
	fmt.Fprint(zw, `"}]}}`)
	err := zw.Close()
	return buf.Bytes(), err
}

var bigBomb = sync.OnceValues(func() ([]byte, error) { return gzipBomb(1024) })

func bombServer(t *testing.T, bomb []byte) string {
	return newFake(t, &fakeHTTP{call: func(w http.ResponseWriter, r *http.Request, id, args json.RawMessage) bool {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb) // the id inside is wrong, but the body is refused before that matters
		return true
	}})
}

// A gzip bomb (64 KiB that inflate to 64 MiB) is refused at the limit, counted in
// decompressed bytes, with one clear error.
func TestHTTPGzipBombIsRefusedAtTheLimit(t *testing.T) {
	t.Parallel()
	bomb, err := gzipBomb(64)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := connectURL(t, client.Target{URL: bombServer(t, bomb)}, client.Options{MaxFrame: 8 << 20})
	_, err = s.Call(ctx(t), "echo", nil, client.CallOptions{})
	if err == nil || !strings.Contains(err.Error(), "over the 8.0 MiB limit (--max-frame)") {
		t.Fatalf("gzip bomb: %v", err)
	}
}

// BenchmarkHTTPGzipBomb: a 1 MiB body that inflates to 1 GiB, refused at the default
// 256 MiB limit. B/op is what reading it allocated (about the limit once; a doubling
// buffer allocated several times the limit).
//
//	go test -run '^$' -bench GzipBomb -benchtime 3x ./client
func BenchmarkHTTPGzipBomb(b *testing.B) {
	bomb, err := bigBomb()
	if err != nil {
		b.Fatal(err)
	}
	f := &fakeHTTP{
		tools: `[{"name":"echo","inputSchema":{"type":"object"}}]`,
		call: func(w http.ResponseWriter, r *http.Request, id, args json.RawMessage) bool {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb)
			return true
		},
	}
	srv := httptest.NewServer(f)
	defer srv.Close()
	s, err := client.Connect(context.Background(), client.Target{URL: srv.URL + "/mcp"}, client.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Call(context.Background(), "echo", nil, client.CallOptions{}); err == nil {
			b.Fatal("the bomb was accepted")
		}
	}
}
