package inspect

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
)

// ArgumentViolations judges what would be sent against the whole schema, says nothing
// of a tool without a schema, and hands an unusable schema back as an error (the call
// then goes out and the server judges it) rather than refusing the call.
func TestArgumentViolations(t *testing.T) {
	tool := func(schema string) client.Tool {
		return client.Tool{Name: "t", InputSchema: json.RawMessage(schema)}
	}
	strict := tool(`{"type":"object","properties":{"n":{"type":"number"},"mode":{"enum":["a","b"]}},"additionalProperties":false}`)
	for _, tc := range []struct {
		tool client.Tool
		args string
		want []string // one per violation, a part of "PATH: MESSAGE"
	}{
		{strict, `{"n":1,"mode":"a"}`, nil},
		{strict, `{"n":"1"}`, []string{"/n: got string, want number"}},
		{strict, `{"mode":"c"}`, []string{"/mode: value must be one of"}},
		{strict, `{"size":1}`, []string{"(root): additional properties 'size' not allowed"}},
		{tool(``), `{"anything":1}`, nil},
		{tool(`{"type":"object"}`), `{"anything":1}`, nil},
	} {
		v, err := ArgumentViolations(tc.tool, json.RawMessage(tc.args))
		if err != nil {
			t.Errorf("%s: %v", tc.args, err)
			continue
		}
		if len(v) != len(tc.want) {
			t.Errorf("%s: %d violations %v, want %d", tc.args, len(v), v, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(v[i].String(), w) {
				t.Errorf("%s: violation %q lacks %q", tc.args, v[i], w)
			}
		}
	}
	if _, err := ArgumentViolations(tool(`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`), json.RawMessage(`{"a":1}`)); err == nil {
		t.Error("a schema that refers outside itself was used to judge the call")
	}
	if got := ArgumentNames(tool(`{"type":"object","properties":{"b":{},"a":{}},"required":["b"]}`)); strings.Join(got, ",") != "a,b*" && strings.Join(got, ",") != "b*,a" {
		t.Errorf("ArgumentNames = %v", got)
	}
}
