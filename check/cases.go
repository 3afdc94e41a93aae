package check

import (
	"encoding/json"
	"fmt"

	"github.com/mcpscope/mcpscope/fields"
	"github.com/mcpscope/mcpscope/validate"
)

// Case is one negative input: arguments a tool's input schema refuses.
type Case struct {
	What string          // "required \"id\" left out", "\"id\" given a string"…
	Args json.RawMessage // the arguments sent
}

// maxCases bounds the cases of one tool: a schema with hundreds of properties must
// not become hundreds of calls.
const maxCases = 40

// Cases builds the negative cases of an input schema: each required field left out,
// each typed field given a value of another type, each enum given a value outside
// it. The other fields hold a plausible valid value (the default, the first choice,
// a value of the type), so that each case breaks one rule. A case the schema would
// accept after all (a property with no type, a union) is dropped: validate.Check
// confirms every case is invalid. base is the plausible arguments themselves, and
// baseOK whether the schema accepts them.
func Cases(schema json.RawMessage) (cases []Case, base json.RawMessage, baseOK bool, err error) {
	fs, err := fields.Top(schema)
	if err != nil {
		return nil, nil, false, err
	}
	vals := map[string]any{}
	var order []string
	for _, f := range fs {
		if f.Err != nil {
			continue
		}
		if v, ok := plausible(f); ok && f.Required {
			vals[f.Name] = v
			order = append(order, f.Name)
		}
	}
	encode := func(m map[string]any) json.RawMessage {
		b, _ := json.Marshal(m)
		return b
	}
	with := func(name string, v any) map[string]any {
		m := map[string]any{}
		for k, x := range vals {
			m[k] = x
		}
		m[name] = v
		return m
	}
	base = encode(vals)
	v, verr := validate.Check(schema, base)
	baseOK = verr == nil && len(v) == 0
	add := func(what string, m map[string]any) {
		if len(cases) >= maxCases {
			return
		}
		args := encode(m)
		if v, err := validate.Check(schema, args); err != nil || len(v) == 0 {
			return // the schema accepts it (or cannot say): not a negative case
		}
		cases = append(cases, Case{What: what, Args: args})
	}
	for _, name := range order {
		m := with(name, nil)
		delete(m, name)
		add(fmt.Sprintf("required %q left out", name), m)
	}
	for _, f := range fs {
		if f.Err != nil {
			continue
		}
		if w, kind, ok := wrongType(f.Type); ok {
			add(fmt.Sprintf("%q given %s (it is %s)", f.Name, kind, f.Type), with(f.Name, w))
		}
		if len(f.Enum) > 0 && (f.Kind == fields.KindEnum) {
			var outside any = "mcpscope-not-in-enum"
			if f.Type == "integer" || f.Type == "number" {
				outside = 987654321
			}
			add(fmt.Sprintf("%q given %v, outside its enum", f.Name, outside), with(f.Name, outside))
		}
	}
	return cases, base, baseOK, nil
}

// plausible is a valid-looking value of a field: its default, its first choice, or
// a value of its type.
func plausible(f fields.Field) (any, bool) {
	if f.Default != nil {
		var v any
		if json.Unmarshal(f.Default, &v) == nil {
			return v, true
		}
	}
	if len(f.Enum) > 0 {
		if f.Type == "string" || f.Type == "" {
			return f.Enum[0], true
		}
		var v any
		if json.Unmarshal([]byte(f.Enum[0]), &v) == nil {
			return v, true
		}
	}
	switch f.Type {
	case "string":
		return "mcpscope", true
	case "integer", "number":
		return 1, true
	case "boolean":
		return true, true
	case "array":
		return []any{}, true
	case "object":
		return map[string]any{}, true
	}
	return nil, false
}

// wrongType is a value that is not of type t, and what it is.
func wrongType(t string) (any, string, bool) {
	switch t {
	case "string":
		return 12345, "a number", true
	case "integer", "number":
		return "not a number", "a string", true
	case "boolean":
		return "yes", "a string", true
	case "array", "object":
		return "mcpscope", "a string", true
	}
	return nil, "", false
}
