package form

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// assertValid checks v against schema with the validator directly, not
// through the form, so a form bug cannot hide behind its own validation.
func assertValid(t *testing.T, schema, v []byte) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("file:///test/schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("file:///test/schema.json")
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(v))
	if err != nil {
		t.Fatalf("value is not JSON: %v: %s", err, v)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("value %s does not validate: %v", v, err)
	}
}

// checkFilled asserts the form's value, its validity, and that the form's
// own validation agrees.
func checkFilled(t *testing.T, f *Form, schema []byte, want string) {
	t.Helper()
	got, err := f.Value()
	if err != nil {
		t.Fatalf("Value: %v", err)
	}
	if !sameJSON(t, got, []byte(want)) {
		t.Errorf("value\n got %s\nwant %s\n%s", got, want, ansi.Strip(f.View(80, 60)))
	}
	assertValid(t, schema, got)
	if errs := f.Validate(); len(errs) != 0 {
		t.Errorf("Validate: %v", errs)
	}
}

type everythingTools struct {
	Tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	} `json:"tools"`
}

func loadEverything(t testing.TB) everythingTools {
	var et everythingTools
	if err := json.Unmarshal(readFile(t, "testdata/everything-tools.json"), &et); err != nil {
		t.Fatal(err)
	}
	return et
}

// TestServerEverythingTools fills the form of every tool the reference
// server lists, as a user would.
func TestServerEverythingTools(t *testing.T) {
	fill := map[string]struct {
		keys func(f *Form)
		want string
	}{
		"echo":                  {func(f *Form) { typeText(f, "hello, 世界") }, `{"message":"hello, 世界"}`},
		"get-annotated-message": {func(f *Form) { press(f, "right") }, `{"messageType":"error","includeImage":false}`},
		"get-env":               {nil, `{}`},
		"get-resource-links":    {nil, `{"count":3}`},
		"get-resource-reference": {func(f *Form) { press(f, "right", "down", "ctrl+u"); typeText(f, "7") },
			`{"resourceType":"Blob","resourceId":7}`},
		"get-structured-content": {func(f *Form) { press(f, "right", "right") }, `{"location":"Chicago"}`},
		"get-sum":                {func(f *Form) { typeText(f, "2"); press(f, "tab"); typeText(f, "40.5") }, `{"a":2,"b":40.5}`},
		"get-tiny-image":         {nil, `{}`},
		"gzip-file-as-resource": {func(f *Form) { press(f, "down", "down", "right", "right", "right") }, // resource, none, resourceLink
			`{"name":"README.md.gz","data":"https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md","outputType":"resourceLink"}`},
		"toggle-simulated-logging":       {nil, `{}`},
		"toggle-subscriber-updates":      {nil, `{}`},
		"trigger-long-running-operation": {func(f *Form) { press(f, "down", "backspace"); typeText(f, "3") }, `{"duration":10,"steps":3}`},
		"simulate-research-query":        {func(f *Form) { typeText(f, "python"); press(f, "down", "space") }, `{"topic":"python","ambiguous":true}`},
	}
	et := loadEverything(t)
	if len(et.Tools) != len(fill) {
		t.Errorf("fixture has %d tools, test knows %d", len(et.Tools), len(fill))
	}
	for _, tool := range et.Tools {
		t.Run(tool.Name, func(t *testing.T) {
			c, ok := fill[tool.Name]
			if !ok {
				t.Fatalf("no expectation for %s", tool.Name)
			}
			f := mustNew(t, string(tool.InputSchema))
			if c.keys != nil {
				c.keys(f)
			}
			checkFilled(t, f, tool.InputSchema, c.want)
		})
	}
}

// TestElicitationEverything fills server-everything's elicitation form: every
// field type the 2025 elicitation spec allows.
func TestElicitationEverything(t *testing.T) {
	schema := readFile(t, "testdata/elicitation-everything.json")
	f := mustNew(t, string(schema))

	// Only defaults so far; the required name is missing.
	errs := f.Validate()
	if len(errs) != 1 || errs[0].Path != "/name" {
		t.Fatalf("Validate before filling = %v, want /name required", errs)
	}

	typeText(f, "Ada Lovelace")
	press(f, "down", "space")          // check → true
	press(f, "down", "down")           // firstLine keeps its default; on to email
	typeText(f, "ada@example.com")     //
	press(f, "down")                   // homepage
	typeText(f, "https://ada.example") //
	press(f, "down")                   // birthdate
	typeText(f, "1815-12-10")          //
	press(f, "down", "ctrl+u")         // integer: clear the default 42
	typeText(f, "7")                   //
	press(f, "down", "backspace", "backspace", "backspace", "backspace")
	typeText(f, "2.5")                 // number
	press(f, "down", "right", "right") // Monica → Rachel → Joey
	focusOn(t, f, "/untitledMultipleSelectEnum")
	press(f, "down", "down", "space") // Piano
	press(f, "up", "space")           // Guitar off
	focusOn(t, f, "/titledSingleSelectEnum")
	press(f, "left", "left") // Superman → none → Wonder Woman
	focusOn(t, f, "/titledMultipleSelectEnum")
	press(f, "down", "down", "space") // + Salmon
	focusOn(t, f, "/legacyTitledEnum")
	press(f, "right") // Cats → Dogs

	checkFilled(t, f, schema, `{
		"name":"Ada Lovelace","check":true,"firstLine":"It was a dark and stormy night.",
		"email":"ada@example.com","homepage":"https://ada.example","birthdate":"1815-12-10",
		"integer":7,"number":2.5,"untitledSingleSelectEnum":"Joey",
		"untitledMultipleSelectEnum":["Piano"],"titledSingleSelectEnum":"hero-3",
		"titledMultipleSelectEnum":["fish-1","fish-2"],"legacyTitledEnum":"pet-2"}`)

	view := ansi.Strip(f.View(80, 60))
	for _, want := range []string{"name*", "‹ Wonder Woman ›", "‹ Dogs ›", "[x] Salmon", "[ ] Guitar"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
}

// TestElicitationResearch is the input_required form of
// simulate-research-query: a required oneOf of titled consts.
func TestElicitationResearch(t *testing.T) {
	schema := readFile(t, "testdata/elicitation-research.json")
	f := mustNew(t, string(schema))
	if v, _ := f.Value(); string(v) != `{}` {
		t.Errorf("nothing chosen yet: value %s, want {}", v)
	}
	if errs := f.Validate(); len(errs) != 1 || errs[0].Path != "/interpretation" {
		t.Errorf("Validate = %v, want /interpretation required", errs)
	}
	if v := ansi.Strip(f.View(80, 10)); !strings.Contains(v, "‹ choose ›") || !strings.Contains(v, "✗ required") {
		t.Errorf("view should show the unset choice and its error:\n%s", v)
	}
	typeText(f, "s") // jump to the first choice starting with "s"... none; titles start with "P"/"M"
	press(f, "right")
	checkFilled(t, f, schema, `{"interpretation":"programming"}`)
	typeText(f, "m") // Monty Python
	checkFilled(t, f, schema, `{"interpretation":"comedy"}`)
	if v := ansi.Strip(f.View(80, 10)); strings.Contains(v, "✗") {
		t.Errorf("error should be gone once fixed:\n%s", v)
	}
}

type shapeCase struct {
	name   string
	schema string
	keys   func(t *testing.T, f *Form)
	want   string
}

var shapeCases = []shapeCase{
	{
		name: "string formats",
		schema: `{"type":"object","properties":{
			"day":{"type":"string","format":"date"},
			"at":{"type":"string","format":"date-time"},
			"mail":{"type":"string","format":"email"},
			"site":{"type":"string","format":"uri"},
			"plain":{"type":"string","minLength":2}},
			"required":["day","mail"]}`,
		keys: func(t *testing.T, f *Form) {
			typeText(f, "2026-01-31")
			press(f, "tab")
			typeText(f, "2026-01-31T12:00:00Z")
			press(f, "tab")
			typeText(f, "me@example.org")
			press(f, "tab")
			typeText(f, "https://example.org/x?y=1")
		},
		want: `{"day":"2026-01-31","at":"2026-01-31T12:00:00Z","mail":"me@example.org","site":"https://example.org/x?y=1"}`,
	},
	{
		name:   "number and integer",
		schema: `{"type":"object","properties":{"n":{"type":"number","minimum":-10},"i":{"type":"integer","maximum":100},"big":{"type":"integer"}},"required":["n","i"]}`,
		keys: func(t *testing.T, f *Form) {
			typeText(f, "-2.5e1")
			press(f, "home", "delete", "end", "backspace", "backspace") // "2.5"
			typeText(f, "0")
			press(f, "down")
			typeText(f, "42")
			press(f, "down")
			typeText(f, "123456789012345678901234567890")
		},
		want: `{"n":2.50,"i":42,"big":123456789012345678901234567890}`,
	},
	{
		name:   "boolean",
		schema: `{"type":"object","properties":{"req":{"type":"boolean"},"opt":{"type":"boolean"},"def":{"type":"boolean","default":true},"left":{"type":"boolean"}},"required":["req"]}`,
		keys: func(t *testing.T, f *Form) {
			press(f, "space")                  // req false → true
			press(f, "down", "space", "space") // opt unset → true → false
			press(f, "down", "space")          // def true → false
			press(f, "down", "space", "backspace")
		},
		want: `{"req":true,"opt":false,"def":false}`,
	},
	{
		name: "enum select",
		schema: `{"type":"object","properties":{
			"color":{"type":"string","enum":["red","green","blue"]},
			"size":{"enum":[1,2,3],"default":2},
			"pet":{"type":"string","enum":["c","d"],"enumNames":["Cat","Dog"]}},"required":["color"]}`,
		keys: func(t *testing.T, f *Form) {
			press(f, "right", "right", "right", "left") // red green blue | green
			typeText(f, "b")                            // jump to blue
			press(f, "down", "left")                    // size 2 → 1
			press(f, "down", "right", "right")          // none → Cat → Dog
		},
		want: `{"color":"blue","size":1,"pet":"d"}`,
	},
	{
		name: "oneOf const titles",
		schema: `{"type":"object","properties":{"level":{"type":"string","oneOf":[
			{"const":"lo","title":"Low"},{"const":"mid","title":"Medium"},{"const":"hi","title":"High"}]},
			"mode":{"anyOf":[{"const":1,"title":"One"},{"const":2,"title":"Two"}],"default":2}}}`,
		keys: func(t *testing.T, f *Form) {
			press(f, "right", "right") // Low, Medium
		},
		want: `{"level":"mid","mode":2}`,
	},
	{
		name:   "array of strings: add, remove, reorder",
		schema: `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"},"minItems":1}},"required":["tags"]}`,
		keys: func(t *testing.T, f *Form) {
			press(f, "ctrl+n")
			typeText(f, "alpha")
			press(f, "ctrl+n")
			typeText(f, "beta")
			press(f, "ctrl+n")
			typeText(f, "gamma")
			press(f, "alt+up", "alt+up") // gamma to the top
			press(f, "down")             // alpha
			press(f, "ctrl+d")           // remove alpha, focus beta
			typeText(f, "!")
			if got := f.Focused(); got != "/tags/1" {
				t.Errorf("focus after remove = %q, want /tags/1", got)
			}
		},
		want: `{"tags":["gamma","beta!"]}`,
	},
	{
		name: "array of enums is a multi-select",
		schema: `{"type":"object","properties":{"days":{"type":"array","uniqueItems":true,
			"items":{"type":"string","enum":["mon","tue","wed","thu","fri"]}}}}`,
		keys: func(t *testing.T, f *Form) {
			press(f, "down", "down", "down", "space") // wed
			press(f, "up", "up", "space")             // mon
			press(f, "down", "space", "space")        // tue on, off
		},
		want: `{"days":["wed","mon"]}`,
	},
	{
		name: "array of objects as repeated sections",
		schema: `{"type":"object","properties":{"lines":{"type":"array","items":{"type":"object",
			"properties":{"sku":{"type":"string"},"qty":{"type":"integer","minimum":1,"default":1},"gift":{"type":"boolean"}},
			"required":["sku","qty"]}}},"required":["lines"]}`,
		keys: func(t *testing.T, f *Form) {
			press(f, "ctrl+n") // focus /lines/0/sku
			typeText(f, "A-1")
			press(f, "down", "ctrl+u")
			typeText(f, "3")
			press(f, "ctrl+n") // new item after the first
			typeText(f, "B-2")
			press(f, "down", "down", "space") // gift
			press(f, "alt+up")                // B-2 first
			press(f, "ctrl+n")                // an item after B-2 ...
			press(f, "ctrl+d")                // ... removed again
		},
		want: `{"lines":[{"sku":"B-2","qty":1,"gift":true},{"sku":"A-1","qty":3}]}`,
	},
	{
		name: "nested objects",
		schema: `{"type":"object","properties":{
			"user":{"type":"object","properties":{"name":{"type":"string"},
				"address":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string","pattern":"^[0-9]{5}$"}},"required":["city"]}},
				"required":["name","address"]},
			"opts":{"type":"object","properties":{"verbose":{"type":"boolean"}}}},
			"required":["user"]}`,
		keys: func(t *testing.T, f *Form) {
			focusOn(t, f, "/user/name")
			typeText(f, "Grace")
			focusOn(t, f, "/user/address/city")
			typeText(f, "Arlington")
			press(f, "down")
			typeText(f, "22201")
		},
		want: `{"user":{"name":"Grace","address":{"city":"Arlington","zip":"22201"}}}`,
	},
	{
		name: "oneOf object variants",
		schema: `{"type":"object","properties":{"shape":{"oneOf":[
			{"title":"Circle","type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind","r"]},
			{"title":"Rect","type":"object","properties":{"kind":{"const":"rect"},"w":{"type":"number"},"h":{"type":"number"}},"required":["kind","w","h"]}]}},
			"required":["shape"]}`,
		keys: func(t *testing.T, f *Form) {
			press(f, "down") // r of Circle
			typeText(f, "9")
			press(f, "up", "right") // Rect
			press(f, "down")
			if got := f.Focused(); got != "/shape/w" {
				t.Errorf("focus = %q, want /shape/w (constants are skipped)", got)
			}
			typeText(f, "2")
			press(f, "down")
			typeText(f, "3")
		},
		want: `{"shape":{"kind":"rect","w":2,"h":3}}`,
	},
	{
		name: "anyOf of types and discriminated $refs",
		schema: `{"type":"object","$defs":{
				"cat":{"type":"object","properties":{"type":{"const":"cat"},"lives":{"type":"integer"}},"required":["type"]},
				"dog":{"type":"object","properties":{"type":{"const":"dog"},"good":{"type":"boolean"}},"required":["type","good"]}},
			"properties":{
				"id":{"anyOf":[{"type":"string"},{"type":"integer"}]},
				"pet":{"anyOf":[{"$ref":"#/$defs/cat"},{"$ref":"#/$defs/dog"}]},
				"multi":{"type":["string","integer"]}}}`,
		keys: func(t *testing.T, f *Form) {
			press(f, "right", "down") // id: integer variant
			typeText(f, "12")
			focusOn(t, f, "/pet")
			press(f, "right", "down", "space") // dog, good
			focusOn(t, f, "/multi")
			press(f, "down")
			typeText(f, "x")
			if !strings.Contains(ansi.Strip(f.View(80, 30)), "‹ type: dog ›") {
				t.Errorf("variant should be named by its discriminator:\n%s", ansi.Strip(f.View(80, 30)))
			}
		},
		want: `{"id":12,"pet":{"type":"dog","good":true},"multi":"x"}`,
	},
	{
		name: "nullable fields",
		schema: `{"type":"object","properties":{
			"note":{"type":["string","null"]},
			"limit":{"anyOf":[{"type":"integer"},{"type":"null"}],"default":null},
			"when":{"oneOf":[{"type":"null"},{"type":"string","format":"date"}]},
			"cfg":{"type":["object","null"],"properties":{"x":{"type":"integer"}}},
			"kept":{"type":["string","null"]}}}`,
		keys: func(t *testing.T, f *Form) {
			press(f, "ctrl+t") // note → null
			press(f, "down")   // limit is null by default; typing brings it back
			typeText(f, "5")
			press(f, "down")
			typeText(f, "2026-02-03")
			press(f, "ctrl+t", "ctrl+t") // null and back, value kept
			focusOn(t, f, "/cfg/x")
			typeText(f, "1")
			press(f, "ctrl+t") // the nearest nullable is cfg
			if got := f.Focused(); got != "/cfg" {
				t.Errorf("focus after nulling a section = %q, want /cfg", got)
			}
			focusOn(t, f, "/kept")
			typeText(f, "k")
		},
		want: `{"note":null,"limit":5,"when":"2026-02-03","cfg":null,"kept":"k"}`,
	},
	{
		name: "$ref, $defs and definitions",
		schema: `{"type":"object",
			"$defs":{"addr":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},
			"definitions":{"port":{"type":"integer","minimum":1,"maximum":65535,"default":8080}},
			"properties":{"home":{"$ref":"#/$defs/addr"},"work":{"$ref":"#/$defs/addr","description":"optional"},
				"port":{"$ref":"#/definitions/port"}},
			"required":["home"]}`,
		keys: func(t *testing.T, f *Form) {
			focusOn(t, f, "/home/city")
			typeText(f, "Paris")
		},
		want: `{"home":{"city":"Paris"},"port":8080}`,
	},
	{
		name: "recursive $ref",
		schema: `{"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},
				"children":{"type":"array","items":{"$ref":"#/$defs/node"}},
				"parent":{"$ref":"#/$defs/node"}},"required":["name"]}},
			"$ref":"#/$defs/node"}`,
		keys: func(t *testing.T, f *Form) {
			typeText(f, "root")
			press(f, "down", "ctrl+n") // a child, focus on its name
			typeText(f, "kid")
			press(f, "down", "ctrl+n") // a grandchild
			typeText(f, "grandkid")
			focusOn(t, f, "/parent")
			typeText(f, `{"name":"up"}`)
		},
		want: `{"name":"root","children":[{"name":"kid","children":[{"name":"grandkid"}]}],"parent":{"name":"up"}}`,
	},
	{
		name: "defaults pre-filled",
		schema: `{"type":"object","properties":{
			"s":{"type":"string","default":"x"},"n":{"type":"number","default":0.5},
			"b":{"type":"boolean","default":false},"e":{"enum":["a","b"],"default":"b"},
			"arr":{"type":"array","items":{"type":"integer"},"default":[1,2]},
			"empty":{"type":"string","default":""},
			"obj":{"type":"object","properties":{"k":{"type":"string","default":"v"}}},
			"nodef":{"type":"string"}}}`,
		want: `{"s":"x","n":0.5,"b":false,"e":"b","arr":[1,2],"empty":"","obj":{"k":"v"}}`,
	},
	{
		name: "JSON fallback for what a form cannot express",
		schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{
			"meta":{"type":"object","additionalProperties":{"type":"string"}},
			"pair":{"type":"array","items":[{"type":"string"},{"type":"number"}]},
			"tuple":{"type":"array","prefixItems":[{"type":"string"}]},
			"anything":{}}}`,
		keys: func(t *testing.T, f *Form) {
			typeText(f, `{"a":"b"}`)
			press(f, "down")
			typeText(f, `["x",1]`)
			focusOn(t, f, "/anything")
			typeText(f, `[true,null]`)
		},
		want: `{"meta":{"a":"b"},"pair":["x",1],"anything":[true,null]}`,
	},
	{
		name: "allOf merged",
		schema: `{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},
			{"properties":{"b":{"type":"integer","default":2},"a":{"minLength":1}}}]}`,
		keys: func(t *testing.T, f *Form) {
			typeText(f, "x")
		},
		want: `{"a":"x","b":2}`,
	},
	{
		name: "draft-04 schema",
		schema: `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object",
			"properties":{"n":{"type":"number","minimum":0,"exclusiveMinimum":true}},"required":["n"]}`,
		keys: func(t *testing.T, f *Form) {
			typeText(f, "0")
			if errs := f.Validate(); len(errs) != 1 || errs[0].Path != "/n" {
				t.Errorf("0 is not > 0: Validate = %v", errs)
			}
			press(f, "backspace")
			typeText(f, "0.1")
		},
		want: `{"n":0.1}`,
	},
	{
		name:   "non-object root",
		schema: `{"type":"array","items":{"type":"integer"}}`,
		keys: func(t *testing.T, f *Form) {
			press(f, "ctrl+n")
			typeText(f, "1")
			press(f, "ctrl+n")
			typeText(f, "2")
		},
		want: `[1,2]`,
	},
	{
		name: "FastMCP / pydantic arguments",
		schema: `{"properties":{"query":{"title":"Query","type":"string"},
			"limit":{"anyOf":[{"type":"integer"},{"type":"null"}],"default":null,"title":"Limit"},
			"color":{"$ref":"#/$defs/Color","default":"red"},
			"filters":{"anyOf":[{"items":{"$ref":"#/$defs/Filter"},"type":"array"},{"type":"null"}],"default":null,"title":"Filters"},
			"mode":{"allOf":[{"$ref":"#/$defs/Mode"}],"description":"pydantic v1 style"},
			"single":{"anyOf":[{"$ref":"#/$defs/Mode"}],"default":"fast"}},
			"required":["query"],"title":"searchArguments","type":"object",
			"$defs":{"Color":{"enum":["red","green"],"title":"Color","type":"string"},
				"Filter":{"properties":{"field":{"title":"Field","type":"string"},"value":{"title":"Value","type":"string"}},"required":["field","value"],"title":"Filter","type":"object"},
				"Mode":{"enum":["fast","slow"],"type":"string"}}}`,
		keys: func(t *testing.T, f *Form) {
			typeText(f, "cats")
			press(f, "down")
			typeText(f, "5") // limit was null by default
			press(f, "down", "right")
			press(f, "down", "ctrl+n") // filters: null → one item
			typeText(f, "a")
			press(f, "down")
			typeText(f, "b")
			focusOn(t, f, "/single")
			for _, l := range strings.Split(ansi.Strip(f.View(80, 30)), "\n") {
				if strings.Contains(l, "single") && (strings.Contains(l, "null") || !strings.Contains(l, "default fast")) {
					t.Errorf("a one-variant anyOf is not nullable, and shows its default: %q", l)
				}
			}
			press(f, "ctrl+t") // not nullable: nothing happens
		},
		want: `{"query":"cats","limit":5,"color":"green","filters":[{"field":"a","value":"b"}],"single":"fast"}`,
	},
	{
		name:   "unicode text editing",
		schema: `{"type":"object","properties":{"s":{"type":"string"}}}`,
		keys: func(t *testing.T, f *Form) {
			typeText(f, "héllo 👍🏽 世界")
			press(f, "left", "left", "backspace") // removes the space before 世界
			press(f, "backspace")                 // removes the whole 👍🏽
			press(f, "home", "delete")            // removes h
			press(f, "end")
			typeText(f, "!")
		},
		want: `{"s":"éllo 世界!"}`,
	},
}

func TestShapes(t *testing.T) {
	for _, c := range shapeCases {
		t.Run(c.name, func(t *testing.T) {
			f := mustNew(t, c.schema)
			if c.keys != nil {
				c.keys(t, f)
			}
			checkFilled(t, f, []byte(c.schema), c.want)
			checkView(t, f, 80, 24)
		})
	}
}

// TestNumbersValidatedAsTyped: a number field holding text is an error in
// the view and in Value, never silently dropped.
func TestNumbersValidatedAsTyped(t *testing.T) {
	f := mustNew(t, `{"type":"object","properties":{"n":{"type":"number"},"i":{"type":"integer"}},"required":["n"]}`)
	typeText(f, "12a")
	press(f, "down")
	typeText(f, "1.5")
	lines := strings.Split(ansi.Strip(f.View(80, 24)), "\n")
	if !strings.Contains(lines[0], "n*") || !strings.Contains(lines[1], "✗ not a number") {
		t.Errorf("the error should sit under its field:\n%s", strings.Join(lines, "\n"))
	}
	if !strings.Contains(strings.Join(lines, "\n"), "✗ not an integer") {
		t.Errorf("1.5 is not an integer:\n%s", strings.Join(lines, "\n"))
	}
	v, err := f.Value()
	if err == nil || !strings.Contains(err.Error(), "/n") {
		t.Errorf("Value error = %v, want one naming /n", err)
	}
	if !sameJSON(t, v, []byte(`{"n":"12a","i":1.5}`)) {
		t.Errorf("best-effort value = %s", v)
	}
	errs := f.Validate()
	if len(errs) != 2 || errs[0].Path != "/n" || errs[1].Path != "/i" {
		t.Errorf("Validate = %v", errs)
	}
	press(f, "up", "backspace")
	if errs := f.Validate(); len(errs) != 1 || errs[0].Path != "/i" {
		t.Errorf("after fixing n: Validate = %v", errs)
	}
}

// TestValidateMapsErrors: schema errors land on their fields, including
// inside arrays and the chosen oneOf variant.
func TestValidateMapsErrors(t *testing.T) {
	schema := `{"type":"object","properties":{
		"mail":{"type":"string","format":"email"},
		"n":{"type":"integer","minimum":1,"maximum":10},
		"tags":{"type":"array","items":{"type":"string","minLength":2},"maxItems":2},
		"shape":{"oneOf":[
			{"title":"Circle","type":"object","properties":{"r":{"type":"number","minimum":0}},"required":["r"]},
			{"title":"Square","type":"object","properties":{"side":{"type":"number","minimum":0}},"required":["side"]}]}},
		"required":["mail","n"],"additionalProperties":false}`
	f := mustNew(t, schema)
	typeText(f, "not-an-email")
	press(f, "down")
	typeText(f, "11")
	press(f, "down", "ctrl+n")
	typeText(f, "x")
	focusOn(t, f, "/shape")
	press(f, "right", "down")
	typeText(f, "-1")
	errs := f.Validate()
	got := map[string]bool{}
	for _, e := range errs {
		got[e.Path] = true
	}
	for _, p := range []string{"/mail", "/n", "/tags/0", "/shape/side"} {
		if !got[p] {
			t.Errorf("no error at %s; got %v", p, errs)
		}
	}
	if len(errs) != 4 {
		t.Errorf("want exactly 4 errors (no noise from the unchosen variant), got %v", errs)
	}
	view := ansi.Strip(f.View(80, 40))
	lines := strings.Split(view, "\n")
	for i, l := range lines {
		if strings.Contains(l, "side") && (i+1 >= len(lines) || !strings.Contains(lines[i+1], "✗")) {
			t.Errorf("error not beside /shape/side:\n%s", view)
		}
	}
	checkView(t, f, 80, 24)

	// Extra keys loaded from history are reported at the top.
	if err := f.SetValue([]byte(`{"mail":"a@b.co","n":2,"zzz":1}`)); err != nil {
		t.Fatal(err)
	}
	errs = f.Validate()
	if len(errs) != 1 || errs[0].Path != "" {
		t.Errorf("Validate = %v, want one error at the root", errs)
	}
	if v := ansi.Strip(f.View(80, 24)); !strings.HasPrefix(v, "✗ ") || !strings.Contains(v, "zzz") {
		t.Errorf("root error should head the form:\n%s", v)
	}
}

// TestExternalRefNeverFetched: a $ref outside the schema becomes a JSON
// field and validation says why it cannot run, without any network access.
func TestExternalRefNeverFetched(t *testing.T) {
	f := mustNew(t, `{"type":"object","properties":{"x":{"$ref":"http://127.0.0.1:1/nope.json"}}}`)
	typeText(f, `{"k":1}`)
	v, err := f.Value()
	if err != nil || !sameJSON(t, v, []byte(`{"x":{"k":1}}`)) {
		t.Errorf("Value = %s, %v", v, err)
	}
	errs := f.Validate()
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "outside the schema") {
		t.Errorf("Validate = %v", errs)
	}
}

// TestSchemaNotJSON is the only error New returns.
func TestSchemaNotJSON(t *testing.T) {
	for _, s := range []string{``, `{`, `{"a":}`, `[] []`} {
		if _, err := New(json.RawMessage(s)); err == nil {
			t.Errorf("New(%q) should fail", s)
		}
	}
	for _, s := range []string{`null`, `true`, `false`, `1`, `"x"`, `[]`, `{"type":7}`, `{"properties":[]}`} {
		f, err := New(json.RawMessage(s))
		if err != nil {
			t.Errorf("New(%q): %v", s, err)
			continue
		}
		checkView(t, f, 80, 24)
		if _, err := f.Value(); err != nil {
			t.Errorf("Value for %q: %v", s, err)
		}
	}
}
