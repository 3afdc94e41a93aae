package replay

import (
	"strings"
	"testing"
)

// multiRound is a 2026-07-28 tool that asks twice (like the conformance host's
// test_input_required_result_multi_round): each retry carries the answers and the
// requestState of the round before.
const multiRound = `{"mcpscope":"recording","version":1,"target":{"transport":"stdio","argv":["srv"]}}
{"t":0.1,"dir":"send","msg":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mr","arguments":{}}}}
{"t":0.1,"dir":"recv","msg":{"jsonrpc":"2.0","id":3,"result":{"resultType":"input_required","inputRequests":{"step1":{"method":"elicitation/create","params":{"message":"Step 1"}}},"requestState":"s1"}}}
{"t":0.2,"dir":"send","msg":{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"mr","arguments":{},"inputResponses":{"step1":{"action":"accept","content":{"name":"ann"}}},"requestState":"s1"}}}
{"t":0.2,"dir":"recv","msg":{"jsonrpc":"2.0","id":4,"result":{"resultType":"input_required","inputRequests":{"step2":{"method":"elicitation/create","params":{"message":"Step 2"}}},"requestState":"s2"}}}
{"t":0.3,"dir":"send","msg":{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"mr","arguments":{},"inputResponses":{"step2":{"action":"accept","content":{"color":"red"}}},"requestState":"s2"}}}
{"t":0.3,"dir":"recv","msg":{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","content":[{"type":"text","text":"ann likes red."}]}}}
{"t":0.4,"kind":"end"}
`

// A retried request is answered by the step of the chain its requestState names:
// round 1's retry gets round 2's question, round 2's the final result, however the
// client answered and however often it runs the call (a second run once answered
// round 1's retry with the final result, skipping round 2).
func TestMockAnswersARetryByItsRequestState(t *testing.T) {
	m := mock(t, multiRound)
	for run := 1; run <= 2; run++ {
		steps := []struct{ req, want string }{
			{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mr","arguments":{}}}`, `"requestState":"s1"`},
			{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mr","arguments":{},"inputResponses":{"step1":{"action":"accept","content":{"name":"zed"}}},"requestState":"s1"}}`, `"requestState":"s2"`},
			{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mr","arguments":{},"inputResponses":{"step2":{"action":"accept","content":{"color":"blue"}}},"requestState":"s2"}}`, `ann likes red.`},
		}
		for i, s := range steps {
			got := strings.Join(ask(m, s.req), "\n")
			if !strings.Contains(got, s.want) {
				t.Fatalf("run %d, request %d: want an answer with %s, got %s", run, i+1, s.want, got)
			}
		}
	}
}
