package lint

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/surface"
)

// geminiAllowed are the members of Gemini's Schema object (the `parameters` field).
var geminiAllowed = set("type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
	"properties", "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example",
	"anyOf", "propertyOrdering", "default", "items", "minimum", "maximum")

// geminiNamed are members outside the subset with a rule of their own.
var geminiNamed = map[string]string{
	"$schema": "gemini-no-schema-keyword", "additionalProperties": "gemini-no-additional-properties",
	"const": "gemini-no-const", "exclusiveMinimum": "gemini-no-exclusive-bounds", "exclusiveMaximum": "gemini-no-exclusive-bounds",
	"propertyNames": "gemini-no-property-names", "$ref": "gemini-no-ref-defs", "$defs": "gemini-no-ref-defs",
	"definitions": "gemini-no-ref-defs", "oneOf": "gemini-no-composition", "allOf": "gemini-no-composition",
	"not": "gemini-no-composition", "if": "gemini-no-composition", "then": "gemini-no-composition",
	"else": "gemini-no-composition", "patternProperties": "gemini-no-composition", "uniqueItems": "gemini-no-composition",
	"dependentRequired": "gemini-no-composition", "dependentSchemas": "gemini-no-composition",
}

// openAIUnsupported are rejected in strict mode; openAIUnlisted are not on its list.
var (
	openAIUnsupported = set("allOf", "not", "dependentRequired", "dependentSchemas", "if", "then", "else")
	openAIUnlisted    = set("oneOf", "patternProperties", "propertyNames", "unevaluatedProperties", "unevaluatedItems",
		"minProperties", "maxProperties", "uniqueItems", "contains", "minLength", "maxLength", "default")
)

// anthropicStrictConstraint are the constraints strict tool use does not support
// (minItems only above 1).
var anthropicStrictConstraint = set("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "minItems", "maxItems")

// refInside reports whether a local $ref (#/a/b) names the schema at ptr or one it
// is inside (ptr is under /inputSchema): a recursive schema.
func refInside(ref, ptr string) bool {
	target := "/inputSchema" + strings.TrimPrefix(ref, "#")
	return ptr == target || strings.HasPrefix(ptr, target+"/")
}

func set(s ...string) map[string]bool {
	m := make(map[string]bool, len(s))
	for _, v := range s {
		m[v] = true
	}
	return m
}

// subschemas are the members whose value is a schema, a list of schemas or a map of
// schemas, the places a walk descends into.
var (
	schemaValued = set("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
		"unevaluatedProperties", "unevaluatedItems", "additionalItems")
	schemaLists = set("anyOf", "oneOf", "allOf", "prefixItems", "items")
	schemaMaps  = set("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
)

// schemaWalk is the state of one tool's input schema walk.
type schemaWalk struct {
	c        *checker
	tool     string
	props    int // properties, over the whole schema (OpenAI's 5000)
	enums    int // enum values (OpenAI's 1000)
	strLen   int // property names, definition names, enum and const values (OpenAI's 120,000)
	maxDepth int // nesting of objects
}

// schema checks a tool's input schema for every provider.
func (c *checker) schema(t *client.Tool) {
	const obj = surface.ObjTool
	root := decode(t.InputSchema)
	m, isObj := root.(map[string]any)
	if !isObj {
		c.at("mcp-input-schema-object", obj, t.Name, "/inputSchema", "inputSchema is missing, null or not an object")
		c.at("anthropic-input-schema-object", obj, t.Name, "/inputSchema", "input_schema is not an object schema")
		c.at("openai-strict-root-object", obj, t.Name, "/inputSchema", "the parameters are not an object schema")
		return
	}
	if m["type"] != "object" {
		c.at("anthropic-input-schema-object", obj, t.Name, "/inputSchema/type", fmt.Sprintf("type is %s, not \"object\"", short(m["type"])))
	}
	if m["type"] != "object" || m["anyOf"] != nil {
		c.at("openai-strict-root-object", obj, t.Name, "/inputSchema", "the root is not a plain object schema")
	}
	w := &schemaWalk{c: c, tool: t.Name}
	w.node(m, "/inputSchema", 0)
	const ptr = "/inputSchema"
	if w.maxDepth > 10 {
		c.at("openai-strict-depth", obj, t.Name, ptr, fmt.Sprintf("objects nest %d levels deep", w.maxDepth))
	}
	switch {
	case w.props > 5000:
		c.at("openai-strict-size", obj, t.Name, ptr, fmt.Sprintf("%d properties", w.props))
	case w.enums > 1000:
		c.at("openai-strict-size", obj, t.Name, ptr, fmt.Sprintf("%d enum values", w.enums))
	case w.strLen > 120000:
		c.at("openai-strict-size", obj, t.Name, ptr, fmt.Sprintf("%d characters of names and values", w.strLen))
	}
}

// node checks one schema object and descends into its subschemas. depth counts the
// objects around it.
func (w *schemaWalk) node(m map[string]any, ptr string, depth int) {
	const obj = surface.ObjTool
	c, name := w.c, w.tool
	isObject := m["type"] == "object" || m["properties"] != nil
	if isObject {
		depth++
		w.maxDepth = max(w.maxDepth, depth)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		at := pointerJoin(ptr, k)
		switch {
		case geminiNamed[k] != "":
			c.at(geminiNamed[k], obj, name, at, k+" is not in Gemini's schema subset (clients that send parametersJsonSchema are spared)")
		case k == "default":
			c.at("gemini-default-ignored", obj, name, at, "")
		case !geminiAllowed[k]:
			c.at("gemini-unknown-keyword", obj, name, at, k+" is not a member of Gemini's Schema")
		}
		if openAIUnsupported[k] {
			c.at("openai-strict-unsupported", obj, name, at, k+" is rejected in strict mode")
		} else if openAIUnlisted[k] {
			c.at("openai-strict-unlisted", obj, name, at, k+" is not in strict mode's supported list")
		}
		if anthropicStrictConstraint[k] {
			if n := fmt.Sprint(m[k]); !(k == "minItems" && (n == "0" || n == "1")) { // a json.Number as written
				c.at("anthropic-strict-constraint", obj, name, at, k+" is not supported in strict tool use")
			}
		}
	}
	if ref, ok := m["$ref"].(string); ok {
		switch {
		case !strings.HasPrefix(ref, "#"):
			c.at("anthropic-strict-external-ref", obj, name, pointerJoin(ptr, "$ref"), fmt.Sprintf("$ref %q points outside the schema", ref))
		case refInside(ref, ptr):
			c.at("anthropic-strict-recursive", obj, name, pointerJoin(ptr, "$ref"), fmt.Sprintf("$ref %q refers to a schema this one is inside", ref))
		}
	}
	if ts, ok := m["type"].([]any); ok {
		c.at("gemini-type-array", obj, name, pointerJoin(ptr, "type"), fmt.Sprintf("type is a list %s", short(ts)))
	}
	if e, ok := m["enum"].([]any); ok {
		w.enums += len(e)
		for i, v := range e {
			switch v.(type) {
			case map[string]any, []any:
				c.at("anthropic-strict-enum-primitive", obj, name, pointerJoin(ptr, "enum")+fmt.Sprintf("/%d", i), fmt.Sprintf("enum value %s is not a primitive", short(v)))
			}
		}
		for i, v := range e {
			s, isStr := v.(string)
			w.strLen += len(s)
			if !isStr {
				c.at("gemini-enum-strings", obj, name, pointerJoin(ptr, "enum")+fmt.Sprintf("/%d", i), fmt.Sprintf("enum value %s is not a string", short(v)))
				break
			}
		}
	}
	if s, ok := m["const"].(string); ok {
		w.strLen += len(s)
	}
	if isObject {
		w.object(m, ptr)
	}
	for _, k := range keys {
		v := m[k]
		switch {
		case schemaMaps[k]:
			sub, _ := v.(map[string]any)
			subKeys := make([]string, 0, len(sub))
			for sk := range sub {
				subKeys = append(subKeys, sk)
			}
			sort.Strings(subKeys)
			for _, sk := range subKeys {
				if s, ok := sub[sk].(map[string]any); ok {
					w.node(s, pointerJoin(pointerJoin(ptr, k), sk), depth)
				}
			}
		case schemaLists[k]:
			if list, ok := v.([]any); ok {
				for i, s := range list {
					if sm, ok := s.(map[string]any); ok {
						w.node(sm, fmt.Sprintf("%s/%d", pointerJoin(ptr, k), i), depth)
					}
				}
				continue
			}
			fallthrough
		case schemaValued[k]:
			if sm, ok := v.(map[string]any); ok {
				w.node(sm, pointerJoin(ptr, k), depth)
			}
		}
	}
}

// object checks an object schema: OpenAI's strict closure and required list, Gemini's
// parameter names.
func (w *schemaWalk) object(m map[string]any, ptr string) {
	const obj = surface.ObjTool
	c, name := w.c, w.tool
	props, _ := m["properties"].(map[string]any)
	w.props += len(props)
	var names []string
	for k := range props {
		names = append(names, k)
		w.strLen += len(k)
	}
	sort.Strings(names)
	if ap, ok := m["additionalProperties"].(bool); !ok || ap {
		c.at("openai-strict-additional-properties", obj, name, ptr, "the object does not set additionalProperties: false")
		c.at("anthropic-strict-additional-properties", obj, name, ptr, "the object does not set additionalProperties: false")
	}
	for _, k := range names {
		if p, ok := props[k].(map[string]any); ok {
			if _, list := p["type"].([]any); list || p["anyOf"] != nil {
				c.unions++
			}
		}
	}
	req := map[string]bool{}
	if list, ok := m["required"].([]any); ok {
		for _, v := range list {
			if s, ok := v.(string); ok {
				req[s] = true
			}
		}
	}
	var optional []string
	for _, k := range names {
		if !req[k] {
			optional = append(optional, k)
		}
		if !geminiParam().MatchString(k) && strings.HasSuffix(ptr, "/inputSchema") {
			c.at("gemini-param-name", obj, name, pointerJoin(pointerJoin(ptr, "properties"), k), fmt.Sprintf("parameter %q", k))
		}
	}
	c.optional += len(optional)
	if len(optional) > 0 {
		c.at("openai-strict-all-required", obj, name, pointerJoin(ptr, "required"), "not required: "+strings.Join(quoteAll(optional, 5), ", "))
	}
}

// quoteAll quotes the first n strings and says how many more.
func quoteAll(s []string, n int) []string {
	var out []string
	for i, v := range s {
		if i == n {
			out = append(out, fmt.Sprintf("and %d more", len(s)-n))
			break
		}
		out = append(out, fmt.Sprintf("%q", v))
	}
	return out
}

// short is v as compact JSON, cut to 60 characters.
func short(v any) string {
	s := fmt.Sprint(v)
	if b, err := jsonMarshal(v); err == nil {
		s = string(b)
	}
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
