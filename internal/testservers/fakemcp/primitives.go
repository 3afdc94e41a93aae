package main

import "encoding/json"

func init() {
	scenarios["primitives"] = "resources, templates, completion and tasks that misbehave: an unknown content shape, a template that does not parse, a completion that never answers, a task that never completes"
}

// primitives answers the requests of the "primitives" scenario; it reports whether
// it did.
func (s *server) primitives(id json.RawMessage, req request) bool {
	if s.scenario != "primitives" {
		return false
	}
	var p struct {
		URI    string `json:"uri"`
		TaskID string `json:"taskId"`
		Name   string `json:"name"`
		Task   any    `json:"task"`
	}
	_ = json.Unmarshal(req.Params, &p)
	task := map[string]any{"taskId": "t-forever", "status": "working", "statusMessage": "still thinking", "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": 60000, "pollInterval": 100}
	if s.foreverCancelled {
		task["status"], task["statusMessage"] = "cancelled", "cancelled on request"
	}
	switch req.Method {
	case "initialize":
		s.reply(id, map[string]any{
			"protocolVersion": "2025-11-25",
			"serverInfo":      map[string]string{"name": "fakemcp-primitives", "version": "1"},
			"capabilities": map[string]any{
				"tools": map[string]any{}, "resources": map[string]any{"subscribe": true}, "prompts": map[string]any{}, "completions": map[string]any{},
				"tasks": map[string]any{"list": map[string]any{}, "cancel": map[string]any{}, "requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}},
			},
		})
	case "resources/list":
		s.reply(id, map[string]any{"resources": []any{
			map[string]any{"uri": "fake://odd", "name": "odd", "mimeType": "video/mp4"},
			map[string]any{"uri": "fake://ok", "name": 42},
			"not an object",
		}})
	case "resources/read":
		if p.URI == "fake://odd" {
			s.reply(id, map[string]any{"contents": []any{map[string]any{"uri": p.URI, "video": "AAAA"}}})
		} else {
			s.reply(id, map[string]any{"contents": []any{map[string]any{"uri": p.URI, "text": "ok"}}})
		}
	case "resources/templates/list":
		s.reply(id, map[string]any{"resourceTemplates": []any{
			map[string]any{"uriTemplate": "fake://items/{id", "name": "broken"},
			map[string]any{"uriTemplate": "fake://items/{id}", "name": "items"},
		}})
	case "completion/complete":
		// Never answers.
	case "tools/list":
		s.reply(id, map[string]any{"tools": []any{map[string]any{
			"name": "forever", "description": "A task that never completes", "inputSchema": map[string]any{"type": "object"},
			"execution": map[string]any{"taskSupport": "required"},
		}, map[string]any{
			"name": "needs_input", "description": "Answers input_required whatever the client declared", "inputSchema": map[string]any{"type": "object"},
		}}})
	case "tools/call":
		if p.Name == "needs_input" {
			s.reply(id, map[string]any{"resultType": "input_required", "inputRequests": map[string]any{"q": map[string]any{"method": "elicitation/create", "params": map[string]any{"message": "?", "requestedSchema": map[string]any{"type": "object"}}}}})
			return true
		}
		if p.Task == nil {
			s.replyError(id, codeMethodNotFound, "tool forever must be called as a task")
			return true
		}
		s.reply(id, map[string]any{"task": task})
	case "tasks/get":
		s.reply(id, task)
	case "tasks/list":
		s.reply(id, map[string]any{"tasks": []any{task}})
	case "tasks/cancel":
		// An ack without the task, as the 2026-07-28 extension answers a cancel:
		// the task's state is for tasks/get to say.
		s.foreverCancelled = true
		s.reply(id, map[string]any{})
	default:
		return false
	}
	return true
}
