package host

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The demo tools. Each is small and does what its description says; none of them
// touches the network or the file system.
var demoToolNames = []string{
	"echo", "add",
	"now", "pretend_delete", "set_counter", "pretend_search", "random_id",
	"image", "audio", "resource_links", "embedded_resources",
	"fail", "slow", "rich_form", "big", "log", "ask", "toggle_tool",
	bonusTool,
}

// bonusTool is the tool toggle_tool adds and removes.
const bonusTool = "bonus"

func isDemoTool(name string) bool { return slices.Contains(demoToolNames, name) }

// Limits on demo tool arguments, so a typo cannot exhaust the machine.
const (
	maxBigMB     = 256
	maxSlowSteps = 1000
	maxSlowDelay = 10 * time.Second
)

type demoState struct {
	mu      sync.Mutex
	counter int
	bonus   bool
}

func newDemoState() *demoState { return &demoState{} }

func ptr[T any](v T) *T { return &v }

func text(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: text(msg)}
}

// cannotAsk says why the host cannot send the client a request at all, "" when it
// can: over stateless HTTP before 2026-07-28 there is no session, so the host neither
// knows what the client declared in its initialize (the SDK hands it no capabilities)
// nor has a stream to send sampling/createMessage, roots/list or elicitation/create on.
// Said first, so that a client that did declare the capability is not told it did not.
func cannotAsk(req *mcp.CallToolRequest, capability, flag, what string) string {
	if req.ProtocolVersion() < "2026-07-28" && req.Extra != nil && req.Extra.Header != nil {
		return fmt.Sprintf("over stateless HTTP before 2026-07-28 the host cannot send the client requests, so it cannot %s (it has no session: whether the client declared %s (mcpscope: %s) makes no difference); use stdio, or the 2026-07-28 protocol", what, capability, flag)
	}
	return ""
}

// notDeclared says that the client did not declare a capability the tool needs, and
// which mcpscope flag declares it.
func notDeclared(capability, flag, what string) string {
	return fmt.Sprintf("this client did not declare the %s capability (mcpscope: %s), so the host cannot %s", capability, flag, what)
}

// closedWorld marks a tool that works only on the host's own state.
func readOnly() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
}

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to send back"`
}

type addIn struct {
	A float64 `json:"a" jsonschema:"the first addend"`
	B float64 `json:"b" jsonschema:"the second addend"`
}

type addOut struct {
	Sum float64 `json:"sum" jsonschema:"a + b"`
}

type pathIn struct {
	Path string `json:"path" jsonschema:"the file that would be deleted"`
}

type counterIn struct {
	Value int `json:"value" jsonschema:"the value to set the counter to"`
}

type queryIn struct {
	Query string `json:"query" jsonschema:"what to search for"`
}

type slowIn struct {
	Steps   int `json:"steps,omitempty" jsonschema:"number of steps (default 10, at most 1000)"`
	DelayMs int `json:"delayMs,omitempty" jsonschema:"milliseconds per step (default 200, at most 10000)"`
}

type bigIn struct {
	Megabytes float64 `json:"megabytes,omitempty" jsonschema:"how many MiB of text to return (default 1, at most 256)"`
}

type askIn struct {
	Question string `json:"question,omitempty" jsonschema:"the message shown to the user (optional)"`
}

type none struct{}

func (h *Host) addDemo() {
	s := h.server

	mcp.AddTool(s, &mcp.Tool{
		Name: "echo", Title: "Echo",
		Description: "Returns its text argument unchanged.",
		Annotations: readOnly(),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: text(in.Text)}, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name: "add", Title: "Add two numbers",
		Description: "Adds a and b. Declares an outputSchema and returns structuredContent {\"sum\": …} (and the same JSON as text).",
		Annotations: readOnly(),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
		return nil, addOut{Sum: in.A + in.B}, nil
	})

	// The annotation matrix.
	mcp.AddTool(s, &mcp.Tool{
		Name: "now", Title: "Current time",
		Description: "Read-only (readOnlyHint: true): returns the host's clock.",
		Annotations: readOnly(),
	}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
		t := time.Now()
		return &mcp.CallToolResult{Content: text(fmt.Sprintf("%s (UTC %s)", t.Format(time.RFC3339), t.UTC().Format(time.RFC3339)))}, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name: "pretend_delete", Title: "Delete a file (pretend)",
		Description: "Destructive (destructiveHint: true), but it only pretends: nothing is deleted. Shows how a client treats a destructive tool.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in pathIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: text(fmt.Sprintf("Pretended to delete %q. Nothing was deleted: this demo tool only carries a destructive annotation.", in.Path))}, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name: "set_counter", Title: "Set the counter",
		Description: "Idempotent (idempotentHint: true, destructiveHint: false): sets the host's in-memory counter; setting the same value twice changes nothing more.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in counterIn) (*mcp.CallToolResult, any, error) {
		h.demo.mu.Lock()
		old := h.demo.counter
		h.demo.counter = in.Value
		h.demo.mu.Unlock()
		return &mcp.CallToolResult{Content: text(fmt.Sprintf("counter = %d (was %d)", in.Value, old))}, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name: "pretend_search", Title: "Search the web (pretend)",
		Description: "Open-world (openWorldHint: true), but it only pretends: the results are canned and nothing leaves this machine.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in queryIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: text(fmt.Sprintf(
			"Canned results for %q (no network request was made):\n1. example.org: an example page\n2. example.net: another example page", in.Query))}, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name: "random_id", Title: "Random id",
		Description: "Has no annotations at all: returns 16 random bytes in hex.",
	}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
		var b [16]byte
		_, _ = rand.Read(b[:])
		return &mcp.CallToolResult{Content: text(hex.EncodeToString(b[:]))}, nil, nil
	})

	// Content of every type.
	mcp.AddTool(s, &mcp.Tool{
		Name: "image", Title: "Image content",
		Description: "Returns an image block: a real 64×64 PNG.",
		Annotations: readOnly(),
	}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "A 64×64 gradient with a white cross:"},
			&mcp.ImageContent{MIMEType: "image/png", Data: demoPNG()},
		}}, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name: "audio", Title: "Audio content",
		Description: "Returns an audio block: a real WAV file, half a second of a 440 Hz tone.",
		Annotations: readOnly(),
	}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.AudioContent{MIMEType: "audio/wav", Data: demoWAV()},
		}}, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name: "resource_links", Title: "Resource links",
		Description: "Returns resource_link blocks that point at the host's resources.",
		Annotations: readOnly(),
	}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ResourceLink{URI: readmeURI, Name: "readme", Title: "About the demo host", MIMEType: "text/markdown"},
			&mcp.ResourceLink{URI: gradientURI, Name: "gradient", Description: "the image tool's PNG", MIMEType: "image/png", Size: ptr(int64(len(demoPNG())))},
			&mcp.ResourceLink{URI: colorURIPrefix + "teal", Name: "teal", Description: "an instance of the colors template", MIMEType: "application/json"},
		}}, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name: "embedded_resources", Title: "Embedded resources",
		Description: "Returns embedded resource blocks: one text resource and one blob (the PNG).",
		Annotations: readOnly(),
	}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: readmeURI, MIMEType: "text/markdown", Text: readmeText}},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: gradientURI, MIMEType: "image/png", Blob: demoPNG()}},
		}}, nil, nil
	})

	// Failures, for testing clients.
	mcp.AddTool(s, &mcp.Tool{
		Name: "fail", Title: "Always fails",
		Description: "Returns a tool error (isError: true), not a JSON-RPC error.",
		Annotations: readOnly(),
	}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
		return errorResult("this tool always fails: it demonstrates a result with isError: true"), nil, nil
	})

	// Progress and cancellation.
	mcp.AddTool(s, &mcp.Tool{
		Name: "slow", Title: "Slow, with progress",
		Description: "Works for steps × delayMs, sending notifications/progress after each step when the call has a progressToken. Stops as soon as the call is cancelled.",
		Annotations: readOnly(),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
		steps, delay := in.Steps, time.Duration(in.DelayMs)*time.Millisecond
		if steps <= 0 {
			steps = 10
		}
		if in.DelayMs <= 0 {
			delay = 200 * time.Millisecond
		}
		steps, delay = min(steps, maxSlowSteps), min(delay, maxSlowDelay)
		token := req.Params.GetProgressToken()
		t := time.NewTimer(delay)
		defer t.Stop()
		for i := 1; i <= steps; i++ {
			select {
			case <-ctx.Done():
				if h.testSlowDone != nil {
					h.testSlowDone(ctx.Err())
				}
				return nil, nil, ctx.Err()
			case <-t.C:
				t.Reset(delay)
			}
			if token != nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: float64(i), Total: float64(steps),
					Message: fmt.Sprintf("step %d of %d", i, steps),
				})
			}
		}
		return &mcp.CallToolResult{Content: text(fmt.Sprintf("done: %d steps of %v", steps, delay))}, nil, nil
	})

	// Registered without mcp.AddTool's validation: the SDK applies defaults with
	// jsonschema-go, which makes a missing optional object from its members'
	// defaults (owner from owner.team's "core") and then refuses it for lacking its
	// required members (owner.name), so a call with only the required arguments
	// failed. The handler applies defaults only where the object is given, then
	// validates as the SDK would.
	richSchema := richFormSchema()
	richResolved, err := richSchema.Resolve(nil)
	if err != nil {
		panic(err) // a constant; covered by the tests
	}
	s.AddTool(&mcp.Tool{
		Name: "rich_form", Title: "Rich input schema",
		Description: "Takes a rich input schema (nested object, array of objects, enum, oneOf, defaults, formats, bounds, required fields) and returns the arguments it received, defaults applied.",
		InputSchema: richSchema,
		Annotations: readOnly(),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in := map[string]any{}
		if args := req.Params.Arguments; len(args) > 0 && string(args) != "null" {
			if err := json.Unmarshal(args, &in); err != nil {
				return errorResult(fmt.Sprintf("arguments: %v", err)), nil
			}
		}
		applyDefaults(in, richSchema)
		if err := richResolved.Validate(in); err != nil {
			return errorResult(fmt.Sprintf("validating \"arguments\": %v", err)), nil
		}
		b, err := json.MarshalIndent(in, "", "  ")
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: text(string(b))}, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name: "big", Title: "Big result",
		Description: "Returns megabytes MiB of text (numbered 64-byte lines), for testing how clients handle large results.",
		Annotations: readOnly(),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in bigIn) (*mcp.CallToolResult, any, error) {
		mb := in.Megabytes
		if mb <= 0 {
			mb = 1
		}
		if mb > maxBigMB {
			return errorResult(fmt.Sprintf("megabytes must be at most %d", maxBigMB)), nil, nil
		}
		return &mcp.CallToolResult{Content: text(bigText(int(mb * (1 << 20))))}, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name: "log", Title: "Log at every level",
		Description: "Sends one notifications/message at each level, debug to emergency. A client receives those at or above the level it asked for (logging/setLevel before 2026-07-28; the io.modelcontextprotocol/logLevel _meta key from 2026-07-28).",
		Annotations: readOnly(),
	}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		for _, l := range logLevels {
			//lint:ignore SA1019 the logging API, deprecated by 2026-07-28 (SEP-2577), is what servers on earlier versions speak
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{
				Level: l, Logger: "demo",
				Data: map[string]any{"level": string(l), "message": "a message at level " + string(l) + " from the log tool"},
			})
		}
		return &mcp.CallToolResult{Content: text(fmt.Sprintf("sent %d log messages (%s); only those at or above the level this request asked for were delivered", len(logLevels), joinLevels()))}, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name: "ask", Title: "Ask the user",
		Description: "Asks the user for a name and a colour. Before 2026-07-28 the host sends an elicitation/create request; from 2026-07-28 it returns an input_required result and the client retries with inputResponses.",
		Annotations: readOnly(),
	}, h.ask)

	mcp.AddTool(s, &mcp.Tool{
		Name: "toggle_tool", Title: "Add or remove a tool",
		Description: "Adds the tool \"bonus\" if it is absent and removes it if it is present; the host then sends notifications/tools/list_changed.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
		h.demo.mu.Lock()
		defer h.demo.mu.Unlock()
		h.demo.bonus = !h.demo.bonus
		if h.demo.bonus {
			h.addBonus()
			return &mcp.CallToolResult{Content: text(`added the tool "bonus"; notifications/tools/list_changed follows`)}, nil, nil
		}
		h.server.RemoveTools(bonusTool)
		return &mcp.CallToolResult{Content: text(`removed the tool "bonus"; notifications/tools/list_changed follows`)}, nil, nil
	})

	h.addResources()
	h.addPrompts()
}

func (h *Host) addBonus() {
	mcp.AddTool(h.server, &mcp.Tool{
		Name: bonusTool, Title: "Bonus",
		Description: "Exists only while toggle_tool has switched it on.",
		Annotations: readOnly(),
	}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: text("the bonus tool is here")}, nil, nil
	})
}

//lint:ignore SA1019 the logging API, deprecated by 2026-07-28 (SEP-2577), is what servers on earlier versions speak
var logLevels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func joinLevels() string {
	var s []string
	for _, l := range logLevels {
		s = append(s, string(l))
	}
	return strings.Join(s, ", ")
}

// bigText returns n bytes of numbered 64-byte lines.
func bigText(n int) string {
	const line = 64
	var b strings.Builder
	b.Grow(n)
	for i := 0; b.Len()+line <= n; i++ {
		fmt.Fprintf(&b, "line %09d of the big tool's output, 64 bytes per line....\n", i)
	}
	if rest := n - b.Len(); rest > 0 {
		b.WriteString(strings.Repeat(".", rest))
	}
	return b.String()
}

const askKey = "favorite"
const askState = "ask/v1"

// ask is written in the multi-round-trip style: the first call returns an input
// request and the retry carries the answer. For clients before 2026-07-28 the SDK turns
// the input request into an elicitation/create request to the client and calls the
// handler again with the answer.
func (h *Host) ask(_ context.Context, req *mcp.CallToolRequest, in askIn) (*mcp.CallToolResult, any, error) {
	if len(req.Params.InputResponses) == 0 {
		if msg := cannotAsk(req, "elicitation", "--elicit accept, or a terminal", "ask it anything"); msg != "" {
			return errorResult(msg), nil, nil
		}
		if caps := req.ClientCapabilities(); caps == nil || caps.Elicitation == nil {
			return errorResult(notDeclared("elicitation", "--elicit accept, or a terminal", "ask it anything")), nil, nil
		}
		question := in.Question
		if question == "" {
			question = "What is your name, and which colour do you like?"
		}
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{askKey: &mcp.ElicitParams{
				Mode:            "form",
				Message:         question,
				RequestedSchema: askSchema(),
			}},
			RequestState: askState,
		}, nil, nil
	}
	if req.Params.RequestState != askState {
		return errorResult(fmt.Sprintf("the retry carried requestState %q, not the %q the host sent; a client must echo it unchanged", req.Params.RequestState, askState)), nil, nil
	}
	er, ok := req.Params.InputResponses[askKey].(*mcp.ElicitResult)
	if !ok {
		return errorResult(fmt.Sprintf("the retry's inputResponses has no elicitation result under %q", askKey)), nil, nil
	}
	switch er.Action {
	case "accept":
		name, _ := er.Content["name"].(string)
		color, _ := er.Content["color"].(string)
		msg := fmt.Sprintf("Hello, %s!", name)
		if color != "" {
			msg += fmt.Sprintf(" %s is a fine colour.", color)
		}
		return &mcp.CallToolResult{Content: text(msg)}, nil, nil
	case "decline":
		return &mcp.CallToolResult{Content: text("You declined to answer.")}, nil, nil
	default:
		return &mcp.CallToolResult{Content: text("You cancelled the question.")}, nil, nil
	}
}

func askSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"name":  {Type: "string", Title: "Your name", MinLength: ptr(1)},
			"color": {Type: "string", Title: "Favourite colour", Enum: []any{"red", "green", "blue"}},
		},
		Required: []string{"name"},
	}
}

const richFormSchemaJSON = `{
  "type": "object",
  "properties": {
    "title": {"type": "string", "description": "Required; at least one character.", "minLength": 1},
    "priority": {"type": "string", "enum": ["low", "normal", "high"], "default": "normal"},
    "count": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
    "ratio": {"type": "number", "minimum": 0, "maximum": 1},
    "enabled": {"type": "boolean", "default": true},
    "due": {"type": "string", "format": "date"},
    "email": {"type": "string", "format": "email"},
    "homepage": {"type": "string", "format": "uri"},
    "owner": {
      "type": "object",
      "description": "A nested object.",
      "properties": {
        "name": {"type": "string"},
        "team": {"type": "string", "default": "core"},
        "address": {
          "type": "object",
          "properties": {"city": {"type": "string"}, "zip": {"type": "string"}}
        }
      },
      "required": ["name"]
    },
    "tags": {"type": "array", "items": {"type": "string"}},
    "steps": {
      "type": "array",
      "description": "An array of objects.",
      "items": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "minutes": {"type": "integer", "minimum": 0}},
        "required": ["name"]
      }
    },
    "target": {
      "description": "oneOf: a URL or a path.",
      "oneOf": [
        {"type": "object", "title": "By URL", "properties": {"url": {"type": "string", "format": "uri"}}, "required": ["url"], "additionalProperties": false},
        {"type": "object", "title": "By path", "properties": {"path": {"type": "string"}}, "required": ["path"], "additionalProperties": false}
      ]
    }
  },
  "required": ["title", "priority"]
}`

// applyDefaults sets each missing optional property of obj that has a default,
// and goes into the objects obj holds; unlike jsonschema-go's ApplyDefaults it
// never makes an object the caller left out.
func applyDefaults(obj map[string]any, schema *jsonschema.Schema) {
	for name, prop := range schema.Properties {
		v, ok := obj[name]
		switch {
		case !ok && prop.Default != nil && !slices.Contains(schema.Required, name):
			var d any
			if json.Unmarshal(prop.Default, &d) == nil {
				obj[name] = d
			}
		case ok:
			if inner, isObj := v.(map[string]any); isObj {
				applyDefaults(inner, prop)
			}
		}
	}
}

func richFormSchema() *jsonschema.Schema {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(richFormSchemaJSON), &s); err != nil {
		panic(err) // a constant; covered by the tests
	}
	return &s
}
