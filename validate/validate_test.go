package validate

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestCheck(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"number","minimum":0},"tags":{"type":"array","items":{"type":"string"}},"when":{"type":"string","format":"date"}},"required":["a"]}`)
	cases := []struct {
		value string
		want  []string // path: substring of message
	}{
		{`{"a":1,"tags":["x"]}`, nil},
		{`{}`, []string{"(root): missing property 'a'"}},
		{`{"a":-1}`, []string{"/a: minimum"}},
		{`{"a":"x","tags":[1]}`, []string{"/a: got string, want number", "/tags/0: got number, want string"}},
	}
	for _, tc := range cases {
		got, err := Check(schema, json.RawMessage(tc.value))
		if err != nil {
			t.Fatalf("%s: %v", tc.value, err)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.value, got, tc.want)
			continue
		}
		for i, w := range tc.want {
			path, msg, _ := strings.Cut(w, ": ")
			if !strings.HasPrefix(got[i].String(), path+": ") || !strings.Contains(got[i].Message, msg) {
				t.Errorf("%s: violation %d = %q, want %q", tc.value, i, got[i], w)
			}
		}
	}
}

func TestRemoteRefIsRefused(t *testing.T) {
	_, err := Check(json.RawMessage(`{"$ref":"https://example.com/s.json"}`), json.RawMessage(`1`))
	if err == nil || !strings.Contains(err.Error(), "self-contained") {
		t.Fatalf("err = %v", err)
	}
}

func TestLocalRefsAndOlderDrafts(t *testing.T) {
	schema := json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"n":{"type":"integer"}},"properties":{"x":{"$ref":"#/definitions/n"}}}`)
	got, err := Check(schema, json.RawMessage(`{"x":1.5}`))
	if err != nil || len(got) != 1 || got[0].Path != "/x" {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestBadSchema(t *testing.T) {
	if _, err := Check(json.RawMessage(`{"type":"objekt"}`), json.RawMessage(`{}`)); err == nil {
		t.Error("an invalid schema compiled")
	}
	if _, err := Check(json.RawMessage(`not json`), json.RawMessage(`{}`)); err == nil {
		t.Error("non-JSON schema accepted")
	}
}

// nestedAllOf doubles the validator's work per level: d0 is allOf [d1, d1], and so on.
func nestedAllOf(levels int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	for i := range levels {
		fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `"d%d":{"type":"object"}}}`, levels)
	return json.RawMessage(b.String())
}

// Issue 14 item 5: a hostile output schema is not validated (it took 8.9 s at 22
// levels, doubling per level); the outcome says so, and the validator never ran.
func TestHostileSchemaIsNotValidated(t *testing.T) {
	before := Runs()
	_, err := Check(nestedAllOf(22), json.RawMessage(`{"a":1}`))
	if !errors.Is(err, ErrTooCostly) || !strings.Contains(err.Error(), "not validated: too costly") {
		t.Fatalf("err = %v, want ErrTooCostly", err)
	}
	if Runs() != before {
		t.Error("the validator ran on a schema past the budget")
	}
	// A few levels are cheap, and checked for real.
	got, err := Check(nestedAllOf(4), json.RawMessage(`[]`))
	if err != nil || len(got) == 0 {
		t.Fatalf("4 levels: %v, %v; want a type violation", got, err)
	}
}

func TestCostCountsTheInstance(t *testing.T) {
	s, err := Compile(json.RawMessage(`{"type":"array","items":{"type":"object","properties":{"x":{"type":"integer"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var items []string
	for range 1000 {
		items = append(items, `{"x":1}`)
	}
	inst, _ := jsonschema.UnmarshalJSON(strings.NewReader("[" + strings.Join(items, ",") + "]"))
	n, ok := Cost(s.Compiled(), inst, DefaultBudget)
	if !ok || n != 1+1000*2 {
		t.Errorf("cost = %d, %v; want 2001 within budget", n, ok)
	}
	if _, ok := Cost(s.Compiled(), inst, 100); ok {
		t.Error("a budget of 100 was not exceeded")
	}
}

func TestHugeSchemaIsNotCompiled(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range MaxSchemaObjects + 1 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"p%d":{}`, i)
	}
	b.WriteString(`}}`)
	_, err := Check(json.RawMessage(b.String()), json.RawMessage(`{}`))
	if !errors.Is(err, ErrTooCostly) {
		t.Fatalf("err = %v, want ErrTooCostly", err)
	}
}
