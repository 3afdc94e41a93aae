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

// buildNormalized makes the node for a normalized schema. What kind of node it is
// comes from fields.Classify, the one classifier the CLI and inspect read schemas
// with too (TestFormAndFieldsReadKindsAlike); this builds the kind's editing node.
func (b *builder) buildNormalized(s *omap, depth int, root bool) *node {
	c := b.Classify(s, root)
	var n *node
	switch c.Kind {
	case kConst:
		n = b.newNode(kConst, s, depth)
		n.cval = c.Value
	case kEnum, kMulti:
		n = b.newNode(c.Kind, s, depth)
		n.opts = c.Options
	case kUnion:
		n = b.buildUnion(s, c, depth)
	case fields.KindMaybe:
		n = b.buildMaybe(s, c, depth)
	case kObject:
		n = b.buildObject(s, depth, root)
	case kArray:
		n = b.newNode(kArray, s, depth)
		n.itemSchema = c.Items
	case kJSON:
		n = b.jsonNode(s, depth, c.Reason)
	default: // string, number, integer, boolean: a field with no more parts
		n = b.newNode(c.Kind, s, depth)
	}
	n.nullable = n.nullable || c.Nullable
	return n
}

// buildObject lays out an object's properties as a section (Classify has ruled out
// a free-form map inside the form; at the root one is free key/value rows).
func (b *builder) buildObject(s *omap, depth int, root bool) *node {
	props, _ := s.At("properties").(*omap)
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

// buildMaybe: X or null is a nullable X, built from the X with the keywords beside
// the union applied; the title, description and default written beside the union
// are the field's.
func (b *builder) buildMaybe(s *omap, c fields.Class, depth int) *node {
	n := b.build(c.Inner, depth, false)
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

// buildUnion: a choice among variants (a oneOf/anyOf, or a type list), each built
// when it is first chosen.
func (b *builder) buildUnion(s *omap, c fields.Class, depth int) *node {
	variants := c.Variants
	if len(variants) > maxVariants {
		variants = variants[:maxVariants]
	}
	n := b.newNode(kUnion, c.Base, depth)
	n.unionKw = c.Keyword
	for i, v := range variants {
		n.variants = append(n.variants, c.Variant(i))
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
