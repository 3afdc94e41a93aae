package main

import "encoding/json"

func init() {
	scenarios["skill-dirs"] = "the skills extension with directoryRead and one dynamic skill, wander, whose directories list a file outside the skill and list themselves again (a walk must follow neither)"
}

// wanderDirs is what resources/directory/read answers for each of wander's
// directories: besides its real files, a file of another skill and the directories
// it is in (a cycle).
var wanderDirs = map[string][]map[string]any{
	"skill://wander": {
		{"uri": "skill://wander/SKILL.md", "name": "SKILL.md", "mimeType": "text/markdown"},
		{"uri": "skill://wander/sub", "name": "sub", "mimeType": "inode/directory"},
		{"uri": "skill://other/secret.txt", "name": "secret.txt", "mimeType": "text/plain"},
	},
	"skill://wander/sub": {
		{"uri": "skill://wander/sub/ok.md", "name": "ok.md", "mimeType": "text/markdown", "size": 3},
		{"uri": "skill://wander/sub", "name": "sub", "mimeType": "inode/directory"},
	},
}

var wanderFiles = map[string]string{
	"skill://wander/SKILL.md":  "---\nname: wander\ndescription: A dynamic skill whose directories wander off\n---\n",
	"skill://wander/sub/ok.md": "ok\n",
	"skill://other/secret.txt": "not wander's\n",
}

// skillDirs answers the skill-dirs scenario's requests; it reports whether it did.
func (s *server) skillDirs(id json.RawMessage, req request) bool {
	if s.scenario != "skill-dirs" || len(id) == 0 {
		return false
	}
	var p struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(req.Params, &p)
	switch req.Method {
	case "initialize":
		s.reply(id, map[string]any{
			"protocolVersion": "2025-11-25",
			"serverInfo":      map[string]string{"name": "fakemcp-skill-dirs", "version": "1"},
			"capabilities": map[string]any{"tools": map[string]any{}, "resources": map[string]any{},
				"extensions": map[string]any{"io.modelcontextprotocol/skills": map[string]any{"directoryRead": true}}},
		})
	case "skills/list":
		s.reply(id, map[string]any{"skills": []any{map[string]any{"uri": "skill://wander/SKILL.md", "resources": "dynamic",
			"frontmatter": map[string]string{"name": "wander", "description": "A dynamic skill whose directories wander off"}}}})
	case "resources/directory/read":
		children, ok := wanderDirs[p.URI]
		if !ok {
			s.replyError(id, -32602, "not a directory: "+p.URI)
			return true
		}
		s.reply(id, map[string]any{"resources": children})
	case "resources/read":
		text, ok := wanderFiles[p.URI]
		if !ok {
			s.replyError(id, -32002, "Resource not found: "+p.URI)
			return true
		}
		s.reply(id, map[string]any{"contents": []any{map[string]any{"uri": p.URI, "mimeType": "text/markdown", "text": text}}})
	case "tools/list":
		s.reply(id, map[string]any{"tools": []any{}})
	default:
		return false
	}
	return true
}
