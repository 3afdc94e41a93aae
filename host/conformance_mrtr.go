//lint:file-ignore SA1019 the conformance fixtures exercise sampling, roots and logging, deprecated by protocol 2026-07-28 (SEP-2577) but what the suite's scenarios for earlier revisions call; the SDK keeps them functional for the deprecation window.

package host

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpscope/mcpscope/internal/plural"
)

// The conformance profile's multi-round-trip fixtures (SEP-2322, 2026-07-28): tools
// and a prompt that answer input_required with the input requests the suite names,
// and a requestState the host signs, so that a state the client altered is refused
// rather than trusted.

func init() {
	conformanceToolNames = append(conformanceToolNames,
		"test_input_required_result_elicitation", "test_input_required_result_sampling",
		"test_input_required_result_list_roots", "test_input_required_result_request_state",
		"test_input_required_result_multiple_inputs", "test_input_required_result_multi_round",
		"test_input_required_result_tampered_state", "test_input_required_result_capabilities",
		"test_missing_capability", "test_streaming_elicitation", "test_logging_tool", "test_custom_header")
}

// stateSigner signs requestState with a key made when the host starts.
type stateSigner struct{ key []byte }

func newStateSigner() stateSigner {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return stateSigner{k}
}

func (s stateSigner) sign(state string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(state))
	return state + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// verify returns the state signed, or an invalid-params error naming the tool when the
// signature does not match (the state was altered, or not the host's).
func (s stateSigner) verify(tool, signed string) (string, error) {
	state, mac, ok := strings.Cut(signed, ".")
	if ok && hmac.Equal([]byte(s.sign(state)), []byte(state+"."+mac)) {
		return state, nil
	}
	return "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: requestState failed its integrity check (it is not the state the host sent)", tool)}
}

func nameSchema(field string) map[string]any {
	return objectSchema(map[string]any{field: map[string]any{"type": "string"}}, field)
}

func elicitReq(message string, schema map[string]any) *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: schema}
}

func sampleReq(prompt string, max int64) *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: prompt}}}, MaxTokens: max}
}

func elicitText(r mcp.InputResponse, field string) string {
	if er, ok := r.(*mcp.ElicitResult); ok {
		if v, ok := er.Content[field].(string); ok {
			return v
		}
		return "(" + er.Action + ")"
	}
	return "(no answer)"
}

func sampleText(r mcp.InputResponse) string {
	switch r := r.(type) {
	case *mcp.CreateMessageResult:
		if t, ok := r.Content.(*mcp.TextContent); ok {
			return t.Text
		}
	case *mcp.CreateMessageWithToolsResult:
		for _, c := range r.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				return t.Text
			}
		}
	}
	return "(no reply)"
}

func rootsText(r mcp.InputResponse) string {
	lr, ok := r.(*mcp.ListRootsResult)
	if !ok {
		return "(no roots answer)"
	}
	var uris []string
	for _, root := range lr.Roots {
		uris = append(uris, root.URI)
	}
	return fmt.Sprintf("%s: %s", plural.Count(len(uris), "root"), strings.Join(uris, ", "))
}

func (h *Host) addConformanceMRTR() {
	s := h.server
	signer := newStateSigner()
	tool := func(name, desc string, handler func(req *mcp.CallToolRequest) (*mcp.CallToolResult, error)) {
		s.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: emptyObject(), Annotations: readOnly()},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return handler(req) })
	}
	done := func(msg string) (*mcp.CallToolResult, error) { return &mcp.CallToolResult{Content: text(msg)}, nil }

	tool("test_input_required_result_elicitation", "Conformance fixture (SEP-2322): asks the user's name with one elicitation input request.",
		func(req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r, ok := req.Params.InputResponses["user_name"]
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"user_name": elicitReq("What is your name?", nameSchema("name"))}}, nil
			}
			return done("Hello, " + elicitText(r, "name") + "!")
		})
	tool("test_input_required_result_sampling", "Conformance fixture (SEP-2322): asks the client's model a question with one sampling input request.",
		func(req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r, ok := req.Params.InputResponses["capital_question"]
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"capital_question": sampleReq("What is the capital of France?", 100)}}, nil
			}
			return done("The model answered: " + sampleText(r))
		})
	tool("test_input_required_result_list_roots", "Conformance fixture (SEP-2322): asks the client's roots with one roots/list input request.",
		func(req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r, ok := req.Params.InputResponses["client_roots"]
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"client_roots": &mcp.ListRootsParams{}}}, nil
			}
			return done("The client offers " + rootsText(r))
		})
	tool("test_input_required_result_request_state", "Conformance fixture (SEP-2322): an elicitation with a signed requestState, checked on the retry.",
		func(req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if _, ok := req.Params.InputResponses["confirm"]; !ok {
				return &mcp.CallToolResult{
					InputRequests: mcp.InputRequestMap{"confirm": elicitReq("Please confirm", objectSchema(map[string]any{"ok": map[string]any{"type": "boolean"}}, "ok"))},
					RequestState:  signer.sign("confirm"),
				}, nil
			}
			if st, err := signer.verify("test_input_required_result_request_state", req.Params.RequestState); err != nil || st != "confirm" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "test_input_required_result_request_state: the retry did not echo the requestState the host sent"}
			}
			return done("state-ok: the requestState came back as sent")
		})
	tool("test_input_required_result_multiple_inputs", "Conformance fixture (SEP-2322): three input requests at once (elicitation, sampling, roots/list).",
		func(req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			in := req.Params.InputResponses
			_, a := in["user_name"]
			_, b := in["greeting"]
			_, c := in["client_roots"]
			if !a || !b || !c {
				return &mcp.CallToolResult{
					InputRequests: mcp.InputRequestMap{
						"user_name":    elicitReq("What is your name?", nameSchema("name")),
						"greeting":     sampleReq("Generate a greeting", 50),
						"client_roots": &mcp.ListRootsParams{},
					},
					RequestState: signer.sign("multiple"),
				}, nil
			}
			if _, err := signer.verify("test_input_required_result_multiple_inputs", req.Params.RequestState); err != nil {
				return nil, err
			}
			return done(fmt.Sprintf("name: %s; greeting: %s; %s", elicitText(in["user_name"], "name"), sampleText(in["greeting"]), rootsText(in["client_roots"])))
		})
	tool("test_input_required_result_multi_round", "Conformance fixture (SEP-2322): two rounds of elicitation, the requestState changing between them.",
		func(req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			in := req.Params.InputResponses
			if len(in) == 0 {
				return &mcp.CallToolResult{
					InputRequests: mcp.InputRequestMap{"step1": elicitReq("Step 1: What is your name?", nameSchema("name"))},
					RequestState:  signer.sign("round1"),
				}, nil
			}
			st, err := signer.verify("test_input_required_result_multi_round", req.Params.RequestState)
			if err != nil {
				return nil, err
			}
			switch {
			case st == "round1" && in["step1"] != nil:
				name := elicitText(in["step1"], "name")
				return &mcp.CallToolResult{
					InputRequests: mcp.InputRequestMap{"step2": elicitReq("Step 2: What is your favorite color?", nameSchema("color"))},
					RequestState:  signer.sign("round2:" + base64.RawURLEncoding.EncodeToString([]byte(name))),
				}, nil
			case strings.HasPrefix(st, "round2:") && in["step2"] != nil:
				name, _ := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(st, "round2:"))
				return done(fmt.Sprintf("%s likes %s.", name, elicitText(in["step2"], "color")))
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "test_input_required_result_multi_round: the inputResponses do not answer the round the requestState names"}
		})
	tool("test_input_required_result_tampered_state", "Conformance fixture (SEP-2322): an HMAC-signed requestState; an altered one is refused with -32602.",
		func(req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if len(req.Params.InputResponses) == 0 && req.Params.RequestState == "" {
				return &mcp.CallToolResult{
					InputRequests: mcp.InputRequestMap{"confirm": elicitReq("Please confirm", objectSchema(map[string]any{"ok": map[string]any{"type": "boolean"}}, "ok"))},
					RequestState:  signer.sign("tamper-check"),
				}, nil
			}
			if _, err := signer.verify("test_input_required_result_tampered_state", req.Params.RequestState); err != nil {
				return nil, err
			}
			return done("state-ok: the requestState passed its integrity check")
		})
	tool("test_input_required_result_capabilities", "Conformance fixture (SEP-2322): asks only for what the client declared (sampling, elicitation, roots).",
		func(req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if len(req.Params.InputResponses) > 0 {
				return done("received " + plural.Count(len(req.Params.InputResponses), "input response"))
			}
			caps := req.ClientCapabilities()
			ir := mcp.InputRequestMap{}
			if caps != nil && caps.Sampling != nil {
				ir["sample"] = sampleReq("Say hello", 50)
			}
			if caps != nil && caps.Elicitation != nil {
				ir["ask"] = elicitReq("What is your name?", nameSchema("name"))
			}
			if caps != nil && (caps.RootsV2 != nil || caps.Roots.ListChanged) {
				ir["roots"] = &mcp.ListRootsParams{}
			}
			if len(ir) == 0 {
				return done("the client declared none of sampling, elicitation and roots, so the host asks nothing")
			}
			return &mcp.CallToolResult{InputRequests: ir}, nil
		})

	// The stateless era's diagnostics (SEP-2575).
	tool("test_missing_capability", "Conformance fixture (SEP-2575): needs the sampling capability and refuses a client that did not declare it (-32021, naming it in data.requiredCapabilities).",
		func(req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if caps := req.ClientCapabilities(); caps == nil || caps.Sampling == nil {
				return nil, &jsonrpc.Error{
					Code:    mcp.CodeMissingRequiredClientCapabilities,
					Message: "test_missing_capability needs the sampling capability, which this client did not declare",
					Data:    json.RawMessage(`{"requiredCapabilities":{"sampling":{}}}`),
				}
			}
			return done("the client declared sampling")
		})
	tool("test_streaming_elicitation", "Conformance fixture (SEP-2575): asks the user through an input_required result, never a request on the response stream.",
		func(req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r, ok := req.Params.InputResponses["answer"]
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"answer": elicitReq("What is your name?", nameSchema("name"))}}, nil
			}
			return done("Hello, " + elicitText(r, "name") + "!")
		})
	s.AddTool(&mcp.Tool{Name: "test_logging_tool", Description: "Conformance fixture (SEP-2575): logs at info; a request that set no log level gets none of it.", InputSchema: emptyObject(), Annotations: readOnly()},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			//lint:ignore SA1019 the logging API, deprecated by 2026-07-28 (SEP-2577), is what the fixture exercises
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "conformance", Data: "a log message from test_logging_tool"})
			return done("logged one info message")
		})
	// SEP-2243: an argument mirrored into an Mcp-Param header, which the SDK checks
	// against the body.
	s.AddTool(&mcp.Tool{Name: "test_custom_header", Description: "Conformance fixture (SEP-2243): its region argument travels in the Mcp-Param-Region header too.",
		InputSchema: objectSchema(map[string]any{"region": map[string]any{"type": "string", "x-mcp-header": "Region"}}, "region"), Annotations: readOnly()},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return done("received: " + string(req.Params.Arguments))
		})

	s.AddPrompt(&mcp.Prompt{Name: "test_input_required_result_prompt", Description: "Conformance fixture (SEP-2322): a prompt that first asks the user for its context."},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			r, ok := req.Params.InputResponses["user_context"]
			if !ok {
				return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{"user_context": elicitReq("What context should the prompt use?", nameSchema("context"))}}, nil
			}
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Use this context: " + elicitText(r, "context")}}}}, nil
		})
}
