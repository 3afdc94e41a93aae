package lint

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/mcpscope/mcpscope/surface"
)

// TokenizerName names what token counts are: OpenAI's o200k_base BPE (the
// vocabulary compiled into github.com/tiktoken-go/tokenizer), exact for the GPT-4o
// and later families and an estimate for others (Claude's and Gemini's tokenizers
// are not published). Bytes are always given beside it.
const TokenizerName = "o200k_base"

// o200k is loaded on first use: about 200 ms and tens of MB, which a command that
// counts nothing must not pay.
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
	Tokens      int    `json:"tokens"`
}

// costs are every definition's cost, heaviest first, and their total.
func costs(s *surface.Surface) ([]Cost, Cost) {
	var out []Cost
	if s == nil {
		return nil, Cost{Object: "server"}
	}
	for _, t := range s.Tools {
		schema := compact(t.InputSchema)
		if len(schema) == 0 {
			schema = []byte("{}")
		}
		out = append(out, cost(surface.ObjTool, t.Name, t.Description, schema, func(b *bytes.Buffer) {
			b.WriteString(`{"name":`)
			writeString(b, t.Name)
			b.WriteString(`,"description":`)
			writeString(b, t.Description)
			b.WriteString(`,"input_schema":`)
			b.Write(schema)
			b.WriteByte('}')
		}))
	}
	for _, p := range s.Prompts {
		out = append(out, itemCost(surface.ObjPrompt, p, "arguments", "name", "description"))
	}
	for _, t := range s.Templates {
		out = append(out, itemCost(surface.ObjTemplate, t, "", "uriTemplate", "name", "title", "description", "mimeType"))
	}
	slices.SortStableFunc(out, func(a, b Cost) int { return b.Tokens - a.Tokens })
	total := Cost{Object: "server", Name: s.Server}
	for _, c := range out {
		total.Bytes += c.Bytes
		total.Description += c.Description
		total.Schema += c.Schema
		total.Tokens += c.Tokens
	}
	return out, total
}

// itemCost is a prompt's or template's cost: the members named, in that order, and
// the schema-like member (a prompt's arguments) counted as its schema.
func itemCost(object string, it surface.Item, schemaMember string, members ...string) Cost {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(it.Raw, &m)
	var desc string
	_ = json.Unmarshal(m["description"], &desc)
	schema := compact(m[schemaMember])
	return cost(object, it.Key, desc, schema, func(b *bytes.Buffer) {
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

func cost(object, name, desc string, schema []byte, write func(*bytes.Buffer)) Cost {
	var b bytes.Buffer
	write(&b)
	var d bytes.Buffer
	if desc != "" {
		writeString(&d, desc)
	}
	return Cost{Object: object, Name: name, Bytes: b.Len(), Description: d.Len(), Schema: len(schema), Tokens: Tokens(b.String())}
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
