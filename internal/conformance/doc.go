// Package conformance holds no code: its tests run the official MCP conformance
// suite (npm @modelcontextprotocol/conformance, pinned in interop/) against the built
// binary, as a user types the commands: the client scenarios, every authorization
// scenario, and `mcpscope host --conformance` as the server under test.
//
// They live apart from cmd/mcpscope's tests so that go test runs them as a package of
// their own, beside the others: together they took cmd/mcpscope past its 15-minute
// test timeout on a loaded 2-core machine.
package conformance
