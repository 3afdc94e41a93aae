package main

import (
	"encoding/json"
	"fmt"
)

func init() {
	scenarios["asks"] = "2025-11-25 with tasks: ask_model sends sampling/createMessage with 1,000 messages carrying terminal escapes and answers with the reply; maybe_task has taskSupport optional"
}

// asksState is the asks scenario's: the tools/call waiting for each sampling request
// it sent.
type asksState struct {
	next    int
	pending map[string]json.RawMessage // the sampling request's id -> the tools/call id
}

const asksHostile = "\x1b]2;pwned\x07\x1b[31mred\x1b[0m"

// asks answers the requests of the "asks" scenario; it reports whether it did.
func (s *server) asks(id json.RawMessage, req request) bool {
	if s.scenario != "asks" {
		return false
	}
	var p struct {
		Name   string `json:"name"`
		Task   any    `json:"task"`
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(req.Params, &p)
	task := map[string]any{"taskId": "t-maybe", "status": "working", "statusMessage": "on it", "createdAt": "2026-01-01T00:00:00Z",
		"lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": 60000, "pollInterval": 50}
	switch req.Method {
	case "initialize":
		s.reply(id, map[string]any{
			"protocolVersion": "2025-11-25",
			"serverInfo":      map[string]string{"name": "fakemcp-asks", "version": "1"},
			"capabilities": map[string]any{"tools": map[string]any{},
				"tasks": map[string]any{"cancel": map[string]any{}, "requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}},
		})
	case "tools/list":
		s.reply(id, map[string]any{"tools": []any{
			map[string]any{"name": "ask_model", "description": "Asks the client's model, with 1,000 messages", "inputSchema": map[string]any{"type": "object"}},
			map[string]any{"name": "maybe_task", "description": "Runs as a task when asked to", "inputSchema": map[string]any{"type": "object"},
				"execution": map[string]any{"taskSupport": "optional"}},
		}})
	case "tools/call":
		switch {
		case p.Name == "maybe_task" && p.Task != nil:
			s.reply(id, map[string]any{"task": task})
		case p.Name == "maybe_task":
			s.reply(id, map[string]any{"content": []any{map[string]any{"type": "text", "text": "ran as a plain call"}}})
		case p.Name == "ask_model":
			if s.asked.pending == nil {
				s.asked.pending = map[string]json.RawMessage{}
			}
			s.asked.next++
			sid := fmt.Sprintf("fake-sample-%d", s.asked.next)
			s.asked.pending[`"`+sid+`"`] = id
			msgs := make([]any, 0, 1000)
			for i := 1; i <= 1000; i++ {
				role := "user"
				if i%2 == 0 {
					role = "assistant"
				}
				msgs = append(msgs, map[string]any{"role": role, "content": map[string]any{"type": "text", "text": fmt.Sprintf("message %d of 1000 %s", i, asksHostile)}})
			}
			s.write(map[string]any{"jsonrpc": "2.0", "id": sid, "method": "sampling/createMessage", "params": map[string]any{
				"messages": msgs, "maxTokens": 64, "systemPrompt": "be brief " + asksHostile,
				"modelPreferences": map[string]any{"hints": []any{map[string]any{"name": "claude"}}, "speedPriority": 0.8},
			}})
		default:
			s.replyError(id, codeInvalidParams, "no tool "+p.Name)
		}
	case "tasks/get":
		task["status"], task["statusMessage"] = "completed", "done"
		s.reply(id, task)
	case "tasks/result":
		s.reply(id, map[string]any{"content": []any{map[string]any{"type": "text", "text": "ran as a task"}}})
	case "tasks/cancel":
		task["status"] = "cancelled"
		s.reply(id, task)
	default:
		return false
	}
	return true
}

// asksResponse takes the client's answer to a sampling request and answers the
// tools/call that caused it with the reply's text (or the error).
func (s *server) asksResponse(msg []byte) {
	var r struct {
		ID     json.RawMessage `json:"id"`
		Result struct {
			Content json.RawMessage `json:"content"`
			Model   string          `json:"model"`
		} `json:"result"`
		Error *rpcError `json:"error"`
	}
	if json.Unmarshal(msg, &r) != nil {
		return
	}
	callID, ok := s.asked.pending[canonicalID(r.ID)]
	if !ok {
		return
	}
	delete(s.asked.pending, canonicalID(r.ID))
	if r.Error != nil {
		s.reply(callID, map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "the client refused: " + r.Error.Message}}})
		return
	}
	var c struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(r.Result.Content, &c)
	s.reply(callID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "the model (" + r.Result.Model + ") said: " + c.Text}}})
}
