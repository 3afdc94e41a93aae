package wire

import "testing"

func TestRequestMetaStamp(t *testing.T) {
	m := RequestMeta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
	for _, c := range []struct{ params, want string }{
		{``, `{"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}`},
		{`null`, `{"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}`},
		{`{"name":"echo","_meta":{"progressToken":1}}`, `{"_meta":{"progressToken":1,"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},"name":"echo"}`},
		// The request's own value wins: a user's raw request says what it says.
		{`{"_meta":{"traceparent":"00-mine"}}`, `{"_meta":{"traceparent":"00-mine"}}`},
		// Not an object, or a _meta that is not one: left as written.
		{`[1,2]`, `[1,2]`},
		{`{"_meta":"x"}`, `{"_meta":"x"}`},
	} {
		if got := string(m.stamp([]byte(c.params))); got != c.want {
			t.Errorf("stamp(%s) = %s, want %s", c.params, got, c.want)
		}
	}
	if got := string(RequestMeta{}.stamp([]byte(`{"a":1}`))); got != `{"a":1}` {
		t.Errorf("no meta changed the params: %s", got)
	}
	// Over HTTP only a request is stamped; a response or a notification is not.
	for _, c := range []struct{ body, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"id":1,"jsonrpc":"2.0","method":"tools/list","params":{"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}`},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
	} {
		if got := string(m.stampBody([]byte(c.body))); got != c.want {
			t.Errorf("stampBody(%s) = %s, want %s", c.body, got, c.want)
		}
	}
}
