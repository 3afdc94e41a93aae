package client_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// The bundled host echoes a request's trace context as a log message (logger
// "trace") to a client that asked for log messages, in both eras: logging/setLevel
// before 2026-07-28, the request's logLevel _meta from then.
func TestHostEchoesTraceContextAsALogMessage(t *testing.T) {
	t.Parallel()
	const tp, ts = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "congo=t61rcWkgMzE"
	for _, protocol := range []string{"", "2025-11-25"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var logs []string
			opts := client.Options{LogLevel: "info", TraceParent: tp, TraceState: ts, OnLog: func(m client.LogMessage) {
				mu.Lock()
				defer mu.Unlock()
				if m.Logger == "trace" {
					logs = append(logs, string(m.Data))
				}
			}}
			s, _ := hostSession(t, opts, protocol)
			if _, err := s.Call(ctx(t), "echo", json.RawMessage(`{"text":"hi"}`), client.CallOptions{}); err != nil {
				t.Fatal(err)
			}
			want := `{"method":"tools/call","traceparent":"` + tp + `","tracestate":"` + ts + `"}`
			testutil.Eventually(t, "the host's trace log message for the call", func() (bool, string) {
				mu.Lock()
				defer mu.Unlock()
				for _, l := range logs {
					if l == want {
						return true, ""
					}
				}
				return false, strings.Join(logs, "\n")
			})
		})
	}
}
