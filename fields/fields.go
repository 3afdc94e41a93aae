package fields

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Field is one top-level property of an object schema, read as the form reads it:
// $ref followed, allOf folded, "X or null" (a union with null, or a type list)
// taken as a nullable X.
type Field struct {
	Name        string
	Kind        Kind   // what the TUI's form makes of the property (Classify); KindJSON when Err
	Type        string // string, number, integer, boolean, array, object; "" when the schema gives none or a union of several
	Title       string
	Description string
	Default     json.RawMessage // compact JSON; nil when there is none
	Enum        []string        // the choices (of an array: of its items), a string as itself, anything else as compact JSON
	Required    bool
	Nullable    bool
	Err         error // the property could not be resolved (a $ref outside the schema, recursion, too deep)
}

// Top reads the top-level properties of an object schema, in the order the schema
// lists them. It is what a flat form asks (the CLI's elicitation prompts) and what
// key=value arguments are coerced by (inspect).
func Top(schema json.RawMessage) ([]Field, error) {
	root, err := Parse(schema)
	if err != nil {
		return nil, err
	}
	if _, ok := root.(*Map); !ok {
		return nil, fmt.Errorf("%w (it is %s)", ErrNotObject, TypeOf(root))
	}
	d := NewDoc(root)
	s, _, err := d.Normalize(root, 0)
	if err != nil {
		return nil, err
	}
	props, _ := s.At("properties").(*Map)
	required := map[string]bool{}
	for _, r := range TypeList(s.Vals["required"]) {
		required[r] = true
	}
	var out []Field
	for _, k := range props.keysOrNil() {
		f := Field{Name: k, Required: required[k]}
		d.fill(&f, props.Vals[k], 0)
		out = append(out, f)
	}
	return out, nil
}

// keysOrNil is the keys of a possibly nil Map.
func (o *Map) keysOrNil() []string {
	if o == nil {
		return nil
	}
	return o.Keys
}

// fill reads one property's schema into f through Classify, the classifier
// tui/form's builder uses too: a const, the choices of an enum (or of a oneOf/anyOf
// of consts), "X or null" as a nullable X (the keywords beside the union applied to
// the X, as the form applies them), a type list with null, or the type the keywords
// imply.
func (d *Doc) fill(f *Field, v any, depth int) {
	f.Kind = KindJSON // what the form makes of a schema it cannot read
	if depth > MaxDepth {
		f.Err = fmt.Errorf("nested too deeply (over %d levels)", MaxDepth)
		return
	}
	s, _, err := d.Normalize(v, 0)
	if err != nil {
		f.Err = err
		return
	}
	if depth == 0 {
		f.Title, f.Description = s.Str("title"), s.Str("description")
		if def, ok := s.Get("default"); ok {
			f.Default = json.RawMessage(Encode(def, ""))
		}
	}
	c := d.Classify(s, false)
	f.Kind, f.Type = c.Kind, c.Type
	f.Nullable = f.Nullable || c.Nullable
	switch c.Kind {
	case KindConst:
		f.Enum = []string{CompactText(c.Value)}
	case KindEnum, KindMulti:
		f.Enum = optionTexts(c.Options)
	case KindMaybe:
		// X or null: the field is the X, nullable. The title, description and
		// default stay those written beside the union. A $ref back to the
		// property makes this walk repeat: depth bounds it.
		d.fill(f, c.Inner, depth+1)
	}
}

// nonNull is the schema's type list without null.
func nonNull(s *Map) []string {
	var out []string
	for _, t := range TypeList(s.Vals["type"]) {
		if t != "null" {
			out = append(out, t)
		}
	}
	return out
}

// firstType is the one non-null type the schema gives ("" for none or several).
func firstType(s *Map) string {
	if t := nonNull(s); len(t) == 1 {
		return t[0]
	}
	return ""
}

func hasNull(s *Map) bool {
	for _, t := range TypeList(s.Vals["type"]) {
		if t == "null" {
			return true
		}
	}
	return false
}

func optionTexts(opts []Option) []string {
	out := make([]string, 0, len(opts))
	for _, o := range opts {
		out = append(out, CompactText(o.Val))
	}
	return out
}

// sameType is the JSON type every choice has ("" when they differ).
func sameType(opts []Option) string {
	t := ""
	for i, o := range opts {
		ot := TypeOf(o.Val)
		if ot == "integer" {
			ot = "number"
		}
		if i > 0 && ot != t {
			return ""
		}
		t = ot
	}
	return t
}

// ErrNotObject is returned by Top for a schema that is not a JSON object.
var ErrNotObject = errors.New("the schema is not a JSON object")
