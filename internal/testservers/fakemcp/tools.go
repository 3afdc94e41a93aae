package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// tool is one tools/list entry. Schemas and annotations are raw JSON so they are
// written exactly as given here (and absent when nil); Name is an interface so the
// bad-tool-types scenario can make it a number.
type tool struct {
	Name         any             `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
}

// normalTools returns a fresh list each time, so scenarios may change it in place.
func normalTools() []tool {
	return []tool{
		{
			Name:        "echo",
			Title:       "Echo",
			Description: "Echo the message back",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","description":"text to echo"}},"required":["message"]}`),
			Annotations: json.RawMessage(`{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`),
		},
		{
			Name:        "add",
			Description: "Add two numbers",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"integer","default":1},` +
				`"mode":{"type":"string","enum":["fast","exact"]},"flag":{"type":"boolean"},"tags":{"type":"array","items":{"type":"string"}},` +
				`"opts":{"type":"object"}},"required":["a"]}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`),
			// Only readOnlyHint: the other hints are absent on purpose, so clients must
			// apply the spec defaults.
			Annotations: json.RawMessage(`{"readOnlyHint":false}`),
		},
		{
			Name:        "fail",
			Description: "Always returns a tool error",
			InputSchema: json.RawMessage(`{"type":"object"}`),
		},
		{
			Name:        "big",
			Description: "Returns a large text",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"mb":{"type":"number"}}}`),
		},
		{
			Name:        "crash",
			Description: "Exits the process in the middle of the call",
			InputSchema: json.RawMessage(`{"type":"object"}`),
		},
	}
}

// tools returns the tools/list of this scenario.
func (s *server) tools() []tool {
	tools := normalTools()
	switch s.scenario {
	case "content-length":
		// A 2024-11-05 server: no titles, annotations or output schemas existed yet,
		// and this one does not describe its arguments either.
		for i := range tools {
			tools[i].Title = ""
			tools[i].InputSchema = json.RawMessage(`{"type":"object"}`)
			tools[i].OutputSchema = nil
			tools[i].Annotations = nil
		}
	case "bad-tool-types":
		tools[0].Annotations = json.RawMessage(`{"readOnlyHint":"yes"}`)
		tools[2].Name = 42
	case "progress":
		tools = append(tools, tool{
			Name:        "slow",
			Description: "Counts to 5 with progress",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"steps":{"type":"integer"}}}`),
		})
	case "hostile":
		tools = append(tools, hostileTools()...)
	case "images":
		tools = append(tools, tool{
			Name:        "pic",
			Description: "Returns a picture, a sound and resources",
			InputSchema: json.RawMessage(`{"type":"object"}`),
		})
	}
	return tools
}

// pageSize is the paged scenario's page length: five tools make pages of 2, 2 and 1.
const pageSize = 2

func (s *server) listTools(params json.RawMessage) (any, *rpcError) {
	tools := s.tools()
	if s.scenario == "endless" {
		// Every page: one tool with a 1 MiB description, and a cursor never seen before.
		s.endlessPage++
		desc := strings.Repeat("d", 1<<20)
		return map[string]any{
			"tools":      []any{map[string]any{"name": fmt.Sprintf("t%d", s.endlessPage), "description": desc, "inputSchema": map[string]any{"type": "object"}}},
			"nextCursor": fmt.Sprintf("c%d", s.endlessPage),
		}, nil
	}
	if s.scenario != "paged" {
		return map[string]any{"tools": tools}, nil
	}
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if err := json.Unmarshal(nonNull(params), &p); err != nil {
		return nil, &rpcError{codeInvalidParams, "Invalid params: " + err.Error()}
	}
	// Page n (counting from 1) has cursor "pn"; page 1 is asked for without one.
	page := 1
	if p.Cursor != nil {
		page = 0
		for n := 2; (n-1)*pageSize < len(tools); n++ {
			if *p.Cursor == fmt.Sprintf("p%d", n) {
				page = n
			}
		}
		if page == 0 {
			return nil, &rpcError{codeInvalidParams, "Invalid cursor: " + *p.Cursor}
		}
	}
	start := (page - 1) * pageSize
	end := min(start+pageSize, len(tools))
	result := map[string]any{"tools": tools[start:end]}
	if end < len(tools) {
		result["nextCursor"] = fmt.Sprintf("p%d", page+1)
	}
	return result, nil
}

// nonNull turns absent params into an empty object so unmarshalling them succeeds.
func nonNull(params json.RawMessage) json.RawMessage {
	if len(params) == 0 {
		return json.RawMessage(`{}`)
	}
	return params
}

type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

func textContent(text string) map[string]any {
	return map[string]any{"type": "text", "text": text}
}

func textResult(text string) map[string]any {
	return map[string]any{"content": []any{textContent(text)}}
}

func invalidArgs(format string, a ...any) *rpcError {
	return &rpcError{codeInvalidParams, "Invalid arguments: " + fmt.Sprintf(format, a...)}
}

// callTool answers a tools/call. Most tools reply at once; slow replies from its own
// goroutine so that a notifications/cancelled can be read meanwhile.
func (s *server) callTool(id json.RawMessage, params json.RawMessage) {
	var p callParams
	if err := json.Unmarshal(nonNull(params), &p); err != nil {
		s.replyError(id, codeInvalidParams, "Invalid params: "+err.Error())
		return
	}
	args := nonNull(p.Arguments)
	var result any
	var rerr *rpcError
	switch {
	case p.Name == "echo":
		result, rerr = s.echo(args)
	case p.Name == "add":
		result, rerr = add(args, p.Arguments)
	case p.Name == "fail":
		result = map[string]any{"content": []any{textContent("this tool always fails")}, "isError": true}
	case p.Name == "big":
		result, rerr = big(args)
	case p.Name == "crash":
		fmt.Fprintln(os.Stderr, "fakemcp: crashing now")
		os.Exit(3)
	case p.Name == "slow" && s.scenario == "progress":
		s.startSlow(id, args, p.Meta.ProgressToken)
		return
	case (p.Name == "hostile" || p.Name == "hostile_error") && s.scenario == "hostile":
		s.callHostile(id, p.Name)
		return
	case p.Name == "pic" && s.scenario == "images":
		result = s.media.content()
	default:
		rerr = &rpcError{codeInvalidParams, "Unknown tool: " + p.Name}
	}
	s.answer(id, result, rerr)
}

func (s *server) echo(args json.RawMessage) (any, *rpcError) {
	var a struct {
		Message *string `json:"message"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, invalidArgs("%v", err)
	}
	if a.Message == nil {
		return nil, invalidArgs("message is required")
	}
	switch s.scenario {
	case "leaky":
		return leakyEcho(*a.Message), nil
	case "bad-names":
		return badNamesEcho(), nil
	}
	if s.scenario == "unknown-content" {
		return map[string]any{"content": []any{
			textContent("before"),
			map[string]any{"type": "video", "uri": "x.mp4"},
		}}, nil
	}
	return textResult("echo: " + *a.Message), nil
}

// add also returns the arguments exactly as they arrived (echoArgs), so tests can see
// how a client converted what the user typed.
func add(args, raw json.RawMessage) (any, *rpcError) {
	var a struct {
		A *float64 `json:"a"`
		B *float64 `json:"b"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, invalidArgs("%v", err)
	}
	if a.A == nil {
		return nil, invalidArgs("a is required")
	}
	sum := *a.A + 1
	if a.B != nil {
		sum = *a.A + *a.B
	}
	text, _ := json.Marshal(sum) // the same number formatting as structuredContent
	return map[string]any{
		"content":           []any{textContent(string(text))},
		"structuredContent": map[string]any{"sum": sum},
		"echoArgs":          raw,
	}, nil
}

// big returns mb MiB of "0123456789abcdef" repeated. The text is built in one linear
// pass and encoded once, so large sizes cost time proportional to their length only.
func big(args json.RawMessage) (any, *rpcError) {
	var a struct {
		MB *float64 `json:"mb"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, invalidArgs("%v", err)
	}
	mb := 1.0
	if a.MB != nil {
		mb = *a.MB
	}
	if mb < 0 || mb > 4096 {
		return nil, invalidArgs("mb must be between 0 and 4096")
	}
	const pattern = "0123456789abcdef"
	buf := make([]byte, int(mb*(1<<20)))
	for i := 0; i < len(buf); {
		i += copy(buf[i:], pattern)
	}
	return textResult(string(buf)), nil
}

// startSlow runs the progress scenario's slow tool: progress 1..steps, 50 ms apart,
// then the reply; a cancel for its id stops it, and then it never replies.
func (s *server) startSlow(id json.RawMessage, args json.RawMessage, token json.RawMessage) {
	var a struct {
		Steps *int `json:"steps"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		s.answer(id, nil, invalidArgs("%v", err))
		return
	}
	steps := 5
	if a.Steps != nil {
		steps = *a.Steps
	}
	if steps < 0 {
		s.answer(id, nil, invalidArgs("steps must not be negative"))
		return
	}

	key := canonicalID(id)
	cancelled := make(chan struct{})
	s.runMu.Lock()
	s.running[key] = cancelled
	s.runMu.Unlock()
	// finish unregisters the call and reports whether it was cancelled. Both happen
	// under runMu, where cancels are delivered, so a cancel either lands before the
	// reply is sent or finds nothing to cancel.
	finish := func() bool {
		s.runMu.Lock()
		defer s.runMu.Unlock()
		if s.running[key] == cancelled { // not replaced by a later call with this id
			delete(s.running, key)
		}
		select {
		case <-cancelled:
			return true
		default:
			return false
		}
	}

	s.inflight.Add(1)
	go func() {
		defer s.inflight.Done()
	count:
		for i := 1; i <= steps; i++ {
			if len(token) > 0 {
				s.notify("notifications/progress", map[string]any{
					"progressToken": token,
					"progress":      i,
					"total":         steps,
					"message":       fmt.Sprintf("step %d of %d", i, steps),
				})
			}
			if i == steps {
				break
			}
			select {
			case <-cancelled:
				break count // finish below reports the cancel
			case <-time.After(50 * time.Millisecond):
			}
		}
		if finish() {
			fmt.Fprintf(os.Stderr, "fakemcp: cancelled request %s\n", key)
			return
		}
		s.reply(id, textResult(fmt.Sprintf("done after %d steps", steps)))
	}()
}
