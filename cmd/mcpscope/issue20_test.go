package main_test

import (
	"testing"
)

// A call without a required argument is refused before it is sent (exit 2, naming the
// argument), as a value of the wrong type is; --no-validate sends it, and the bundled
// host's own refusal (an error result, exit 4) shows that it was.
func TestCallMissingRequiredArgumentIsAUsageError(t *testing.T) {
	t.Parallel()
	expect(t, mcpscope(t, nil, "call", "echo"), 2, nil, []string{`tool "echo": missing required argument "text"`})
	expect(t, mcpscope(t, nil, "call", "add", "--args", `{"a":1}`), 2, nil, []string{`missing required argument "b"`})
	expect(t, mcpscope(t, nil, "call", "add"), 2, nil, []string{`missing required arguments "a", "b"`})
	expect(t, mcpscope(t, nil, "call", "--no-validate", "echo"), 4, nil, []string{`tool "echo" returned an error result`})
	expect(t, mcpscope(t, nil, "call", "add", "a=1", "b=2"), 0, []string{"3"}, nil)
}
