package main_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/host"
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

// On the bundled host (2026-07-28, which has no ping) ping measures a round trip with
// server/discover, the one request every 2026-07-28 server must answer, and says so; in
// the 2025 era it sends ping.
func TestPingOnTheModernEraUsesServerDiscover(t *testing.T) {
	t.Parallel()
	expect(t, mcpscope(t, nil, "ping"), 0, []string{"pong: server/discover answered in ", "2026-07-28 has no ping"}, nil)
	expect(t, mcpscope(t, nil, "ping", "--format", "json"), 0, []string{`"method": "server/discover"`, `"ok": true`, `"roundTripMs": `}, nil)
	expect(t, mcpscope(t, nil, "ping", "--protocol", "2025-11-25"), 0, []string{"pong: ping answered in "}, nil)
}

// tasks on the bundled host (the 2026-07-28 tasks extension, which has no tasks/list)
// says that there is no list in that revision and how to follow a task instead; the
// server lacks what was asked (exit 1), the command line was right.
func TestTasksOnTheModernEraSaysWhatToUseInstead(t *testing.T) {
	t.Parallel()
	expect(t, mcpscope(t, nil, "tasks"), 1, nil, []string{"2026-07-28", "has no tasks/list", "mcpscope call TOOL --task", "mcpscope tasks --get ID"})
	expect(t, mcpscope(t, nil, "tasks", "--get", "no-such-task"), 3, nil, nil)
}

// Over the bundled host's stateless HTTP in the 2025 era, the host cannot send the
// client a request (no session to send it on) whatever the client declared: with
// --sampling-reply (or --root, or --elicit) given, the answer says that, not that the
// client "did not declare" the capability.
func TestHostSaysWhyItCannotAskOverLegacyHTTP(t *testing.T) {
	t.Parallel()
	h, err := host.New(host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	srv := httptest.NewServer(h.HTTPHandler()) // 127.0.0.1:0
	t.Cleanup(srv.Close)
	url := srv.URL + "/mcp"
	const why = "over stateless HTTP before 2026-07-28 the host cannot send the client requests"
	for _, args := range [][]string{
		{"call", "sample", "--sampling-reply", "hi", "--protocol", "2025-11-25", url},
		{"call", "roots", "--root", t.TempDir(), "--protocol", "2025-11-25", url},
		{"call", "ask", "--elicit", "accept", "--protocol", "2025-11-25", url},
	} {
		r := mcpscope(t, nil, args...)
		expect(t, r, 4, []string{why, "use stdio, or the 2026-07-28 protocol"}, nil)
		if strings.Contains(r.stdout, "did not declare") {
			t.Errorf("%v: says the client did not declare what it declared:\n%s", args[1], r.stdout)
		}
	}
	// On 2026-07-28 over the same HTTP the host asks, and the reply comes back.
	expect(t, mcpscope(t, nil, "call", "sample", "--sampling-reply", "hi", url), 0, []string{"The model replied: hi"}, nil)
}

// What is sent is checked against the tool's whole input schema before it is sent, as
// README promises for "a value that does not fit its type": a wrong type given in
// --args JSON (never coerced), and an argument the schema forbids (the bundled host's
// big has additionalProperties: false, so size= is a misspelt megabytes=), are refused
// with exit 2, naming the argument and what the tool takes. Before, both went out and
// came back as the server's error result (exit 4), which a script reads as the tool
// failing. --no-validate still sends them.
func TestCallArgumentsAreCheckedAgainstTheWholeSchema(t *testing.T) {
	t.Parallel()
	expect(t, mcpscope(t, nil, "call", "big", "--args", `{"megabytes":"x"}`), 2, nil,
		[]string{`tool "big": the arguments do not fit its input schema: argument megabytes: got string, want number`, "it takes: megabytes", "--no-validate sends the call anyway"})
	expect(t, mcpscope(t, nil, "call", "big", "size=1"), 2, nil,
		[]string{`tool "big": the arguments do not fit its input schema`, "'size' not allowed", "it takes: megabytes"})
	expect(t, mcpscope(t, nil, "call", "add", "--args", `{"a":1,"b":"2"}`), 2, nil, []string{"argument b: got string, want number", "it takes: a*, b*"})
	expect(t, mcpscope(t, nil, "call", "big", "--no-validate", "--args", `{"megabytes":"x"}`), 4, nil, []string{`tool "big" returned an error result`})
	expect(t, mcpscope(t, nil, "call", "add", "--args", `{"a":1,"b":2}`), 0, []string{"3"}, nil)
}
