package main

import (
	"cmp"
	"encoding/json"
	"os"
	"strings"
)

func init() {
	scenarios["completion-context"] = "a template of two variables, fake://{owner}/{repo}, whose repo completion is built from context.arguments.owner (it proves the client passes earlier fields), and a prompt, repos, with the same two arguments completed the same way (ref/prompt); a read echoes the URI, and a read of fake://ask asks the user's name first (elicitation/create); FAKEMCP_PROMPT_DESCRIPTION replaces the prompt's description"
}

// completionContext answers the requests of the "completion-context" scenario; it
// reports whether it did.
func (s *server) completionContext(id json.RawMessage, req request) bool {
	if s.scenario != "completion-context" {
		return false
	}
	var p struct {
		URI      string `json:"uri"`
		Argument struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
		Context struct {
			Arguments map[string]string `json:"arguments"`
		} `json:"context"`
	}
	_ = json.Unmarshal(req.Params, &p)
	switch req.Method {
	case "initialize":
		s.reply(id, map[string]any{
			"protocolVersion": "2025-11-25",
			"serverInfo":      map[string]string{"name": "fakemcp-completion", "version": "1"},
			"capabilities":    map[string]any{"tools": map[string]any{}, "resources": map[string]any{"listChanged": true}, "completions": map[string]any{}, "prompts": map[string]any{}},
		})
	case "tools/list":
		s.reply(id, map[string]any{"tools": []any{}})
	case "resources/list":
		list := []any{
			map[string]any{"uri": "fake://ask", "name": "ask", "description": "asks who reads it"},
			map[string]any{"uri": "fake://grow", "name": "grow", "description": "reading it adds a resource (notifications/resources/list_changed)"},
		}
		if grown {
			list = append(list, map[string]any{"uri": "fake://grown", "name": "grown", "description": "added by reading fake://grow"})
		}
		s.reply(id, map[string]any{"resources": list})
	case "resources/templates/list":
		s.reply(id, map[string]any{"resourceTemplates": []any{
			map[string]any{"uriTemplate": "fake://{owner}/{repo}", "name": "repos", "mimeType": "text/plain"},
		}})
	case "prompts/list":
		// FAKEMCP_PROMPT_DESCRIPTION: a prompt that changed since the last run, the
		// server's command line the same (a pinned surface's drift).
		desc := cmp.Or(os.Getenv("FAKEMCP_PROMPT_DESCRIPTION"), "names a repository")
		s.reply(id, map[string]any{"prompts": []any{map[string]any{"name": "repos", "description": desc,
			"arguments": []any{map[string]any{"name": "owner", "required": true}, map[string]any{"name": "repo"}}}}})
	case "prompts/get":
		var g struct {
			Arguments map[string]string `json:"arguments"`
		}
		_ = json.Unmarshal(req.Params, &g)
		s.reply(id, map[string]any{"messages": []any{map[string]any{"role": "user",
			"content": map[string]any{"type": "text", "text": "repo " + g.Arguments["owner"] + "/" + g.Arguments["repo"]}}}})
	case "completion/complete":
		var values []string
		switch p.Argument.Name {
		case "owner":
			for _, o := range []string{"alice", "bob"} {
				if strings.HasPrefix(o, p.Argument.Value) {
					values = append(values, o)
				}
			}
		case "repo":
			owner := p.Context.Arguments["owner"]
			if owner == "" {
				owner = "no-owner-in-context"
			}
			values = []string{owner + "-app", owner + "-lib"}
		}
		s.reply(id, map[string]any{"completion": map[string]any{"values": values, "total": len(values)}})
	case "resources/read":
		if p.URI == "fake://ask" {
			// Ask first; the read is answered when the elicitation's answer comes.
			pendingRead = id
			s.write(map[string]any{"jsonrpc": "2.0", "id": "ask-1", "method": "elicitation/create", "params": map[string]any{
				"message":         "Who is reading?",
				"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string", "title": "Your name"}}, "required": []string{"name"}},
			}})
			return true
		}
		s.reply(id, map[string]any{"contents": []any{map[string]any{"uri": p.URI, "mimeType": "text/plain", "text": "read " + p.URI}}})
		if p.URI == "fake://grow" && !grown {
			grown = true
			s.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/resources/list_changed"})
		}
	default:
		return false
	}
	return true
}

// grown: fake://grow was read, and the list has one more resource.
var grown bool

// pendingRead is the id of the read of fake://ask waiting for the elicitation.
var pendingRead json.RawMessage

// completionResponse answers the pending read of fake://ask with what the user said.
func (s *server) completionResponse(msg []byte) {
	if s.scenario != "completion-context" || pendingRead == nil {
		return
	}
	var r struct {
		ID     string `json:"id"`
		Result struct {
			Action  string            `json:"action"`
			Content map[string]string `json:"content"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &r) != nil || r.ID != "ask-1" {
		return
	}
	id := pendingRead
	pendingRead = nil
	text := "you " + r.Result.Action + "d"
	if r.Result.Action == "accept" {
		text = "read by " + r.Result.Content["name"]
	}
	s.reply(id, map[string]any{"contents": []any{map[string]any{"uri": "fake://ask", "mimeType": "text/plain", "text": text}}})
}
