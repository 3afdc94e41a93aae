package form

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/fields"
)

// TestFormAndFieldsReadKindsAlike: a schema is read the same way by every front end.
// The form's node for each property must have the kind, the nullability and the
// choices that fields.Top gives the CLI's elicitation prompts and inspect's key=value
// coercion. Both classify through fields.Classify; a builder that decided a kind in
// its own code again (as tui/form's did) fails here on the case it reads otherwise.
func TestFormAndFieldsReadKindsAlike(t *testing.T) {
	props := map[string]string{
		"string":            `{"type":"string"}`,
		"number":            `{"type":"number"}`,
		"integer":           `{"type":"integer"}`,
		"boolean":           `{"type":"boolean"}`,
		"implied string":    `{"maxLength":3}`,
		"implied number":    `{"minimum":0}`,
		"object":            `{"type":"object","properties":{"a":{"type":"string"}}}`,
		"free-form map":     `{"type":"object"}`,
		"closed empty":      `{"type":"object","additionalProperties":false}`,
		"array":             `{"type":"array","items":{"type":"string"}}`,
		"array, no items":   `{"type":"array"}`,
		"multi-select":      `{"type":"array","items":{"enum":["a","b"]}}`,
		"tuple":             `{"type":"array","prefixItems":[{"type":"string"}]}`,
		"tuple items":       `{"type":"array","items":[{"type":"string"}]}`,
		"enum":              `{"enum":["x","y"]}`,
		"enum with null":    `{"type":["string","null"],"enum":["x","y",null]}`,
		"const-oneOf":       `{"type":"string","oneOf":[{"const":"p","title":"P"},{"const":"q"}]}`,
		"const":             `{"const":42}`,
		"$ref":              `{"$ref":"#/$defs/N"}`,
		"allOf":             `{"allOf":[{"$ref":"#/$defs/N"},{"minimum":1}]}`,
		"X or null":         `{"anyOf":[{"type":"boolean"},{"type":"null"}]}`,
		"type list, null":   `{"type":["integer","null"]}`,
		"type beside union": `{"type":"integer","anyOf":[{"minimum":1},{"type":"null"}]}`,
		"several types":     `{"type":["integer","string"]}`,
		"oneOf objects":     `{"oneOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"b":{"type":"number"}}}]}`,
		"only null":         `{"type":"null"}`,
		"union of null":     `{"anyOf":[{"type":"null"}]}`,
		"unknown type":      `{"type":"foo"}`,
		"admits nothing":    `{"not":{}}`,
		"no type":           `{"description":"anything"}`,
		"outside $ref":      `{"$ref":"https://example.com/x"}`,
		"recursive":         `{"$ref":"#/$defs/R"}`,
	}
	var b strings.Builder
	b.WriteString(`{"type":"object","$defs":{"N":{"type":"integer"},"R":{"anyOf":[{"$ref":"#/$defs/R"},{"type":"null"}]}},"properties":{`)
	i := 0
	for name, s := range props {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%q:%s", name, s)
		i++
	}
	b.WriteString("}}")
	schema := json.RawMessage(b.String())

	top, err := fields.Top(schema)
	if err != nil {
		t.Fatal(err)
	}
	f, err := New(schema)
	if err != nil {
		t.Fatal(err)
	}
	if len(top) != len(props) || len(f.root.props) != len(props) {
		t.Fatalf("fields.Top read %d properties, the form %d, of %d", len(top), len(f.root.props), len(props))
	}
	for i, fl := range top {
		n := f.root.props[i]
		if n.key != fl.Name {
			t.Fatalf("property %d: the form has %q, fields.Top %q", i, n.key, fl.Name)
		}
		var choices []string
		for _, o := range n.opts {
			choices = append(choices, fields.CompactText(o.Val))
		}
		if n.k == kConst {
			choices = []string{fields.CompactText(n.cval)}
		}
		form := fmt.Sprintf("%v nullable=%v %v", n.k, n.nullable, choices)
		cli := fmt.Sprintf("%v nullable=%v %v", fl.Kind, fl.Nullable, []string(fl.Enum))
		if form != cli {
			t.Errorf("%s %s: the form reads %s, fields.Top %s", fl.Name, props[fl.Name], form, cli)
		}
	}
	// The table must reach every kind a node can have: a kind left out is a kind
	// whose agreement nobody checks.
	seen := map[kind]bool{}
	for _, n := range f.root.props {
		seen[n.k] = true
	}
	for k := kString; k <= kJSON; k++ {
		if !seen[k] {
			t.Errorf("no property of the table is read as %v", k)
		}
	}
}
