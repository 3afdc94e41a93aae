package check

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/validate"
)

// Each required field left out, each typed field given another type, an enum value
// outside the enum; every case is one the schema refuses, built on arguments the
// schema accepts. A property the schema puts no type on gives no wrong-type case.
func TestCases(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"id":{"type":"integer"},
		"mode":{"type":"string","enum":["fast","full"]},
		"tags":{"type":"array","items":{"type":"string"}},
		"free":{}},
		"required":["id","mode"]}`)
	cases, base, ok, err := Cases(schema)
	if err != nil {
		t.Fatal(err)
	}
	if !ok || string(base) != `{"id":1,"mode":"fast"}` {
		t.Errorf("base %s (valid %v), want {\"id\":1,\"mode\":\"fast\"}", base, ok)
	}
	var got []string
	for _, c := range cases {
		got = append(got, c.What+" "+string(c.Args))
		if v, err := validate.Check(schema, c.Args); err != nil || len(v) == 0 {
			t.Errorf("case %q %s is not refused by the schema", c.What, c.Args)
		}
	}
	want := []string{
		`required "id" left out {"mode":"fast"}`,
		`required "mode" left out {"id":1}`,
		`"id" given a string (it is integer) {"id":"not a number","mode":"fast"}`,
		`"mode" given a number (it is string) {"id":1,"mode":12345}`,
		`"mode" given mcpscope-not-in-enum, outside its enum {"id":1,"mode":"mcpscope-not-in-enum"}`,
		`"tags" given a string (it is array) {"id":1,"mode":"fast","tags":"mcpscope"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("cases:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c, _, _, _ := Cases(json.RawMessage(`{"type":"object"}`)); len(c) != 0 {
		t.Errorf("an empty schema gave cases %v", c)
	}
	if _, _, _, err := Cases(json.RawMessage(`[1]`)); err == nil {
		t.Error("a schema that is not an object gave no error")
	}
}
