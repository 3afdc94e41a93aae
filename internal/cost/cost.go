// Package cost measures what an MCP definition puts into a model's context: the
// bytes of a tool, a prompt or a resource template as a host sends it to a model,
// split into description and schema, and (when asked) its o200k_base tokens.
//
// It is its own package, below lint, inspect and tui, so that every place that shows
// a cost counts the same bytes (lint's report, --inspect, the workbench): lint
// imports surface, which imports inspect, so inspect cannot ask lint.
//
// Bytes are cheap and always given. Tokens load the tokenizer's vocabulary on first
// use (about 130 ms on a loaded 2-core machine, tens of MB): a caller counts them only
// when a user asked, and off any hot path (a tea.Cmd in the workbench).
package cost

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/mcpscope/mcpscope/client"
)

// TokenizerName names what token counts are: OpenAI's o200k_base BPE (the
// vocabulary compiled into github.com/tiktoken-go/tokenizer), exact for the GPT-4o
// and later families and an estimate for others (Claude's and Gemini's tokenizers
// are not published). Bytes are always given beside it.
const TokenizerName = "o200k_base"

// o200k is loaded on first use: a command that counts nothing must not pay for it.
var o200k = sync.OnceValue(codec.NewO200kBase)

// Tokens counts s in o200k_base.
func Tokens(s string) int {
	if s == "" {
		return 0
	}
	n, err := o200k().Count(s)
	if err != nil {
		return (len(s) + 3) / 4 // never happens for a string; the usual rule of thumb
	}
	return n
}

// Object kinds a Cost is of (the same words as package surface's).
const (
	Tool     = "tool"
	Prompt   = "prompt"
	Template = "template"
	Server   = "server"
)

// Cost is what one definition (or a whole server) puts into a model's context.
//
// What is counted is the definition as a host sends it to a model: for a tool the
// JSON object {"name", "description", "input_schema"} (the shape Anthropic's API
// takes; OpenAI's and Gemini's wrap the same three members), for a prompt its name,
// description and arguments, for a resource template its uriTemplate, name, title,
// description and mimeType. Titles, annotations, output schemas, icons and _meta
// stay with the host and are not counted.
type Cost struct {
	Object      string `json:"object"`
	Name        string `json:"name"`
	Bytes       int    `json:"bytes"`       // the whole definition, compact JSON
	Description int    `json:"description"` // of which the description (its JSON string)
	Schema      int    `json:"schema"`      // of which the input schema or arguments
	Tokens      int    `json:"tokens"`      // 0 when not counted
}

// Add adds c's figures to the total t.
func (t *Cost) Add(c Cost) {
	t.Bytes += c.Bytes
	t.Description += c.Description
	t.Schema += c.Schema
	t.Tokens += c.Tokens
}

// OfTool is a tool's cost; tokens counts its tokens too.
func OfTool(t client.Tool, tokens bool) Cost {
	schema := compact(t.InputSchema)
	if len(schema) == 0 {
		schema = []byte("{}")
	}
	return measure(tokens, Tool, t.Name, t.Description, schema, func(b *bytes.Buffer) {
		b.WriteString(`{"name":`)
		writeString(b, t.Name)
		b.WriteString(`,"description":`)
		writeString(b, t.Description)
		b.WriteString(`,"input_schema":`)
		b.Write(schema)
		b.WriteByte('}')
	})
}

// OfPrompt is a prompt's cost from its object as the server sent it (key its name).
func OfPrompt(key string, raw json.RawMessage, tokens bool) Cost {
	return ofItem(tokens, Prompt, key, raw, "arguments", "name", "description")
}

// OfTemplate is a resource template's cost from its object as the server sent it.
func OfTemplate(key string, raw json.RawMessage, tokens bool) Cost {
	return ofItem(tokens, Template, key, raw, "", "uriTemplate", "name", "title", "description", "mimeType")
}

// ofItem is a prompt's or template's cost: the members named, in that order, and
// the schema-like member (a prompt's arguments) counted as its schema.
func ofItem(tokens bool, object, key string, raw json.RawMessage, schemaMember string, members ...string) Cost {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	var desc string
	_ = json.Unmarshal(m["description"], &desc)
	schema := compact(m[schemaMember])
	return measure(tokens, object, key, desc, schema, func(b *bytes.Buffer) {
		b.WriteByte('{')
		first := true
		for _, k := range append(members, schemaMember) {
			v := compact(m[k])
			if k == "" || len(v) == 0 {
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			writeString(b, k)
			b.WriteByte(':')
			b.Write(v)
		}
		b.WriteByte('}')
	})
}

func measure(tokens bool, object, name, desc string, schema []byte, write func(*bytes.Buffer)) Cost {
	var b bytes.Buffer
	write(&b)
	var d bytes.Buffer
	if desc != "" {
		writeString(&d, desc)
	}
	c := Cost{Object: object, Name: name, Bytes: b.Len(), Description: d.Len(), Schema: len(schema)}
	if tokens {
		c.Tokens = Tokens(b.String())
	}
	return c
}

// compact is raw without insignificant space (nil when raw is empty or not JSON).
func compact(raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return nil
	}
	if b.String() == "null" {
		return nil
	}
	return b.Bytes()
}

// writeString writes s as a JSON string, as a host's encoder would (no HTML escaping).
func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // the encoder's newline
}
