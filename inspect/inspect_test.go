package inspect

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
)

func tool(schema string) client.Tool {
	return client.Tool{Name: "t", InputSchema: json.RawMessage(schema)}
}

func TestBuildArgsCoercesBySchema(t *testing.T) {
	tl := tool(`{"type":"object","properties":{"n":{"type":"number"},"i":{"type":"integer"},"b":{"type":"boolean"},"s":{"type":"string"},"o":{"type":"object"},"a":{"type":"array"},"u":{"type":["integer","null"]}}}`)
	cases := []struct {
		args    string
		pairs   []string
		want    string
		wantErr string
	}{
		{"", []string{"n=1.5", "i=3", "b=true", "s=42", `o={"k":1}`, `a=[1,2]`, "u=7"}, `{"a":[1,2],"b":true,"i":3,"n":1.5,"o":{"k":1},"s":"42","u":7}`, ""},
		{`{"s":"x"}`, []string{"s=y"}, `{"s":"y"}`, ""},                           // pairs override --args
		{"", []string{`s:=123`}, `{"s":123}`, ""},                                 // := takes JSON as written
		{"", []string{"extra=5", "word=hello"}, `{"extra":5,"word":"hello"}`, ""}, // not in the schema
		{"", []string{"i=1.5"}, "", "wants an integer"},
		{"", []string{"b=yes"}, "", "wants true or false"},
		{"", []string{"o=nope"}, "", "wants a JSON object"},
		{"", []string{"novalue"}, "", "is not key=value"},
		{"[1]", nil, "", "--args is not a JSON object"},
		{"{", nil, "", "--args is not a JSON object"},
		{"{} {}", nil, "", "more after the JSON object"},
	}
	for _, c := range cases {
		got, err := BuildArgs(tl, c.args, c.pairs)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%q %v: err %v, want %q", c.args, c.pairs, err, c.wantErr)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("%q %v: got %s, %v; want %s", c.args, c.pairs, got, err, c.want)
		}
	}
}

func TestTableShowsSetAndDefaultHints(t *testing.T) {
	tools := []client.Tool{
		{Name: "ro", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`),
			Annotations: client.Annotations{Present: true, ReadOnly: client.Hint{Set: true, Value: true}, Destructive: client.Hint{Value: true}, OpenWorld: client.Hint{Set: true, Value: false}}},
	}
	var b bytes.Buffer
	if err := Write(&b, FormatTable, client.Info{Name: "s", Version: "1", ProtocolVersion: "2025-11-25", Era: "legacy", Transport: "stdio", Capabilities: json.RawMessage(`{"tools":{"listChanged":true}}`)}, &client.ToolList{Tools: tools}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"ro    yes        (yes)        (no)        no          q*: string", "tools(listChanged)", "1 tool (hints"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// TestBuildArgsReadsTheSchemaAsTheFormDoes: key=value is coerced by the type the
// schema gives the property as the TUI's form reads it (package fields: $ref, allOf,
// an enum's values), not only by a "type" written on the property itself: n=5 for a
// property that is a $ref to an integer went out as the string "5".
func TestBuildArgsReadsTheSchemaAsTheFormDoes(t *testing.T) {
	tl := tool(`{"type":"object","$defs":{"N":{"type":"integer"}},"properties":{
		"n":{"$ref":"#/$defs/N"},
		"f":{"allOf":[{"type":"number"},{"minimum":0}]},
		"b":{"anyOf":[{"type":"boolean"},{"type":"null"}]}}}`)
	got, err := BuildArgs(tl, "", []string{"n=5", "f=1.5", "b=true"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"b":true,"f":1.5,"n":5}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if _, err := BuildArgs(tl, "", []string{"n=five"}); err == nil || !strings.Contains(err.Error(), "integer") {
		t.Errorf("n=five for an integer: %v", err)
	}
}

// TestBuildArgsReadsTheTypeBesideAUnion: "an integer, at least 1, or null" written as
// {"type":"integer","anyOf":[{"minimum":1},{"type":"null"}]} is an integer for the
// form (the keywords beside a union apply to its variant); key=value read the variant
// alone, guessed a number from its minimum, and sent n=1.5 to a tool that takes
// integers.
func TestBuildArgsReadsTheTypeBesideAUnion(t *testing.T) {
	tl := tool(`{"type":"object","properties":{"n":{"type":"integer","anyOf":[{"minimum":1},{"type":"null"}]}}}`)
	if got, err := BuildArgs(tl, "", []string{"n=1.5"}); err == nil || !strings.Contains(err.Error(), "integer") {
		t.Errorf("n=1.5 for an integer or null: %s, %v", got, err)
	}
	if got, err := BuildArgs(tl, "", []string{"n=3"}); err != nil || string(got) != `{"n":3}` {
		t.Errorf("n=3: %s, %v", got, err)
	}
}
