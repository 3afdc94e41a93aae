package fields

import "fmt"

// Kind is what one schema node asks for. Every front end reads a node's kind from
// Classify, so that a schema is read the same way by the TUI's form (which builds a
// nested, editable node per kind), the CLI's elicitation prompts and inspect's
// key=value coercion (which read Top).
type Kind int

const (
	KindString Kind = iota
	KindNumber
	KindInteger
	KindBool
	KindEnum   // one of a list of values (Options)
	KindMulti  // an array of enum values: a set of choices (Options)
	KindArray  // a list of items built from one item schema (Items)
	KindObject // a section of properties
	KindUnion  // oneOf/anyOf, or a type list of several types: a choice of Variants
	KindConst  // one fixed value (Value), null included
	KindJSON   // JSON text: what a form cannot lay out (no type, an unknown one, a tuple, a free-form map)
	KindMaybe  // X or null: one variant besides null; Inner is the X, read as a nullable X
)

// String is the kind as the form names it to the user.
func (k Kind) String() string {
	names := [...]string{"string", "number", "integer", "boolean", "choice", "multi-select", "array", "object", "variant", "constant", "JSON", "nullable"}
	if k < 0 || int(k) >= len(names) {
		return "unknown"
	}
	return names[k]
}

// Class is one normalized schema node classified: its kind, and what that kind needs.
type Class struct {
	Kind Kind
	// Type is the JSON type the node names: the type of a const, of an enum's
	// choices, the one non-null type; "" for a union of several or none at all.
	Type     string
	Nullable bool     // null is admitted beside the kind (a type list with null, an enum with null)
	Value    any      // KindConst (nil: null)
	Options  []Option // KindEnum, KindMulti
	Items    any      // KindArray: the item schema (true when the schema gives none)
	Keyword  string   // KindUnion: "oneOf", "anyOf", or "type" for a type list
	Base     *Map     // KindUnion: the schema without its union (or without its type list)
	Variants []any    // KindUnion: the choices as the schema wrote them, null taken out; Variant(i) is what a choice asks
	Inner    any      // KindMaybe: the variant beside null, with the keywords beside the union applied
	Reason   string   // KindJSON: why a form cannot lay it out ("" when it simply gives no type)
	withBase bool     // KindUnion: the keywords beside the union apply to each variant
}

// Variant is what choice i of a union asks: the variant with the keywords beside the
// union applied (a oneOf/anyOf), or the schema with one type of its list (a type list).
func (c Class) Variant(i int) any {
	if c.withBase {
		return MergeBase(c.Base, c.Variants[i])
	}
	return c.Variants[i]
}

// Classify reads one normalized schema node (see Normalize). root says it is the
// schema of a whole form: an object there is a section even without properties (the
// form lays it out as free key/value rows), while inside it such a free-form map is
// JSON text. Classify looks one level deep only (a variant, an item schema): the
// walk down is the caller's, bounded by the caller.
func (d *Doc) Classify(s *Map, root bool) Class {
	if c, ok := s.Get("const"); ok {
		return Class{Kind: KindConst, Value: c, Type: TypeOf(c)}
	}
	if opts, nullable, ok := d.EnumOptions(s); ok {
		c := Class{Kind: KindEnum, Options: opts, Nullable: nullable || hasNull(s), Type: firstType(s)}
		if c.Type == "" {
			c.Type = sameType(opts)
		}
		return c
	}
	if variants := UnionVariants(s); variants != nil {
		return d.classifyUnion(s, variants)
	}
	types := TypeList(s.Vals["type"])
	nonNull := nonNull(s)
	nullable := len(nonNull) < len(types)
	if len(types) > 0 && len(nonNull) == 0 {
		return Class{Kind: KindConst, Type: "null"} // {"type":"null"}: null is the one value
	}
	if len(nonNull) > 1 {
		// Several types: a choice of one schema per type. The title, description and
		// default stay with the whole, not with each choice.
		c := Class{Kind: KindUnion, Keyword: "type", Nullable: nullable}
		for _, t := range nonNull {
			vs := s.Clone()
			vs.Set("type", t)
			vs.Del("title")
			vs.Del("description")
			vs.Del("default")
			c.Variants = append(c.Variants, vs)
		}
		c.Base = s.Clone()
		c.Base.Del("type")
		return c
	}
	t := InferType(s)
	if len(nonNull) == 1 {
		t = nonNull[0]
	}
	c := Class{Type: t, Nullable: nullable}
	switch t {
	case "string":
		c.Kind = KindString
	case "number":
		c.Kind = KindNumber
	case "integer":
		c.Kind = KindInteger
	case "boolean":
		c.Kind = KindBool
	case "object":
		c.Kind = KindObject
		props, _ := s.At("properties").(*Map)
		if props.Len() == 0 && !root {
			// A free-form map: nothing to lay out as fields.
			if ap, ok := s.Get("additionalProperties"); !ok || ap != false {
				c.Kind = KindJSON
			}
		}
	case "array":
		d.classifyArray(s, &c)
	default:
		c.Kind = KindJSON
		if s.Has("not") && s.Len() == 1 {
			c.Reason = "schema admits no value"
		} else if t != "" {
			c.Reason = fmt.Sprintf("unknown type %q", t)
		}
	}
	return c
}

// classifyArray: a tuple is JSON text, an array of enum values a multi-select, any
// other array a list of items.
func (d *Doc) classifyArray(s *Map, c *Class) {
	if _, tuple := s.At("items").([]any); tuple || s.Has("prefixItems") {
		c.Kind, c.Reason = KindJSON, "tuple array"
		return
	}
	items, ok := s.Get("items")
	if !ok {
		items = true
	}
	if is, _, err := d.Normalize(items, 0); err == nil {
		if opts, _, ok := d.EnumOptions(is); ok {
			c.Kind, c.Options = KindMulti, opts
			return
		}
	}
	c.Kind, c.Items = KindArray, items
}

// classifyUnion: a oneOf/anyOf. Null variants make it nullable; none left is null
// itself, one left is that one made nullable (KindMaybe), several are a choice.
func (d *Doc) classifyUnion(s *Map, variants []any) Class {
	base := s.Clone()
	base.Del("oneOf")
	base.Del("anyOf")
	nullable := hasNull(s)
	var keep []any
	for _, v := range variants {
		vs, _, err := d.Normalize(v, 0)
		if err == nil && IsNullSchema(vs) {
			nullable = true
			continue
		}
		keep = append(keep, v)
	}
	switch len(keep) {
	case 0:
		return Class{Kind: KindConst, Type: "null"} // null is the one value
	case 1:
		return Class{Kind: KindMaybe, Inner: MergeBase(base, keep[0]), Nullable: nullable}
	}
	return Class{Kind: KindUnion, Keyword: UnionKeyword(s), Base: base, Variants: keep, Nullable: nullable, withBase: true}
}

// MergeBase applies the keywords beside a oneOf/anyOf to one variant. The variant
// stays behind an allOf so that a $ref in it is still seen by a recursion guard.
func MergeBase(base *Map, variant any) any {
	out := base.Clone()
	for _, k := range []string{"default", "title", "description", "$schema", "$id", "$defs", "definitions", "examples"} {
		out.Del(k)
	}
	if out.Len() == 0 {
		return variant
	}
	out.Set("allOf", []any{variant})
	return out
}
