package wire

import "testing"

// The SDK is handed a placeholder only for a result it has nothing to do with: a
// complete tools/call or resources/read result. A result that asks for input drives
// the SDK's 2026-07-28 input loop and must reach it; so must an error, and a tools/list
// (over HTTP the SDK's copy of the tools may be what its requests need).
func TestStandIn(t *testing.T) {
	for _, c := range []struct {
		method, id, msg, want string
	}{
		{"tools/call", `7`, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"big"}],"isError":true}}`, `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`},
		{"tools/call", `"a"`, `{"jsonrpc":"2.0","id":"a","result":{"resultType":"complete","content":[]}}`, `{"jsonrpc":"2.0","id":"a","result":{"content":[]}}`},
		{"resources/read", `3`, `{"jsonrpc":"2.0","id":3,"result":{"contents":[{"uri":"x","text":"big"}]}}`, `{"jsonrpc":"2.0","id":3,"result":{"contents":[]}}`},
		{"tools/call", `8`, `{"jsonrpc":"2.0","id":8,"result":{"resultType":"input_required","inputRequests":{"a":{}}}}`, ""},
		{"tools/call", `9`, `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"no"}}`, ""},
		{"tools/list", `4`, `{"jsonrpc":"2.0","id":4,"result":{"tools":[]}}`, ""},
		{"prompts/get", `5`, `{"jsonrpc":"2.0","id":5,"result":{"messages":[]}}`, ""},
	} {
		env, ok := httpEnvelope([]byte(c.msg)) // the one scan received makes
		if !ok {
			t.Fatalf("not a message: %s", c.msg)
		}
		if got := string(standIn(c.method, []byte(c.id), env.Result)); got != c.want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.method, c.msg, got, c.want)
		}
	}
}
