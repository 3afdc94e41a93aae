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
