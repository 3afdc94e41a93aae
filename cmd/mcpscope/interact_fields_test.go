package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestElicitFieldsReadLikeTheForm: the CLI's elicitation prompts read the requested
// schema through package fields, as the TUI's form does: a property whose type comes
// through a $ref, or a "string or null" (anyOf with null), is asked like a string;
// the old reader only knew a "type" written on the property and declined these
// requests. What a flat form cannot ask is still refused, naming the property.
func TestElicitFieldsReadLikeTheForm(t *testing.T) {
	fs, err := schemaFields(json.RawMessage(`{"type":"object","$defs":{"Lang":{"type":"string","enum":["en","fr"]}},
		"properties":{"name":{"anyOf":[{"type":"string"},{"type":"null"}],"title":"Name"},"lang":{"$ref":"#/$defs/Lang","default":"en"},
		"n":{"allOf":[{"type":"integer"}]}},"required":["name"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.Name+":"+f.Type+":"+strings.Join(f.Enum, "|")+":"+string(f.Default)+":"+f.Title)
		if f.Name == "name" && !f.Required {
			t.Errorf("name is required")
		}
	}
	if want := `name:string:::Name lang:string:en|fr:"en": n:integer:::`; strings.Join(got, " ") != want {
		t.Errorf("fields %q, want %q", strings.Join(got, " "), want)
	}
	if _, err := schemaFields(json.RawMessage(`{"properties":{"o":{"type":"object"}}}`)); err == nil || !strings.Contains(err.Error(), `"o"`) {
		t.Errorf("an object property: %v", err)
	}
}
