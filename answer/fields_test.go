package answer

import (
	"context"

	"encoding/json"
	"github.com/mcpscope/mcpscope/client"
	"strings"
	"testing"
)

// TestElicitFieldsReadLikeTheForm: the CLI's elicitation prompts read the requested
// schema through package fields, as the TUI's form does: a property whose type comes
// through a $ref, or a "string or null" (anyOf with null), is asked like a string;
// the old reader only knew a "type" written on the property and declined these
// requests. What a flat form cannot ask is still refused, naming the property.
func TestElicitFieldsReadLikeTheForm(t *testing.T) {
	fs, err := Fields(json.RawMessage(`{"type":"object","$defs":{"Lang":{"type":"string","enum":["en","fr"]}},
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
	if _, err := Fields(json.RawMessage(`{"properties":{"o":{"type":"object"}}}`)); err == nil || !strings.Contains(err.Error(), `"o"`) {
		t.Errorf("an object property: %v", err)
	}
}

// TestTerminalAsksEachFieldUntilItIsValid: on a terminal each field is asked in turn;
// enter takes the default, a required field without one is asked again, a value of
// the wrong type or outside the choices is said and asked again, and what the server
// sent is printed safe (an escape in a title never reaches the terminal).
func TestTerminalAsksEachFieldUntilItIsValid(t *testing.T) {
	var out strings.Builder
	a, err := New(Options{Terminal: true, In: strings.NewReader("\n\x32x\n2\nfr\n\nde\nen\n"), Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	var opts client.Options
	a.Apply(&opts)
	if opts.Elicit == nil || opts.Sample != nil || opts.Roots != nil {
		t.Fatalf("a terminal declares elicitation alone: elicit %v, sample %v, roots %v", opts.Elicit != nil, opts.Sample != nil, opts.Roots)
	}
	r, err := opts.Elicit(context.Background(), client.ElicitRequest{Message: "Who\x1b[31m?",
		Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","title":"N\u001b]0;x\u0007"},
			"lang":{"type":"string","enum":["en","fr"],"default":"en"},"again":{"type":"string","enum":["en","de"]}},"required":["n","again"]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Action != "accept" || string(r.Content) != `{"again":"de","lang":"fr","n":2}` {
		t.Errorf("answer %s %s", r.Action, r.Content)
	}
	for _, want := range []string{"(required)", `"2x" is not an integer`, "lang <en|fr> [\"en\"]", "again * <en|de>"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the terminal does not say %q:\n%s", want, out.String())
		}
	}
	if strings.ContainsAny(out.String(), "\x1b\x07") {
		t.Errorf("a control character reached the terminal: %q", out.String())
	}
}

// TestElicitAnswersFillDefaultsOrCancel: --elicit accept with --elicit-answers sends
// the given values with the schema's defaults for the rest, and cancels (saying which)
// when a required field has neither; answers alone imply accept.
func TestElicitAnswersFillDefaultsOrCancel(t *testing.T) {
	var out strings.Builder
	a, err := New(Options{Answers: []byte(`{"n":3}`), Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	var opts client.Options
	a.Apply(&opts)
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"lang":{"type":"string","default":"en"}},"required":["n"]}`)
	r, _ := opts.Elicit(context.Background(), client.ElicitRequest{Message: "m", Schema: schema})
	if r.Action != "accept" || string(r.Content) != `{"lang":"en","n":3}` {
		t.Errorf("answer %s %s", r.Action, r.Content)
	}
	a, _ = New(Options{Elicit: "accept", Answers: []byte(`{}`), Out: &out})
	a.Apply(&opts)
	if r, _ := opts.Elicit(context.Background(), client.ElicitRequest{Message: "m", Schema: schema}); r.Action != "cancel" || !strings.Contains(out.String(), "lacks the required field n") {
		t.Errorf("answer %s; said %q", r.Action, out.String())
	}
	for _, bad := range []Options{{Elicit: "maybe"}, {Elicit: "decline", Answers: []byte(`{}`)}, {Answers: []byte(`[1]`)}, {Answers: []byte{}}} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%+v) took it", bad)
		}
	}
}
