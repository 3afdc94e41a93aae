package form

import (
	"github.com/mcpscope/mcpscope/fields"

	"encoding/json"
	"fmt"
	"strings"
)

// Limits that keep hostile or absurd schemas cheap. Past them a subtree
// becomes a JSON text field.
const (
	maxDepth    = fields.MaxDepth // nesting of form sections
	maxNodes    = 3000            // fields built in one go (New, one array item, one variant)
	maxVariants = 64
)

// omap and option are package fields' ordered JSON object and enum choice: the
// schema is read, resolved and classified there (the one schema-to-fields builder,
// which the CLI and inspect use too); this package builds editing nodes on it.
type (
	omap   = fields.Map
	option = fields.Option
)

// builder turns schema subtrees into form nodes. Its Doc resolves $ref locally
// (JSON pointers, $anchor and $id within the same document) and never loads
// anything from outside.
type builder struct {
	*fields.Doc
	active map[*omap]int // $ref targets on the current expansion path
	budget int
	nest   int // build calls under way
	work   int // node.set calls since the last fresh start
}

// maxSetWork bounds loading one value (each oneOf/anyOf tries variants).
const maxSetWork = 200000

// fresh gives a build started from outside any other build (a new array
// item, a variant chosen later) its own node budget.
func (b *builder) fresh() {
	if b.nest == 0 {
		b.budget = maxNodes
		b.work = 0
	}
}

func newBuilder(doc any) *builder {
	return &builder{Doc: fields.NewDoc(doc), active: map[*omap]int{}}
}

// build makes the node for schema v. parent and key are filled in by the
// caller.
func (b *builder) build(v any, depth int, root bool) *node {
	b.nest++
	defer func() { b.nest-- }()
	b.budget--
	if b.budget < 0 {
		return b.jsonNode(v, depth, "schema too large for a form")
	}
	if depth > maxDepth {
		return b.jsonNode(v, depth, "nested too deeply for a form")
	}
	s, refs, err := b.Normalize(v, 0)
	if err != nil {
		return b.jsonNode(v, depth, err.Error())
	}
	for _, r := range refs {
		if b.active[r] > 0 {
			return b.jsonNode(s, depth, "recursive schema")
		}
	}
	for _, r := range refs {
		b.active[r]++
	}
	defer func() {
		for _, r := range refs {
			b.active[r]--
		}
	}()
	n := b.buildNormalized(s, depth, root)
	if d, ok := s.Get("default"); ok {
		if err := n.set(d); err != nil {
			n.clear()
		} else {
			n.pristine = n.isText()
		}
	}
	return n
}

func (b *builder) newNode(k kind, s *omap, depth int) *node {
	n := &node{k: k, sc: s, depth: depth, sel: -1, b: b}
	if s != nil {
		n.title = s.Str("title")
		n.desc = s.Str("description")
		n.format = s.Str("format")
	}
	return n
}

func (b *builder) jsonNode(v any, depth int, reason string) *node {
	s, _ := v.(*omap)
	n := b.newNode(kJSON, s, depth)
	n.reason = reason
	return n
}

func (b *builder) buildNormalized(s *omap, depth int, root bool) *node {
	if c, ok := s.Get("const"); ok {
		n := b.newNode(kConst, s, depth)
		n.cval = c
		return n
	}
	if opts, nullable, ok := b.EnumOptions(s); ok {
		n := b.newNode(kEnum, s, depth)
		n.opts = opts
		n.nullable = nullable || hasNullType(s)
		return n
	}
	if variants := fields.UnionVariants(s); variants != nil {
		return b.buildUnion(s, variants, depth)
	}
	types := fields.TypeList(s.Vals["type"])
	nullable := false
	var nonNull []string
	for _, t := range types {
		if t == "null" {
			nullable = true
		} else {
			nonNull = append(nonNull, t)
		}
	}
	if len(types) > 0 && len(nonNull) == 0 {
		n := b.newNode(kConst, s, depth)
		n.cval = nil
		return n
	}
	if len(nonNull) > 1 {
		var variants []any
		for _, t := range nonNull {
			vs := s.Clone()
			vs.Set("type", t)
			vs.Del("title")
			vs.Del("description")
			vs.Del("default")
			variants = append(variants, vs)
		}
		u := s.Clone()
		u.Del("type")
		n := b.buildUnionOf(u, variants, depth, "type", false)
		n.nullable = n.nullable || nullable
		return n
	}
	t := ""
	if len(nonNull) == 1 {
		t = nonNull[0]
	} else {
		t = fields.InferType(s)
	}
	var n *node
	switch t {
	case "string":
		n = b.newNode(kString, s, depth)
	case "number":
		n = b.newNode(kNumber, s, depth)
	case "integer":
		n = b.newNode(kInteger, s, depth)
	case "boolean":
		n = b.newNode(kBool, s, depth)
	case "object":
		n = b.buildObject(s, depth, root)
	case "array":
		n = b.buildArray(s, depth)
	default:
		reason := ""
		if s.Has("not") && s.Len() == 1 {
			reason = "schema admits no value"
		} else if t != "" {
			reason = fmt.Sprintf("unknown type %q", t)
		}
		n = b.jsonNode(s, depth, reason)
	}
	n.nullable = n.nullable || nullable
	return n
}

func hasNullType(s *omap) bool {
	for _, t := range fields.TypeList(s.Vals["type"]) {
		if t == "null" {
			return true
		}
	}
	return false
}

func (b *builder) buildObject(s *omap, depth int, root bool) *node {
	props, _ := s.At("properties").(*omap)
	if props.Len() == 0 && !root {
		// A free-form map: nothing to lay out as fields.
		if ap, ok := s.Get("additionalProperties"); !ok || ap != false {
			return b.jsonNode(s, depth, "")
		}
	}
	n := b.newNode(kObject, s, depth)
	if root && props.Len() == 0 && !s.Has("patternProperties") {
		if ap, ok := s.Get("additionalProperties"); !ok || ap != false {
			n.free = true // {"type":"object"}: any arguments, as key/value rows
		}
	}
	required := map[string]bool{}
	for _, r := range fields.TypeList(s.Vals["required"]) {
		required[r] = true
	}
	if props != nil {
		for _, k := range props.Keys {
			c := b.build(props.Vals[k], depth+1, false)
			c.parent = n
			c.key = k
			c.required = required[k]
			if c.required && c.k == kBool && !c.bset {
				c.bset = true // a required boolean starts as false
			}
			n.props = append(n.props, c)
		}
	}
	return n
}

func (b *builder) buildArray(s *omap, depth int) *node {
	if _, tuple := s.At("items").([]any); tuple || s.Has("prefixItems") {
		return b.jsonNode(s, depth, "tuple array")
	}
	items, ok := s.Get("items")
	if !ok {
		items = true
	}
	if is, _, err := b.Normalize(items, 0); err == nil {
		if opts, _, ok := b.EnumOptions(is); ok {
			n := b.newNode(kMulti, s, depth)
			n.opts = opts
			return n
		}
	}
	n := b.newNode(kArray, s, depth)
	n.itemSchema = items
	return n
}

func (b *builder) buildUnion(s *omap, variants []any, depth int) *node {
	kw := fields.UnionKeyword(s)
	base := s.Clone()
	base.Del("oneOf")
	base.Del("anyOf")
	nullable := false
	var keep []any
	for _, v := range variants {
		vs, _, err := b.Normalize(v, 0)
		if err == nil && fields.IsNullSchema(vs) {
			nullable = true
			continue
		}
		keep = append(keep, v)
	}
	if len(keep) == 0 {
		n := b.newNode(kConst, s, depth)
		n.cval = nil
		return n
	}
	if len(keep) == 1 {
		// X or null: a nullable X. Keywords beside the union apply too.
		merged := mergeWithBase(base, keep[0])
		n := b.build(merged, depth, false)
		n.nullable = n.nullable || nullable || hasNullType(s)
		if d, ok := s.Get("default"); ok && n.sc != nil && !n.sc.Has("default") {
			n.sc = n.sc.Clone() // so the hint shows the default
			n.sc.Set("default", d)
		}
		if n.title == "" {
			n.title = s.Str("title")
		}
		if n.desc == "" {
			n.desc = s.Str("description")
		}
		return n
	}
	n := b.buildUnionOf(base, keep, depth, kw, true)
	n.nullable = n.nullable || nullable || hasNullType(s)
	return n
}

// mergeWithBase applies the keywords beside a oneOf/anyOf to one variant. The
// variant stays behind an allOf so that a $ref in it is still seen by the
// recursion guard.
func mergeWithBase(base *omap, variant any) any {
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

func (b *builder) buildUnionOf(base *omap, variants []any, depth int, kw string, withBase bool) *node {
	if len(variants) > maxVariants {
		variants = variants[:maxVariants]
	}
	n := b.newNode(kUnion, base, depth)
	n.unionKw = kw
	for i, v := range variants {
		merged := v
		if withBase {
			merged = mergeWithBase(base, v)
		}
		n.variants = append(n.variants, merged)
		n.vlabels = append(n.vlabels, b.variantLabel(v, i))
	}
	n.vkids = make([]*node, len(n.variants))
	n.vsel = 0
	n.kid(0)
	return n
}

// variantLabel names a oneOf/anyOf branch: its title, a const property that
// discriminates it, or its type.
func (b *builder) variantLabel(v any, i int) string {
	vs, _, err := b.Normalize(v, 0)
	if err != nil || vs == nil {
		return fmt.Sprintf("variant %d", i+1)
	}
	if t := vs.Str("title"); t != "" {
		return t
	}
	if props, ok := vs.At("properties").(*omap); ok {
		for _, k := range props.Keys {
			ps, _, err := b.Normalize(props.Vals[k], 0)
			if err != nil {
				continue
			}
			if c, ok := ps.Get("const"); ok {
				return k + ": " + fields.CompactText(c)
			}
			if e, ok := ps.At("enum").([]any); ok && len(e) == 1 {
				return k + ": " + fields.CompactText(e[0])
			}
		}
	}
	if ref, ok := fields.RefOf(asObj(v)); ok {
		if i := strings.LastIndex(ref, "/"); i >= 0 && i+1 < len(ref) {
			return fields.PtrUnescape(ref[i+1:])
		}
	}
	t := fields.TypeList(vs.Vals["type"])
	if len(t) == 0 {
		if it := fields.InferType(vs); it != "" {
			t = []string{it}
		}
	}
	if len(t) > 0 {
		label := strings.Join(t, "|")
		if props, ok := vs.At("properties").(*omap); ok && props.Len() > 0 {
			names := props.Keys
			if len(names) > 3 {
				names = append(append([]string{}, names[:3]...), "…")
			}
			label += " {" + strings.Join(names, ", ") + "}"
		}
		return label
	}
	return fmt.Sprintf("variant %d", i+1)
}

func asObj(v any) *omap {
	o, _ := v.(*omap)
	if o == nil {
		return fields.NewMap()
	}
	return o
}

// schemaHints describes bounds, format and default for the dim hint text.
func schemaHints(n *node) []string {
	s := n.sc
	if s == nil {
		return nil
	}
	var h []string
	num := func(k string) (string, bool) {
		v, ok := s.Get(k)
		if !ok {
			return "", false
		}
		if x, ok := v.(json.Number); ok {
			return string(x), true
		}
		return "", false
	}
	switch n.k {
	case kNumber, kInteger:
		lo, hasLo := num("minimum")
		hi, hasHi := num("maximum")
		if x, ok := num("exclusiveMinimum"); ok {
			h = append(h, "> "+x)
		} else if hasLo {
			if s.Vals["exclusiveMinimum"] == true {
				h = append(h, "> "+lo)
			} else if !hasHi {
				h = append(h, "≥ "+lo)
			}
		}
		if x, ok := num("exclusiveMaximum"); ok {
			h = append(h, "< "+x)
		} else if hasHi {
			if s.Vals["exclusiveMaximum"] == true {
				h = append(h, "< "+hi)
			} else if hasLo && s.Vals["exclusiveMinimum"] != true {
				h = append(h, lo+"–"+hi)
			} else {
				h = append(h, "≤ "+hi)
			}
		}
		if x, ok := num("multipleOf"); ok {
			h = append(h, "×"+x)
		}
	case kString:
		if n.format != "" {
			h = append(h, n.format)
		}
		lo, hasLo := num("minLength")
		hi, hasHi := num("maxLength")
		switch {
		case hasLo && hasHi:
			h = append(h, "len "+lo+"–"+hi)
		case hasLo:
			h = append(h, "len ≥ "+lo)
		case hasHi:
			h = append(h, "len ≤ "+hi)
		}
		if p := s.Str("pattern"); p != "" {
			h = append(h, "/"+p+"/")
		}
	case kArray, kMulti:
		lo, hasLo := num("minItems")
		hi, hasHi := num("maxItems")
		switch {
		case hasLo && hasHi:
			h = append(h, lo+"–"+hi+" items")
		case hasLo:
			h = append(h, "≥ "+lo+" items")
		case hasHi:
			h = append(h, "≤ "+hi+" items")
		}
		if s.Vals["uniqueItems"] == true && n.k == kArray {
			h = append(h, "unique")
		}
	}
	if d, ok := s.Get("default"); ok {
		text := fields.CompactText(d)
		if _, isStr := d.(string); isStr && n.k != kEnum {
			text = string(fields.Encode(d, ""))
		}
		if n.k == kEnum {
			for _, o := range n.opts {
				if fields.Equal(o.Val, d) {
					text = o.Label
					break
				}
			}
		}
		h = append(h, "default "+text)
	}
	if n.nullable {
		h = append(h, "nullable")
	}
	return h
}

// placeholder is the dim text of an empty text field.
func placeholder(n *node) string {
	switch n.k {
	case kNumber:
		return "number"
	case kInteger:
		return "integer"
	case kJSON:
		if n.reason != "" {
			return "JSON (" + n.reason + ")"
		}
		return "JSON"
	}
	switch n.format {
	case "date":
		return "YYYY-MM-DD"
	case "date-time":
		return "YYYY-MM-DDThh:mm:ssZ"
	case "time":
		return "hh:mm:ss"
	case "email":
		return "name@example.com"
	case "uri", "url", "iri":
		return "https://…"
	case "uri-reference":
		return "URI reference"
	case "uuid":
		return "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
	case "ipv4":
		return "0.0.0.0"
	case "ipv6":
		return "::1"
	case "hostname":
		return "host.example.com"
	case "duration":
		return "P1DT2H"
	}
	if n.format != "" {
		return n.format
	}
	return "string"
}
