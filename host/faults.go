package host

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The deliberate protocol faults (Options.Faults, `mcpscope host --faults`): tools
// that break the specification on purpose, as fixtures for clients that must notice
// (the workbench's "outputSchema violation(s)", call's warning, replay's comparison).
// They are kept off the default surface so that the host itself is a spec-clean
// server: `mcpscope check host` passes every check, and a client tested against the
// default host sees only correct behaviour. A tool that fails by returning isError
// (the demo's fail) is not one of them: that is how the spec says a tool reports its
// failure.
var faultToolNames = []string{"bad_output"}

func isFaultTool(name string) bool { return slices.Contains(faultToolNames, name) }

// addFaults registers the fault fixtures.
func (h *Host) addFaults() {
	// Registered with Server.AddTool, not mcp.AddTool: the typed helper validates the
	// handler's structured output against the schema and would refuse to send it.
	h.server.AddTool(&mcp.Tool{
		Name: "bad_output", Title: "Breaks its own output schema",
		Description:  "A deliberate protocol fault: declares an outputSchema with an integer \"count\" and returns structuredContent whose count is a string, so clients can test their output validation.",
		InputSchema:  json.RawMessage(`{"type":"object","additionalProperties":false}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"count":{"type":"integer"}},"required":["count"]}`),
		Annotations:  readOnly(),
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			Content:           text(`{"count":"three"}`),
			StructuredContent: json.RawMessage(`{"count":"three"}`),
		}, nil
	})
}
