package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"
)

func init() {
	scenarios["skills"] = "the skills extension with a skill whose file fails its digest and one whose file has the wrong size; a prompt that asks the user (elicitation/create) before it answers; a tool that adds a prompt (prompts/list_changed); a prompt argument whose completion never answers"
}

// skillsState is the skills scenario's state: the prompts/get waiting for the
// user's answer, and whether the extra prompt was added.
var skillsState struct {
	sync.Mutex
	waiting json.RawMessage // the id of the prompts/get that waits for the elicitation
	extra   bool
}

const elicitID = `"fakemcp-elicit-1"`

type fakeSkillFile struct{ path, text string }

// fakeSkills: "fine" is whole; "tampered" lists a digest its notes.md does not have;
// "resized" lists a size its data.txt does not have.
var fakeSkills = []struct {
	name, description string
	files             []fakeSkillFile
	digest            map[string]string // path -> a digest to list instead of the true one
	size              map[string]int    // path -> a size to list instead of the true one
}{
	{name: "fine", description: "A skill whose files match the listing", files: []fakeSkillFile{
		{"SKILL.md", "---\nname: fine\ndescription: A skill whose files match the listing\n---\n\nRead `notes.md`.\n"},
		{"notes.md", "These notes match their digest.\n"},
	}},
	{name: "tampered", description: "A skill with a file that fails its digest", files: []fakeSkillFile{
		{"SKILL.md", "---\nname: tampered\ndescription: A skill with a file that fails its digest\n---\n\nRead `notes.md`.\n"},
		{"notes.md", "These notes were changed after the listing.\n"},
	}, digest: map[string]string{"notes.md": fakeDigest("These notes as they were listed.\n")}},
	{name: "resized", description: "A skill with a file of the wrong size", files: []fakeSkillFile{
		{"SKILL.md", "---\nname: resized\ndescription: A skill with a file of the wrong size\n---\n\nRead `data.txt`.\n"},
		{"data.txt", "twelve bytes"},
	}, size: map[string]int{"data.txt": 99}},
}

func fakeDigest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func fakeSkillEntry(i int) map[string]any {
	k := fakeSkills[i]
	var res []any
	for _, f := range k.files {
		d, ok := k.digest[f.path]
		if !ok {
			d = fakeDigest(f.text)
		}
		n, ok := k.size[f.path]
		if !ok {
			n = len(f.text)
		}
		res = append(res, map[string]any{"uri": "skill://" + k.name + "/" + f.path, "digest": d, "size": n})
	}
	return map[string]any{"uri": "skill://" + k.name + "/SKILL.md",
		"frontmatter": map[string]string{"name": k.name, "description": k.description}, "resources": res}
}

// skills answers the skills scenario's requests, and the client's answer to its
// elicitation; it reports whether it did.
func (s *server) skills(id json.RawMessage, req request, msg []byte) bool {
	if s.scenario != "skills" || (req.Method != "" && len(id) == 0) {
		return false // not the scenario, or a notification
	}
	if req.Method == "" { // a response from the client
		if string(id) != elicitID {
			return true
		}
		var r struct {
			Result struct {
				Action  string            `json:"action"`
				Content map[string]string `json:"content"`
			} `json:"result"`
		}
		skillsState.Lock()
		waiting := skillsState.waiting
		skillsState.waiting = nil
		skillsState.Unlock()
		if waiting == nil {
			return true
		}
		_ = json.Unmarshal(msg, &r)
		text := "You " + r.Result.Action + "ed."
		if r.Result.Action == "accept" {
			text = "The user's name is " + r.Result.Content["name"] + "."
		}
		s.reply(waiting, map[string]any{"messages": []any{
			map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": text}},
		}})
		return true
	}
	var p struct {
		Name      string            `json:"name"`
		URI       string            `json:"uri"`
		Arguments map[string]string `json:"arguments"`
	}
	_ = json.Unmarshal(req.Params, &p)
	switch req.Method {
	case "initialize":
		s.reply(id, map[string]any{
			"protocolVersion": "2025-11-25",
			"serverInfo":      map[string]string{"name": "fakemcp-skills", "version": "1"},
			"capabilities": map[string]any{
				"tools": map[string]any{}, "prompts": map[string]any{"listChanged": true}, "resources": map[string]any{}, "completions": map[string]any{},
				"extensions": map[string]any{"io.modelcontextprotocol/skills": map[string]any{}},
			},
		})
	case "skills/list":
		var list []any
		for i := range fakeSkills {
			list = append(list, fakeSkillEntry(i))
		}
		s.reply(id, map[string]any{"skills": list})
	case "resources/read":
		for _, k := range fakeSkills {
			for _, f := range k.files {
				if p.URI == "skill://"+k.name+"/"+f.path {
					s.reply(id, map[string]any{"contents": []any{map[string]any{"uri": p.URI, "mimeType": "text/markdown", "text": f.text}}})
					return true
				}
			}
		}
		s.replyError(id, -32002, "Resource not found: "+p.URI)
	case "resources/list":
		s.reply(id, map[string]any{"resources": []any{}})
	case "prompts/list":
		prompts := []any{map[string]any{"name": "ask_first", "description": "Asks the user for a name (elicitation/create) before it answers",
			"arguments": []any{}},
			map[string]any{"name": "slow_complete", "description": "Its argument's completion never answers",
				"arguments": []any{map[string]any{"name": "topic", "required": true}}}}
		skillsState.Lock()
		if skillsState.extra {
			prompts = append(prompts, map[string]any{"name": "added_later", "description": "Added by the add_prompt tool"})
		}
		skillsState.Unlock()
		s.reply(id, map[string]any{"prompts": prompts})
	case "prompts/get":
		switch p.Name {
		case "ask_first":
			skillsState.Lock()
			skillsState.waiting = id
			skillsState.Unlock()
			s.write(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(elicitID), "method": "elicitation/create", "params": map[string]any{
				"message": "Who is asking for this prompt?",
				"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string", "title": "Name"}},
					"required": []string{"name"}},
			}})
		case "slow_complete":
			s.reply(id, map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Topic: " + p.Arguments["topic"]}}}})
		case "added_later":
			s.reply(id, map[string]any{"messages": []any{map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "I was added later."}}}})
		default:
			s.replyError(id, codeInvalidParams, "no prompt "+p.Name)
		}
	case "completion/complete":
		// Never answers.
	case "tools/list":
		s.reply(id, map[string]any{"tools": []any{map[string]any{"name": "add_prompt", "description": "Adds the prompt added_later and sends notifications/prompts/list_changed",
			"inputSchema": map[string]any{"type": "object"}}}})
	case "tools/call":
		skillsState.Lock()
		skillsState.extra = true
		skillsState.Unlock()
		s.reply(id, map[string]any{"content": []any{map[string]any{"type": "text", "text": "added the prompt added_later"}}})
		s.notify("notifications/prompts/list_changed", nil)
	default:
		return false
	}
	return true
}
