// Package fields is the one schema-to-fields builder of mcpscope: it reads a JSON
// Schema as the server wrote it (key order kept), resolves $ref inside it (JSON
// pointers, $anchor and $id of the same document; nothing is fetched), folds allOf,
// and classifies what each property asks for (a type, choices, a union, a constant).
// The TUI's form (tui/form) builds its editing nodes on it, the CLI's elicitation
// prompts (cmd/mcpscope) and the coercion of key=value arguments (inspect) read the
// top-level fields from it, so the three agree on what a schema asks. No terminal,
// no Bubble Tea, no SDK in here.
package fields

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Limits that keep hostile or absurd schemas cheap.
const (
	MaxDepth   = 16 // nesting the resolver follows (normalize) and a form lays out
	maxRefHops = 32 // $ref chain length
	maxIndexed = 20000
)

// Doc is one schema document, indexed for $ref resolution.
type Doc struct {
	Root    any            // the document as parsed (Parse)
	ids     map[string]any // $id value -> subschema
	anchors map[string]any // anchor name -> subschema
}

// Option is one choice of an enum-like schema: its value, the label shown (enumNames,
// a const variant's title, or the value as compact JSON) and its description.
type Option struct {
	Val   any
	Label string
	Desc  string
}

// NewDoc indexes a parsed schema document (Parse) for Lookup and Normalize.
func NewDoc(root any) *Doc {
	d := &Doc{Root: root, ids: map[string]any{}, anchors: map[string]any{}}
	n := 0
	d.index(root, 0, &n)
	return d
}

// maxNormalize bounds the work of one normalize (allOf of allOf of $ref…).
const maxNormalize = 256

var ErrTooComplex = errors.New("schema too complex for a form")

var (
	ErrTooDeep   = errors.New("schema nested too deeply")
	ErrRecursive = errors.New("recursive schema")
)

// index records $id and $anchor locations, skipping keywords whose values
// are data rather than schemas.
func (d *Doc) index(v any, depth int, n *int) {
	*n++
	if depth > 64 || *n > maxIndexed {
		return
	}
	switch t := v.(type) {
	case *Map:
		if id := t.Str("$id"); id != "" {
			if strings.HasPrefix(id, "#") && len(id) > 1 {
				d.anchors[id[1:]] = t // draft 6/7 plain-name fragment
			} else {
				d.ids[strings.TrimSuffix(id, "#")] = t
			}
		}
		if id := t.Str("id"); id != "" && strings.HasPrefix(id, "#") && len(id) > 1 {
			d.anchors[id[1:]] = t // draft 4
		}
		for _, k := range []string{"$anchor", "$dynamicAnchor"} {
			if a := t.Str(k); a != "" {
				if _, dup := d.anchors[a]; !dup {
					d.anchors[a] = t
				}
			}
		}
		for _, k := range t.Keys {
			switch k {
			case "enum", "const", "default", "examples", "example":
				continue
			}
			d.index(t.Vals[k], depth+1, n)
		}
	case []any:
		for _, e := range t {
			d.index(e, depth+1, n)
		}
	}
}

// lookup resolves a $ref inside the document.
func (d *Doc) Lookup(ref string) (any, error) {
	base, frag, hasFrag := strings.Cut(ref, "#")
	var root any
	switch {
	case base == "":
		root = d.Root
	default:
		r, ok := d.ids[base]
		if !ok {
			return nil, fmt.Errorf("$ref %q points outside the schema (not fetched)", ref)
		}
		root = r
	}
	if !hasFrag || frag == "" {
		return root, nil
	}
	if !strings.HasPrefix(frag, "/") {
		if a, ok := d.anchors[frag]; ok {
			return a, nil
		}
		return nil, fmt.Errorf("$ref %q: no anchor %q in the schema", ref, frag)
	}
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	cur := root
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = PtrUnescape(tok)
		switch t := cur.(type) {
		case *Map:
			v, ok := t.Get(tok)
			if !ok {
				return nil, fmt.Errorf("$ref %q: nothing at %q", ref, tok)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(t) {
				return nil, fmt.Errorf("$ref %q: bad index %q", ref, tok)
			}
			cur = t[i]
		default:
			return nil, fmt.Errorf("$ref %q: cannot descend into %s", ref, TypeOf(cur))
		}
	}
	return cur, nil
}

// AsSchema turns a schema value into an object: true and {} accept anything,
// false accepts nothing (expressed as {"not":{}}), anything else is invalid.
func AsSchema(v any) (*Map, error) {
	switch t := v.(type) {
	case *Map:
		return t, nil
	case bool:
		o := NewMap()
		if !t {
			o.Set("not", NewMap())
		}
		return o, nil
	case nil:
		return NewMap(), nil
	}
	return nil, fmt.Errorf("a schema must be an object or a boolean, not %s", TypeOf(v))
}

// normalize follows $ref chains (merging sibling keywords over the target)
// and folds allOf into one schema. It returns the $ref targets it passed
// through so the caller can detect recursion.
func (d *Doc) Normalize(v any, depth int) (*Map, []*Map, error) {
	steps := 0
	return d.normalizeN(v, depth, &steps)
}

func (d *Doc) normalizeN(v any, depth int, steps *int) (*Map, []*Map, error) {
	*steps++
	if *steps > maxNormalize {
		return nil, nil, ErrTooComplex
	}
	if depth > MaxDepth {
		return nil, nil, ErrTooDeep
	}
	cur, err := AsSchema(v)
	if err != nil {
		return nil, nil, err
	}
	var refs []*Map
	for hops := 0; ; hops++ {
		ref, ok := RefOf(cur)
		if !ok {
			break
		}
		if hops >= maxRefHops {
			return nil, refs, ErrRecursive
		}
		target, err := d.Lookup(ref)
		if err != nil {
			return nil, refs, err
		}
		ts, err := AsSchema(target)
		if err != nil {
			return nil, refs, err
		}
		if t, ok := target.(*Map); ok {
			for _, r := range refs {
				if r == t {
					return nil, refs, ErrRecursive
				}
			}
			refs = append(refs, t)
		}
		merged := ts.Clone()
		merged.Del("$ref") // re-added below if the target itself refers on
		if r, ok := RefOf(ts); ok {
			merged.Set("$ref", r)
		}
		for _, k := range cur.Keys {
			switch k {
			case "$ref", "$dynamicRef", "$recursiveRef", "$id", "$schema", "$defs", "definitions":
				continue
			}
			merged.Set(k, cur.Vals[k])
		}
		cur = merged
	}
	if all, ok := cur.Get("allOf"); ok {
		subs, _ := all.([]any)
		out := cur.Clone()
		out.Del("allOf")
		for _, s := range subs {
			n, r, err := d.normalizeN(s, depth+1, steps)
			refs = append(refs, r...)
			if err != nil {
				return nil, refs, err
			}
			out = MergeSchemas(out, n)
		}
		cur = out
	}
	return cur, refs, nil
}

func RefOf(s *Map) (string, bool) {
	for _, k := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
		if v, ok := s.Get(k); ok {
			if r, ok := v.(string); ok {
				return r, true
			}
		}
	}
	return "", false
}

// MergeSchemas combines two schemas that must both hold (allOf). Keywords of a
// win, except properties and required, which are united, and type, which is
// intersected.
func MergeSchemas(a, b *Map) *Map {
	out := a.Clone()
	for _, k := range b.Keys {
		bv := b.Vals[k]
		av, has := out.Get(k)
		if !has {
			out.Set(k, bv)
			continue
		}
		switch k {
		case "properties":
			ap, ok1 := av.(*Map)
			bp, ok2 := bv.(*Map)
			if !ok1 || !ok2 {
				continue
			}
			m := ap.Clone()
			for _, pk := range bp.Keys {
				if pv, ok := m.Get(pk); ok {
					both := NewMap()
					both.Set("allOf", []any{pv, bp.Vals[pk]})
					m.Set(pk, both)
				} else {
					m.Set(pk, bp.Vals[pk])
				}
			}
			out.Set(k, m)
		case "required":
			ar, _ := av.([]any)
			br, _ := bv.([]any)
			seen := map[string]bool{}
			var req []any
			for _, r := range append(append([]any{}, ar...), br...) {
				if s, ok := r.(string); ok && !seen[s] {
					seen[s] = true
					req = append(req, s)
				}
			}
			out.Set(k, req)
		case "type":
			at, bt := TypeList(av), TypeList(bv)
			var both []any
			for _, t := range at {
				for _, u := range bt {
					if t == u || (t == "number" && u == "integer") {
						both = append(both, u)
					} else if t == "integer" && u == "number" {
						both = append(both, t)
					}
				}
			}
			if len(both) > 0 {
				out.Set(k, both)
			}
		}
	}
	return out
}

func TypeList(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// IsNullSchema reports whether s only admits null.
func IsNullSchema(s *Map) bool {
	if c, ok := s.Get("const"); ok && c == nil {
		return true
	}
	if e, ok := s.At("enum").([]any); ok && len(e) == 1 && e[0] == nil {
		return true
	}
	t := TypeList(s.Vals["type"])
	return len(t) == 1 && t[0] == "null"
}

// enumOptions lists the choices of an enum-like schema: enum (with legacy
// enumNames) or a oneOf/anyOf whose variants are all consts.
func (d *Doc) EnumOptions(s *Map) ([]Option, bool, bool) {
	if e, ok := s.Get("enum"); ok {
		vals, ok := e.([]any)
		if !ok || len(vals) == 0 {
			return nil, false, false
		}
		names := TypeList(s.Vals["enumNames"])
		if len(names) != len(vals) {
			names = nil
		}
		var opts []Option
		for i, v := range vals {
			label := CompactText(v)
			if names != nil {
				label = names[i]
			}
			opts = append(opts, Option{Val: v, Label: label})
		}
		return opts, false, true
	}
	variants := UnionVariants(s)
	if len(variants) == 0 {
		return nil, false, false
	}
	var opts []Option
	nullable := false
	for _, v := range variants {
		vs, _, err := d.Normalize(v, 0)
		if err != nil {
			return nil, false, false
		}
		c, ok := vs.Get("const")
		if !ok {
			if e, ok2 := vs.At("enum").([]any); ok2 && len(e) == 1 {
				c, ok = e[0], true
			}
		}
		if !ok {
			if IsNullSchema(vs) {
				nullable = true
				continue
			}
			return nil, false, false
		}
		label := vs.Str("title")
		if label == "" {
			label = CompactText(c)
		}
		opts = append(opts, Option{Val: c, Label: label, Desc: vs.Str("description")})
	}
	if len(opts) == 0 {
		return nil, false, false
	}
	return opts, nullable, true
}

func UnionVariants(s *Map) []any {
	for _, k := range []string{"oneOf", "anyOf"} {
		if v, ok := s.At(k).([]any); ok && len(v) > 0 {
			return v
		}
	}
	return nil
}

func UnionKeyword(s *Map) string {
	if v, ok := s.At("oneOf").([]any); ok && len(v) > 0 {
		return "oneOf"
	}
	return "anyOf"
}

// InferType guesses the type of a schema that has no "type".
func InferType(s *Map) string {
	for _, k := range []string{"properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties"} {
		if s.Has(k) {
			return "object"
		}
	}
	for _, k := range []string{"items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"} {
		if s.Has(k) {
			return "array"
		}
	}
	for _, k := range []string{"minLength", "maxLength", "pattern", "format"} {
		if s.Has(k) {
			return "string"
		}
	}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} {
		if s.Has(k) {
			return "number"
		}
	}
	return ""
}
