package client_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/deprecated"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

func features(ns []deprecated.Notice) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Feature+"@"+n.Since)
	}
	return out
}

// A server that asks for roots and a model reply has used two features 2026-07-28
// deprecated (SEP-2577), in both eras: on the wire in 2025-11-25, inside
// input_required results in 2026-07-28. Before it asks, only its logging capability
// is named.
func TestDeprecatedFeaturesTheServerUsed(t *testing.T) {
	t.Parallel()
	for _, protocol := range []string{"", "2025-11-25"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			t.Parallel()
			opts := client.Options{
				Roots: []client.Root{{URI: "file:///tmp/work", Name: "work"}},
				Sample: func(context.Context, client.SamplingRequest) (client.SamplingResponse, error) {
					return client.SamplingResponse{Text: "ok"}, nil
				},
			}
			s, _ := hostSession(t, opts, protocol)
			if got := features(s.Deprecated()); !slices.Equal(got, []string{"logging@2026-07-28"}) {
				t.Fatalf("before any request: %v", got)
			}
			for _, tool := range []string{"roots", "sample"} {
				r, err := s.Call(ctx(t), tool, json.RawMessage(`{}`), client.CallOptions{})
				if err != nil || r.IsError {
					t.Fatalf("%s: %+v %v", tool, r, err)
				}
			}
			want := []string{"logging@2026-07-28", "sampling@2026-07-28", "roots@2026-07-28"}
			if got := features(s.Deprecated()); !slices.Equal(got, want) {
				t.Errorf("after roots and sample: %v; want %v", got, want)
			}
		})
	}
}

// The legacy HTTP+SSE transport, deprecated by 2025-03-26.
func TestDeprecatedTransportSSE(t *testing.T) {
	t.Parallel()
	srv := testutil.EverythingHTTP(t, "sse")
	s, _ := connectURL(t, client.Target{URL: "http://" + srv.Addr + "/sse"}, client.Options{Timeout: testutil.Patience})
	if got := features(s.Deprecated()); !slices.Contains(got, "HTTP+SSE@2025-03-26") {
		t.Errorf("over HTTP+SSE: %v", got)
	}
}
