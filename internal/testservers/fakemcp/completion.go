package main

import (
	"encoding/json"
	"strings"
)

func init() {
	scenarios["completion-context"] = "a template of two variables, fake://{owner}/{repo}, whose repo completion is built from context.arguments.owner (it proves the client passes earlier fields); a read echoes the URI"
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
			"capabilities":    map[string]any{"tools": map[string]any{}, "resources": map[string]any{}, "completions": map[string]any{}},
		})
	case "tools/list":
		s.reply(id, map[string]any{"tools": []any{}})
	case "resources/list":
		s.reply(id, map[string]any{"resources": []any{}})
	case "resources/templates/list":
		s.reply(id, map[string]any{"resourceTemplates": []any{
			map[string]any{"uriTemplate": "fake://{owner}/{repo}", "name": "repos", "mimeType": "text/plain"},
		}})
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
		s.reply(id, map[string]any{"contents": []any{map[string]any{"uri": p.URI, "mimeType": "text/plain", "text": "read " + p.URI}}})
	default:
		return false
	}
	return true
}
