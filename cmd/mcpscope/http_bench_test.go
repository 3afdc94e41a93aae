package main_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"sync/atomic"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// These benchmarks time `mcpscope --inspect URL` against local HTTP servers, and a bare
// go-sdk client doing the same (connect, list every tool, close) as the baseline
// (target: within 1.2x). Each also reports HTTP round trips per run, counted by a
// proxy in front of the server. Run with
//
//	go test -run '^$' -bench HTTP -benchtime 20x ./cmd/mcpscope

// countingProxy forwards to addr and counts the requests.
func countingProxy(b *testing.B, addr string) (string, *atomic.Int64) {
	target, _ := url.Parse("http://" + addr)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		rp.ServeHTTP(w, r)
	}))
	b.Cleanup(srv.Close)
	return srv.URL, &n
}

func benchHTTP(b *testing.B, addr, path string, bare bool) {
	proxy, n := countingProxy(b, addr)
	argv := []string{testutil.Mcpscope(b), "--inspect", proxy + path}
	if bare {
		argv = []string{testutil.Build(b, "./cmd/mcpscope/testdata/barego"), proxy + path}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(argv[0], argv[1:]...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", argv, err, out)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(n.Load())/float64(b.N), "round-trips/op")
}

// server-everything over Streamable HTTP: the legacy era with a session.
func BenchmarkInspectHTTPEverything(b *testing.B) {
	srv := testutil.EverythingHTTP(b, "streamableHttp")
	benchHTTP(b, srv.Addr, "/mcp", false)
}

func BenchmarkBareGoSDKEverything(b *testing.B) {
	srv := testutil.EverythingHTTP(b, "streamableHttp")
	benchHTTP(b, srv.Addr, "/mcp", true)
}

// The TypeScript SDK v2 server: stateless 2026-07-28.
func BenchmarkInspectHTTPTypeScriptV2(b *testing.B) {
	srv := testutil.StartNode(b, "ts-server.mjs")
	benchHTTP(b, srv.Addr, "/mcp", false)
}

func BenchmarkBareGoSDKTypeScriptV2(b *testing.B) {
	srv := testutil.StartNode(b, "ts-server.mjs")
	benchHTTP(b, srv.Addr, "/mcp", true)
}
