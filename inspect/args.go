package inspect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/fields"
	"github.com/mcpscope/mcpscope/validate"
)

// BuildArgs makes a call's arguments from --args JSON and key=value pairs. A value is
// coerced by the type the tool's input schema gives its key, read by package fields
// as the TUI's form reads it ($ref, allOf, "X or null", an enum's values): numbers,
// booleans, and JSON for objects and arrays; key:=JSON always takes JSON as written.
// Pairs override members of --args.
func BuildArgs(tool client.Tool, argsJSON string, pairs []string) (json.RawMessage, error) {
	args := map[string]json.RawMessage{}
	if strings.TrimSpace(argsJSON) != "" {
		dec := json.NewDecoder(strings.NewReader(argsJSON))
		if err := dec.Decode(&args); err != nil {
			return nil, fmt.Errorf("--args is not a JSON object: %s", jsonErr(argsJSON, err))
		}
		if dec.More() {
			return nil, fmt.Errorf("--args has more after the JSON object; give one object like '{\"a\":1}'")
		}
		if args == nil {
			return nil, fmt.Errorf("--args is null; give a JSON object like '{\"a\":1}'")
		}
	}
	var props map[string]fields.Field
	if len(pairs) > 0 {
		props = map[string]fields.Field{}
		top, _ := fields.Top(tool.InputSchema) // no schema, or a broken one: no types
		for _, f := range top {
			props[f.Name] = f
		}
	}
	for _, pair := range pairs {
		key, value, raw, err := splitPair(pair)
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if raw {
			if !json.Valid([]byte(value)) {
				return nil, fmt.Errorf("%s:= needs JSON, and %q is not valid JSON", key, value)
			}
			v = json.RawMessage(value)
		} else if v, err = coerce(props, key, value); err != nil {
			return nil, err
		}
		args[key] = v
	}
	return json.Marshal(args)
}

func splitPair(pair string) (key, value string, raw bool, err error) {
	i := strings.IndexByte(pair, '=')
	if i <= 0 {
		return "", "", false, fmt.Errorf("argument %q is not key=value (or key:=JSON)", pair)
	}
	key, value = pair[:i], pair[i+1:]
	if strings.HasSuffix(key, ":") {
		key, raw = strings.TrimSuffix(key, ":"), true
	}
	if key == "" {
		return "", "", false, fmt.Errorf("argument %q has an empty key", pair)
	}
	return key, value, raw, nil
}

func coerce(props map[string]fields.Field, key, value string) (json.RawMessage, error) {
	f, declared := props[key]
	typ := f.Type // "integer|null" is a nullable integer there
	switch typ {
	case "number":
		f, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, fmt.Errorf("%s=%q: the tool wants a number", key, value)
		}
		return json.Marshal(f)
	case "integer":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s=%q: the tool wants an integer", key, value)
		}
		return json.Marshal(n)
	case "boolean":
		b, err := strconv.ParseBool(value)
		if err != nil {
			return nil, fmt.Errorf("%s=%q: the tool wants true or false", key, value)
		}
		return json.Marshal(b)
	case "object", "array":
		if !json.Valid([]byte(value)) {
			return nil, fmt.Errorf("%s=%q: the tool wants a JSON %s", key, value, typ)
		}
		return json.RawMessage(value), nil
	case "string":
		return json.Marshal(value)
	}
	if typ == "" && !declared {
		// Not in the schema: a string, unless it is plainly JSON. Servers without
		// properties in their schema (2024-11-05 servers often have none) still get
		// numbers and booleans as such.
		if json.Valid([]byte(value)) && value != "" && !isBareWord(value) {
			return json.RawMessage(value), nil
		}
	}
	return json.Marshal(value)
}

func isBareWord(s string) bool {
	return !(s == "true" || s == "false" || s == "null" || s[0] == '{' || s[0] == '[' || s[0] == '"' || s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))
}

// jsonErr describes a JSON syntax error with its position.
func jsonErr(src string, err error) string {
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Sprintf("%v at byte %d", se, se.Offset)
	}
	if ute, ok := err.(*json.UnmarshalTypeError); ok && ute.Field == "" {
		return fmt.Sprintf("it is a JSON %s", ute.Value)
	}
	return err.Error()
}

// MissingRequired returns the names the tool's input schema lists under its top-level
// "required" that arguments (a JSON object) has no member for, in the schema's order.
// A call without them is refused locally, as a value of the wrong type is, instead of
// being sent for the server to refuse.
func MissingRequired(tool client.Tool, arguments json.RawMessage) []string {
	var schema struct {
		Required []string `json:"required"`
	}
	if json.Unmarshal(tool.InputSchema, &schema) != nil || len(schema.Required) == 0 {
		return nil
	}
	var args map[string]json.RawMessage
	_ = json.Unmarshal(arguments, &args)
	var missing []string
	for _, name := range schema.Required {
		if _, ok := args[name]; !ok {
			missing = append(missing, name)
		}
	}
	return missing
}

// ArgumentViolations checks a call's arguments against the tool's whole input schema,
// as the server's own validation would: a value of the wrong type given in --args
// JSON, an argument the schema forbids (additionalProperties: false), an enum, a
// nested member. key=value coercion and MissingRequired see only the top level and
// the pairs; this sees what is sent. A tool without a schema has nothing to check.
// An error means the schema itself could not be used (it does not compile, or it is
// too costly to check): the call is then not judged here, and the server judges it.
// Formats stay annotations, as 2020-12 has them: a server may take a date this
// validator would flag.
func ArgumentViolations(tool client.Tool, arguments json.RawMessage) ([]validate.Violation, error) {
	if len(bytes.TrimSpace(tool.InputSchema)) == 0 {
		return nil, nil
	}
	return validate.Check(tool.InputSchema, arguments)
}

// ArgumentNames lists the top-level arguments the tool's input schema declares, read
// as the form reads them ($ref, allOf), required ones marked with *.
func ArgumentNames(tool client.Tool) []string {
	top, _ := fields.Top(tool.InputSchema)
	names := make([]string, 0, len(top))
	for _, f := range top {
		n := f.Name
		if f.Required {
			n += "*"
		}
		names = append(names, n)
	}
	return names
}
