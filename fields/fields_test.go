package fields

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTop(t *testing.T) {
	for _, c := range []struct{ name, schema, want string }{
		{"plain types in order", `{"properties":{"z":{"type":"string"},"a":{"type":"integer"}}}`, "z:string a:integer"},
		{"$ref and allOf", `{"$defs":{"N":{"type":"number"}},"properties":{"n":{"$ref":"#/$defs/N"},"m":{"allOf":[{"$ref":"#/$defs/N"},{"minimum":1}]}}}`, "n:number m:number"},
		{"X or null", `{"properties":{"a":{"anyOf":[{"type":"boolean"},{"type":"null"}]},"b":{"type":["integer","null"]}}}`, "a:boolean? b:integer?"},
		{"enum and const-oneOf", `{"properties":{"e":{"enum":["x","y"]},"o":{"type":"string","oneOf":[{"const":"p"},{"const":"q"}]}}}`, "e:string[x|y] o:string[p|q]"},
		{"multi-select", `{"properties":{"m":{"type":"array","items":{"enum":["a","b"]}}}}`, "m:array[a|b]"},
		{"several types: none", `{"properties":{"u":{"type":["integer","string"]}}}`, "u:"},
		{"implied type", `{"properties":{"s":{"maxLength":3}}}`, "s:string"},
		{"keywords beside a union apply to its variant", `{"properties":{"n":{"type":"integer","anyOf":[{"minimum":1},{"type":"null"}]}}}`, "n:integer?"},
		{"a $ref back to itself ends", `{"$defs":{"R":{"anyOf":[{"$ref":"#/$defs/R"},{"type":"null"}]}},"properties":{"r":{"$ref":"#/$defs/R"}}}`, "r:?"},
		{"allOf at the root", `{"allOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"b":{"type":"integer"}}}]}`, "a:string b:integer"},
	} {
		top, err := Top(json.RawMessage(c.schema))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var got []string
		for _, f := range top {
			s := f.Name + ":" + f.Type
			if f.Nullable {
				s += "?"
			}
			if len(f.Enum) > 0 {
				s += "[" + strings.Join(f.Enum, "|") + "]"
			}
			got = append(got, s)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: %q, want %q", c.name, strings.Join(got, " "), c.want)
		}
	}
	if _, err := Top(json.RawMessage(`[1]`)); err == nil {
		t.Errorf("an array schema was read")
	}
	top, err := Top(json.RawMessage(`{"properties":{"r":{"$ref":"https://example.com/x"}}}`))
	if err != nil || len(top) != 1 || top[0].Err == nil {
		t.Errorf("a $ref outside the schema: %+v, %v", top, err)
	}
}
