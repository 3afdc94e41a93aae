package deprecated

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestFind(t *testing.T) {
	for _, tc := range []struct {
		name string
		use  Use
		want []string
	}{
		{"nothing", Use{Capabilities: json.RawMessage(`{"tools":{}}`), Transport: "stdio"}, nil},
		{"malformed capabilities", Use{Capabilities: json.RawMessage(`[1]`)}, nil},
		{"logging", Use{Capabilities: json.RawMessage(`{"logging":{}}`)}, []string{"logging"}},
		{"sampling with context", Use{Requests: []string{"sampling/createMessage"}, IncludeContext: []string{"none", "allServers"}}, []string{"sampling", "sampling includeContext"}},
		{"roots and elicitation", Use{Requests: []string{"elicitation/create", "roots/list"}}, []string{"roots"}},
		{"sse", Use{Transport: TransportSSE}, []string{"HTTP+SSE"}},
	} {
		var got []string
		for _, n := range Find(tc.use) {
			got = append(got, n.Feature)
			if n.Since == "" || n.Ref == "" || n.How == "" {
				t.Errorf("%s: notice without its revision, reference or how: %+v", tc.name, n)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v; want %v", tc.name, got, tc.want)
		}
	}
	n := Find(Use{Transport: TransportSSE})[0]
	if s := n.String(); s != "HTTP+SSE: the server speaks the HTTP+SSE transport of 2024-11-05; deprecated by 2025-03-26 (the Streamable HTTP transport replaced it)" {
		t.Errorf("String() = %q", s)
	}
}
