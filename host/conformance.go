//lint:file-ignore SA1019 the conformance fixtures exercise sampling, roots and logging, deprecated by protocol 2026-07-28 (SEP-2577) but what the suite's scenarios for earlier revisions call; the SDK keeps them functional for the deprecation window.

package host

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The conformance profile ("mcpscope host --conformance", Options.Conformance): the
// tools, resources and prompts that the server scenarios of the official conformance
// suite (npm @modelcontextprotocol/conformance, and its 0.2 line) call by name, served
// beside the demo. The suite prescribes their names, arguments and the shape of their
// results; what they say is ours. They are fixtures, not demos: a user points the
// suite at the host to see what a conformant server's traffic looks like.
//
// Fixtures that ask the client something (sampling, elicitation, roots) are written in
// the multi-round-trip style, as the demo's ask is: a 2026-07-28 client gets an
// input_required result and retries with inputResponses; for a 2025 client the SDK
// sends the request on the client's session and calls the handler again with the
// answer. That needs a session, which is why the profile also turns on
// HTTPOptions.Sessions.

// conformanceToolNames are the fixture tools, kept apart from the demo's so that a tool
// file cannot take their names either.
var conformanceToolNames = []string{
	"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
	"test_multiple_content_types", "test_tool_with_logging", "test_error_handling",
	"test_tool_with_progress", "test_sampling", "test_elicitation",
	"test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
	"json_schema_2020_12_tool", "test_reconnection",
}

const (
	confStaticText   = "test://static-text"
	confStaticBinary = "test://static-binary"
	confTemplate     = "test://template/{id}/data"
	confWatched      = "test://watched-resource"
	confEmbedded     = "test://embedded-resource"
)

// addConformance registers the fixtures.
func (h *Host) addConformance() {
	s := h.server
	plain := func(name, desc string, result func() *mcp.CallToolResult) {
		s.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: emptyObject(), Annotations: readOnly()},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return result(), nil })
	}
	embedded := func() mcp.Content {
		return &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
			URI: confEmbedded, MIMEType: "text/plain", Text: "This is an embedded resource content.",
		}}
	}
	image := func() mcp.Content { return &mcp.ImageContent{Data: demoPNG(), MIMEType: "image/png"} }

	plain("test_simple_text", "Conformance fixture: returns one text block.", func() *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: text("This is a simple text response for testing.")}
	})
	plain("test_image_content", "Conformance fixture: returns one PNG image block.", func() *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{image()}}
	})
	plain("test_audio_content", "Conformance fixture: returns one audio/wav block.", func() *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: demoWAV(), MIMEType: "audio/wav"}}}
	})
	plain("test_embedded_resource", "Conformance fixture: returns an embedded text resource.", func() *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{embedded()}}
	})
	plain("test_multiple_content_types", "Conformance fixture: returns text, an image and an embedded resource.", func() *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Multiple content types test:"}, image(), embedded()}}
	})
	plain("test_error_handling", "Conformance fixture: always fails as a tool error (isError).", func() *mcp.CallToolResult {
		return errorResult("This tool intentionally returns an error for testing")
	})

	s.AddTool(&mcp.Tool{
		Name: "test_tool_with_logging", Description: "Conformance fixture: sends three info log messages while it runs.",
		InputSchema: emptyObject(), Annotations: readOnly(),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for _, m := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			//lint:ignore SA1019 the logging API, deprecated by 2026-07-28 (SEP-2577), is what servers on earlier versions speak
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "conformance", Data: m})
		}
		return &mcp.CallToolResult{Content: text("Tool with logging executed successfully")}, nil
	})

	s.AddTool(&mcp.Tool{
		Name: "test_tool_with_progress", Description: "Conformance fixture: reports progress 0, 50 and 100 of 100 when asked for progress.",
		InputSchema: emptyObject(), Annotations: readOnly(),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if token := req.Params.GetProgressToken(); token != nil {
			for _, p := range []float64{0, 50, 100} {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: p, Total: 100, Message: fmt.Sprintf("%v%% done", p),
				})
			}
		}
		return &mcp.CallToolResult{Content: text("Tool with progress executed successfully")}, nil
	})

	s.AddTool(&mcp.Tool{
		Name: "test_sampling", Description: "Conformance fixture: asks the client's model to answer prompt (sampling) and returns the reply.",
		InputSchema: objectSchema(map[string]any{"prompt": map[string]any{"type": "string", "description": "what to ask the model"}}, "prompt"),
		Annotations: readOnly(),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if len(req.Params.InputResponses) == 0 {
			var in struct{ Prompt string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{"sample": &mcp.CreateMessageParams{
					Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Prompt}}},
					MaxTokens: 100,
				}},
				RequestState: "test_sampling/v1",
			}, nil
		}
		reply := "(no text)"
		switch r := req.Params.InputResponses["sample"].(type) {
		case *mcp.CreateMessageResult:
			if t, ok := r.Content.(*mcp.TextContent); ok {
				reply = t.Text
			}
		case *mcp.CreateMessageWithToolsResult:
			for _, c := range r.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					reply = t.Text
				}
			}
		default:
			return errorResult(`the retry's inputResponses has no sampling result under "sample"`), nil
		}
		return &mcp.CallToolResult{Content: text("LLM response: " + reply)}, nil
	})

	elicit := func(name, desc string, args map[string]any, message func(json.RawMessage) string, schema map[string]any) {
		var required []string
		for k := range args {
			required = append(required, k)
		}
		s.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: objectSchema(args, required...), Annotations: readOnly()},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if len(req.Params.InputResponses) == 0 {
					return &mcp.CallToolResult{
						InputRequests: mcp.InputRequestMap{"answer": &mcp.ElicitParams{
							Mode: "form", Message: message(req.Params.Arguments), RequestedSchema: schema,
						}},
						RequestState: name + "/v1",
					}, nil
				}
				er, ok := req.Params.InputResponses["answer"].(*mcp.ElicitResult)
				if !ok {
					return errorResult(`the retry's inputResponses has no elicitation result under "answer"`), nil
				}
				content, _ := json.Marshal(er.Content)
				return &mcp.CallToolResult{Content: text(fmt.Sprintf("Elicitation completed: action=%s, content=%s", er.Action, content))}, nil
			})
	}
	elicit("test_elicitation", "Conformance fixture: asks the user (elicitation) for a username and an email with message, and returns the answer.",
		map[string]any{"message": map[string]any{"type": "string", "description": "the message shown to the user"}},
		func(args json.RawMessage) string {
			var in struct{ Message string }
			_ = json.Unmarshal(args, &in)
			return in.Message
		},
		map[string]any{
			"type": "object",
			"properties": map[string]any{
				"username": map[string]any{"type": "string", "description": "User's response"},
				"email":    map[string]any{"type": "string", "description": "User's email address"},
			},
			"required": []string{"username", "email"},
		})
	elicit("test_elicitation_sep1034_defaults", "Conformance fixture: elicitation whose fields of every primitive type have defaults (SEP-1034).",
		nil, func(json.RawMessage) string { return "Please review and update the form fields with defaults" },
		map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
				"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
				"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
				"status":   map[string]any{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
				"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
			},
		})
	elicit("test_elicitation_sep1330_enums", "Conformance fixture: elicitation with every enum form: untitled and titled, single and multiple, and legacy enumNames (SEP-1330).",
		nil, func(json.RawMessage) string { return "Please select options from the enum fields" },
		map[string]any{
			"type": "object",
			"properties": map[string]any{
				"untitledSingle": map[string]any{"type": "string", "description": "Select one option", "enum": []string{"option1", "option2", "option3"}},
				"titledSingle": map[string]any{"type": "string", "description": "Select one option with titles", "oneOf": []map[string]string{
					{"const": "value1", "title": "First Option"}, {"const": "value2", "title": "Second Option"}, {"const": "value3", "title": "Third Option"},
				}},
				"legacyEnum": map[string]any{"type": "string", "description": "Select one option (legacy)",
					"enum": []string{"opt1", "opt2", "opt3"}, "enumNames": []string{"Option One", "Option Two", "Option Three"}},
				"untitledMulti": map[string]any{"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3,
					"items": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
				"titledMulti": map[string]any{"type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3,
					"items": map[string]any{"anyOf": []map[string]string{
						{"const": "value1", "title": "First Choice"}, {"const": "value2", "title": "Second Choice"}, {"const": "value3", "title": "Third Choice"},
					}}},
			},
		})

	s.AddTool(&mcp.Tool{
		Name: "json_schema_2020_12_tool", Description: "Conformance fixture: an input schema in JSON Schema 2020-12 ($schema, $defs, $ref, additionalProperties), served as written (SEP-1613).",
		InputSchema: json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
  "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
  "additionalProperties": false
}`),
		Annotations: readOnly(),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: text("received: " + string(req.Params.Arguments))}, nil
	})

	s.AddTool(&mcp.Tool{
		Name: "test_reconnection", Description: "Conformance fixture: closes the response's SSE stream mid-call (SEP-1699); the client resumes with Last-Event-ID and gets the result.",
		InputSchema: emptyObject(), Annotations: readOnly(),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Extra != nil && req.Extra.CloseSSEStream != nil {
			req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 500 * time.Millisecond})
			// The result must be stored after the stream closed, to be replayed on the
			// client's reconnection rather than written to the closed stream.
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
		return &mcp.CallToolResult{Content: text("Reconnection test completed")}, nil
	})

	h.addConformanceResources()
	h.addConformanceMRTR()
	h.addConformanceTasks()
	h.addConformancePrompts()
}

func (h *Host) addConformanceResources() {
	s := h.server
	s.AddResource(&mcp.Resource{URI: confStaticText, Name: "static-text", Description: "Conformance fixture: a text resource.", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
				{URI: confStaticText, MIMEType: "text/plain", Text: "This is the content of the static text resource."},
			}}, nil
		})
	s.AddResource(&mcp.Resource{URI: confStaticBinary, Name: "static-binary", Description: "Conformance fixture: a binary resource (PNG).", MIMEType: "image/png"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: confStaticBinary, MIMEType: "image/png", Blob: demoPNG()}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: confWatched, Name: "watched-resource", Description: "Conformance fixture: a resource to subscribe to.", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: confWatched, MIMEType: "text/plain", Text: "Watched resource content"}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: confTemplate, Name: "template", Description: "Conformance fixture: a template; the content names its {id}.", MIMEType: "application/json",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		id, ok := strings.CutPrefix(uri, "test://template/")
		id, ok2 := strings.CutSuffix(id, "/data")
		if !ok || !ok2 || id == "" || strings.Contains(id, "/") {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		b, _ := json.Marshal(map[string]string{"id": id, "templateTest": "true", "data": "Data for ID: " + id})
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
	})
}

func (h *Host) addConformancePrompts() {
	s := h.server
	s.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Description: "Conformance fixture: one user message, no arguments."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "This is a simple prompt for testing."}}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{
		Name: "test_prompt_with_arguments", Description: "Conformance fixture: one user message naming arg1 and arg2.",
		Arguments: []*mcp.PromptArgument{
			{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true},
		},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		a := req.Params.Arguments
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{
			Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"]),
		}}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{
		Name: "test_prompt_with_embedded_resource", Description: "Conformance fixture: a message embedding the resource resourceUri names.",
		Arguments: []*mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		uri := req.Params.Arguments["resourceUri"]
		if uri == "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `prompt "test_prompt_with_embedded_resource" needs the argument "resourceUri"`}
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, MIMEType: "text/plain", Text: "Embedded resource content for testing."}}},
			{Role: "user", Content: &mcp.TextContent{Text: "Please process the embedded resource above."}},
		}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Description: "Conformance fixture: a message with a PNG image."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.ImageContent{Data: demoPNG(), MIMEType: "image/png"}},
				{Role: "user", Content: &mcp.TextContent{Text: "Please analyze the image above."}},
			}}, nil
		})
}

func emptyObject() map[string]any { return map[string]any{"type": "object"} }

func objectSchema(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object"}
	if props != nil {
		s["properties"] = props
	}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}
