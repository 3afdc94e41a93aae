package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/mcpscope/mcpscope/apps"
	"sort"

	"github.com/mcpscope/mcpscope/internal/jsonscan"
)

// Tool is a tool as the server described it. Unlike the SDK's type it keeps what the
// wire said: an annotation absent is told apart from one set to false, unknown fields
// are kept, and a tool with a member of the wrong JSON type is still listed, with the
// problem noted, instead of failing the whole list.
type Tool struct {
	Name         string
	Title        string
	Description  string
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	Annotations  Annotations
	Icons        json.RawMessage
	Meta         json.RawMessage
	// UI is what _meta says of the tool's MCP Apps view (zero: none).
	UI apps.ToolUI
	// Extra holds members this version of mcpscope does not know.
	Extra map[string]json.RawMessage
	// Raw is the tool object exactly as received.
	Raw json.RawMessage
	// Problems lists what is wrong with the object (a wrong JSON type, a missing name).
	Problems []string
}

// DisplayName is what a person should see: title, then annotations.title, then name.
func (t Tool) DisplayName() string {
	switch {
	case t.Title != "":
		return t.Title
	case t.Annotations.Title != "":
		return t.Annotations.Title
	}
	return t.Name
}

// Hint is one boolean tool annotation: whether the server set it, and its value, which
// is the spec default when it did not.
type Hint struct {
	Set   bool
	Value bool
}

// Annotations are a tool's behaviour hints. The spec defaults apply to absent hints:
// readOnly false, destructive true, idempotent false, openWorld true.
type Annotations struct {
	Present     bool // the tool had an annotations object
	Title       string
	ReadOnly    Hint
	Destructive Hint
	Idempotent  Hint
	OpenWorld   Hint
	Extra       map[string]json.RawMessage
}

// HintNames are the four boolean hints in display order, with their wire names.
var HintNames = []struct{ Key, Wire, Label string }{
	{"readOnly", "readOnlyHint", "read-only"},
	{"destructive", "destructiveHint", "destructive"},
	{"idempotent", "idempotentHint", "idempotent"},
	{"openWorld", "openWorldHint", "open-world"},
}

// Hints returns the four hints in HintNames order.
func (a Annotations) Hints() [4]Hint {
	return [4]Hint{a.ReadOnly, a.Destructive, a.Idempotent, a.OpenWorld}
}

func defaultAnnotations() Annotations {
	return Annotations{
		ReadOnly:    Hint{Value: false},
		Destructive: Hint{Value: true},
		Idempotent:  Hint{Value: false},
		OpenWorld:   Hint{Value: true},
	}
}

// decodeTools reads the tools array of a tools/list result, one tool at a time.
func decodeTools(raw json.RawMessage) (tools []Tool, problems []string) {
	// The page is walked, not decoded: each tool keeps slices of it (a page of big
	// tools is held once, not copied per tool and per member).
	var items []json.RawMessage
	trimmed := bytes.TrimSpace(raw)
	switch {
	case jsonscan.Valid(trimmed) != nil:
		return nil, []string{"tools is not valid JSON"}
	case string(trimmed) == "null":
	case trimmed[0] != '[':
		return nil, []string{fmt.Sprintf("tools is %s, not an array", jsonKind(trimmed))}
	default:
		jsonscan.ElementsTrusted(trimmed, func(v []byte) bool { items = append(items, v); return true })
	}
	for i, it := range items {
		t, ok := decodeTool(it)
		if !ok {
			problems = append(problems, fmt.Sprintf("tools[%d] is not an object: %s", i, abbreviate(it, 60)))
			continue
		}
		tools = append(tools, t)
	}
	return tools, problems
}

func decodeTool(raw json.RawMessage) (Tool, bool) {
	t := Tool{Raw: raw, Annotations: defaultAnnotations()}
	if len(raw) == 0 || raw[0] != '{' {
		return t, false
	}
	m := map[string]json.RawMessage{}
	jsonscan.MembersTrusted(raw, func(key, v []byte) bool {
		k := string(key)
		if bytes.IndexByte(key, '\\') >= 0 {
			k, _ = jsonscan.String(append(append([]byte{'"'}, key...), '"'))
		}
		m[k] = v
		return true
	})
	str := func(key string, dst *string) {
		v, ok := m[key]
		delete(m, key)
		if !ok || string(v) == "null" {
			return
		}
		if s, ok := jsonscan.SharedStringTrusted(v); ok {
			*dst = s
		} else {
			t.Problems = append(t.Problems, fmt.Sprintf("%s is %s, not a string", key, jsonKind(v)))
			*dst = string(v)
		}
	}
	str("name", &t.Name)
	str("title", &t.Title)
	str("description", &t.Description)
	if t.Name == "" {
		t.Problems = append(t.Problems, "name is missing")
	}
	take := func(key string) json.RawMessage {
		v := m[key]
		delete(m, key)
		return v
	}
	t.InputSchema = take("inputSchema")
	if t.InputSchema == nil {
		t.Problems = append(t.Problems, "inputSchema is missing")
	} else if jsonKind(t.InputSchema) != "an object" {
		t.Problems = append(t.Problems, fmt.Sprintf("inputSchema is %s, not an object", jsonKind(t.InputSchema)))
	}
	t.OutputSchema = take("outputSchema")
	t.Icons = take("icons")
	t.Meta = take("_meta")
	var uiProblems []string
	t.UI, uiProblems = apps.FromToolMeta(t.Meta)
	t.Problems = append(t.Problems, uiProblems...)
	if ann := take("annotations"); ann != nil && string(ann) != "null" {
		t.Annotations.Present = true
		var am map[string]json.RawMessage
		if err := json.Unmarshal(ann, &am); err != nil {
			t.Problems = append(t.Problems, fmt.Sprintf("annotations is %s, not an object", jsonKind(ann)))
		} else {
			hint := func(wire string, h *Hint) {
				v, ok := am[wire]
				delete(am, wire)
				if !ok || string(v) == "null" {
					return
				}
				var b bool
				if err := json.Unmarshal(v, &b); err != nil {
					t.Problems = append(t.Problems, fmt.Sprintf("annotations.%s is %s, not a boolean; the spec default is shown", wire, jsonKind(v)))
					return
				}
				*h = Hint{Set: true, Value: b}
			}
			hint("readOnlyHint", &t.Annotations.ReadOnly)
			hint("destructiveHint", &t.Annotations.Destructive)
			hint("idempotentHint", &t.Annotations.Idempotent)
			hint("openWorldHint", &t.Annotations.OpenWorld)
			if v, ok := am["title"]; ok {
				delete(am, "title")
				if json.Unmarshal(v, &t.Annotations.Title) != nil {
					t.Problems = append(t.Problems, "annotations.title is not a string")
				}
			}
			if len(am) > 0 {
				t.Annotations.Extra = am
			}
		}
	}
	if len(m) > 0 {
		t.Extra = m
	}
	return t, true
}

// jsonKind names the JSON type of a value for messages.
func jsonKind(v json.RawMessage) string {
	for _, c := range v {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return "an object"
		case '[':
			return "an array"
		case '"':
			return "a string"
		case 't', 'f':
			return "a boolean"
		case 'n':
			return "null"
		default:
			return "a number"
		}
	}
	return "empty"
}

func abbreviate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

// Param is one top-level argument of a tool, summarized from its input schema.
type Param struct {
	Name        string            `json:"name"`
	Type        string            `json:"type,omitempty"`
	Required    bool              `json:"required"`
	Description string            `json:"description,omitempty"`
	Enum        []json.RawMessage `json:"enum,omitempty"`
	Default     json.RawMessage   `json:"default,omitempty"`
	Format      string            `json:"format,omitempty"`
}

// Params summarizes the top-level properties of the input schema, in the order the
// server wrote them.
func (t Tool) Params() []Param {
	var schema struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(t.InputSchema, &schema) != nil || schema.Properties == nil {
		return nil
	}
	names, props := orderedObject(schema.Properties)
	required := map[string]bool{}
	for _, r := range schema.Required {
		required[r] = true
	}
	var out []Param
	for _, name := range names {
		p := Param{Name: name, Required: required[name]}
		var prop struct {
			Type        json.RawMessage   `json:"type"`
			Description string            `json:"description"`
			Enum        []json.RawMessage `json:"enum"`
			Default     json.RawMessage   `json:"default"`
			Format      string            `json:"format"`
			Items       *struct {
				Type json.RawMessage `json:"type"`
			} `json:"items"`
			OneOf []json.RawMessage `json:"oneOf"`
			AnyOf []json.RawMessage `json:"anyOf"`
			Ref   string            `json:"$ref"`
		}
		_ = json.Unmarshal(props[name], &prop)
		p.Type = typeName(prop.Type)
		if p.Type == "array" && prop.Items != nil {
			if it := typeName(prop.Items.Type); it != "" {
				p.Type = it + "[]"
			}
		}
		if p.Type == "" {
			switch {
			case prop.OneOf != nil:
				p.Type = "oneOf"
			case prop.AnyOf != nil:
				p.Type = "anyOf"
			case prop.Ref != "":
				p.Type = prop.Ref
			}
		}
		p.Description, p.Enum, p.Default, p.Format = prop.Description, prop.Enum, prop.Default, prop.Format
		out = append(out, p)
	}
	return out
}

// typeName reads a schema "type", which may be a string or an array of strings
// (["string","null"] reads as "string|null").
func typeName(v json.RawMessage) string {
	if v == nil {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(v, &list) == nil {
		out := ""
		for i, x := range list {
			if i > 0 {
				out += "|"
			}
			out += x
		}
		return out
	}
	return ""
}

// ObjectKeys returns the keys of a JSON object in document order (nil if it is not an
// object).
func ObjectKeys(raw json.RawMessage) []string {
	keys, _ := orderedObject(raw)
	return keys
}

// orderedObject returns the keys of a JSON object in document order, with their values.
func orderedObject(raw json.RawMessage) ([]string, map[string]json.RawMessage) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var keys []string
	depth := 0
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				depth++
				expectKey = depth == 1 && v == '{'
			case '}', ']':
				depth--
				expectKey = depth == 1
			}
			continue
		case string:
			if depth == 1 && expectKey {
				keys = append(keys, v)
				expectKey = false
				continue
			}
		}
		if depth == 1 {
			expectKey = true
		}
	}
	if len(keys) != len(m) { // duplicate keys or a parse surprise: fall back to sorted
		keys = keys[:0]
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
	}
	return keys, m
}

// DecodeTools reads the tools array of a tools/list result (from a recording, a saved
// file) exactly as a live listing does: one tool at a time, problems noted, not fatal.
func DecodeTools(raw json.RawMessage) ([]Tool, []string) { return decodeTools(raw) }
