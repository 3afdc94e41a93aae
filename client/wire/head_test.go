package wire

import "testing"

func TestParseHead(t *testing.T) {
	for _, c := range []struct {
		frame string
		want  Head
	}{
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{"x":"}"},"name":"big"}}`, Head{Shape: ShapeRequest, ID: "4", Method: "tools/call", Name: "big"}},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"name":"not a request"}}`, Head{Shape: ShapeNotification, Method: "notifications/progress"}},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","_meta":{"x":{"traceparent":"no"},"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}}`,
			Head{Shape: ShapeNotification, Method: "notifications/message", TraceParent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}},
		{`{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{"_meta":{"traceparent":"00-a"},"name":"n"}}`, Head{Shape: ShapeRequest, ID: "9", Method: "sampling/createMessage", Name: "n", TraceParent: "00-a"}},
		{`{"jsonrpc":"2.0","id":"a","result":{"content":[]}}`, Head{Shape: ShapeResult, ID: `"a"`}},
		{`{"jsonrpc":"2.0","id":7,"error":{"message":"x","code":-32042,"data":{}}}`, Head{Shape: ShapeError, ID: "7", ErrorCode: -32042}},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`, Head{Shape: ShapeError, ID: "null", ErrorCode: -32700}},
		{` [{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":1,"result":{}}]`, Head{Shape: ShapeBatch, Method: MethodBatch}},
		{`{"jsonrpc":2,"id":1,"result":{}}`, Head{Shape: ShapeResult, ID: "1"}}, // jsonrpc's value is not the head's business
		{`{"id":1,"result":`, Head{}},
		{`not json`, Head{}},
	} {
		if got := ParseHead([]byte(c.frame)); got != c.want {
			t.Errorf("ParseHead(%s) = %+v, want %+v", c.frame, got, c.want)
		}
		if c.want.Shape != ShapeNone && c.want.Shape != ShapeBatch {
			if got := sentHead([]byte(c.frame)); got != c.want {
				t.Errorf("sentHead(%s) = %+v, want %+v", c.frame, got, c.want)
			}
		}
	}
}
