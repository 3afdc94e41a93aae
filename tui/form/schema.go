package form

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Limits that keep hostile or absurd schemas cheap. Past them a subtree
// becomes a JSON text field.
const (
	maxDepth    = 16   // nesting of form sections
	maxNodes    = 3000 // fields built in one go (New, one array item, one variant)
	maxRefHops  = 32   // $ref chain length
	maxIndexed  = 20000
	maxVariants = 64
)

// builder turns schema subtrees into form nodes. It resolves $ref locally
// (JSON pointers, $anchor and $id within the same document) and never loads
// anything from outside.
type builder struct {
	doc     any
	ids     map[string]any // $id value -> subschema
	anchors map[string]any // anchor name -> subschema
	active  map[*omap]int  // $ref targets on the current expansion path
	budget  int
	nest    int // build calls under way
	work    int // node.set calls since the last fresh start
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
	b := &builder{doc: doc, ids: map[string]any{}, anchors: map[string]any{}, active: map[*omap]int{}}
	n := 0
	b.index(doc, 0, &n)
	return b
}

// index records $id and $anchor locations, skipping keywords whose values
// are data rather than schemas.
func (b *builder) index(v any, depth int, n *int) {
	*n++
	if depth > 64 || *n > maxIndexed {
		return
	}
	switch t := v.(type) {
	case *omap:
		if id := t.str("$id"); id != "" {
			if strings.HasPrefix(id, "#") && len(id) > 1 {
				b.anchors[id[1:]] = t // draft 6/7 plain-name fragment
			} else {
				b.ids[strings.TrimSuffix(id, "#")] = t
			}
		}
		if id := t.str("id"); id != "" && strings.HasPrefix(id, "#") && len(id) > 1 {
			b.anchors[id[1:]] = t // draft 4
		}
		for _, k := range []string{"$anchor", "$dynamicAnchor"} {
			if a := t.str(k); a != "" {
				if _, dup := b.anchors[a]; !dup {
					b.anchors[a] = t
				}
			}
		}
		for _, k := range t.keys {
			switch k {
			case "enum", "const", "default", "examples", "example":
				continue
			}
			b.index(t.vals[k], depth+1, n)
		}
	case []any:
		for _, e := range t {
			b.index(e, depth+1, n)
		}
	}
}

// lookup resolves a $ref inside the document.
func (b *builder) lookup(ref string) (any, error) {
	base, frag, hasFrag := strings.Cut(ref, "#")
	var root any
	switch {
	case base == "":
		root = b.doc
	default:
		r, ok := b.ids[base]
		if !ok {
			return nil, fmt.Errorf("$ref %q points outside the schema (not fetched)", ref)
		}
		root = r
	}
	if !hasFrag || frag == "" {
		return root, nil
	}
	if !strings.HasPrefix(frag, "/") {
		if a, ok := b.anchors[frag]; ok {
			return a, nil
		}
		return nil, fmt.Errorf("$ref %q: no anchor %q in the schema", ref, frag)
	}
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	cur := root
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = ptrUnescape(tok)
		switch t := cur.(type) {
		case *omap:
			v, ok := t.get(tok)
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
			return nil, fmt.Errorf("$ref %q: cannot descend into %s", ref, jsonType(cur))
		}
	}
	return cur, nil
}

var (
	errTooDeep   = errors.New("schema nested too deeply")
	errRecursive = errors.New("recursive schema")
)

// asSchema turns a schema value into an object: true and {} accept anything,
// false accepts nothing (expressed as {"not":{}}), anything else is invalid.
func asSchema(v any) (*omap, error) {
	switch t := v.(type) {
	case *omap:
		return t, nil
	case bool:
		o := newOmap()
		if !t {
			o.set("not", newOmap())
		}
		return o, nil
	case nil:
		return newOmap(), nil
	}
	return nil, fmt.Errorf("a schema must be an object or a boolean, not %s", jsonType(v))
}

// normalize follows $ref chains (merging sibling keywords over the target)
// and folds allOf into one schema. It returns the $ref targets it passed
// through so the caller can detect recursion.
func (b *builder) normalize(v any, depth int) (*omap, []*omap, error) {
	steps := 0
	return b.normalizeN(v, depth, &steps)
}

// maxNormalize bounds the work of one normalize (allOf of allOf of $ref…).
const maxNormalize = 256

var errTooComplex = errors.New("schema too complex for a form")

func (b *builder) normalizeN(v any, depth int, steps *int) (*omap, []*omap, error) {
	*steps++
	if *steps > maxNormalize {
		return nil, nil, errTooComplex
	}
	if depth > maxDepth {
		return nil, nil, errTooDeep
	}
	cur, err := asSchema(v)
	if err != nil {
		return nil, nil, err
	}
	var refs []*omap
	for hops := 0; ; hops++ {
		ref, ok := refOf(cur)
		if !ok {
			break
		}
		if hops >= maxRefHops {
			return nil, refs, errRecursive
		}
		target, err := b.lookup(ref)
		if err != nil {
			return nil, refs, err
		}
		ts, err := asSchema(target)
		if err != nil {
			return nil, refs, err
		}
		if t, ok := target.(*omap); ok {
			for _, r := range refs {
				if r == t {
					return nil, refs, errRecursive
				}
			}
			refs = append(refs, t)
		}
		merged := ts.clone()
		merged.del("$ref") // re-added below if the target itself refers on
		if r, ok := refOf(ts); ok {
			merged.set("$ref", r)
		}
		for _, k := range cur.keys {
			switch k {
			case "$ref", "$dynamicRef", "$recursiveRef", "$id", "$schema", "$defs", "definitions":
				continue
			}
			merged.set(k, cur.vals[k])
		}
		cur = merged
	}
	if all, ok := cur.get("allOf"); ok {
		subs, _ := all.([]any)
		out := cur.clone()
		out.del("allOf")
		for _, s := range subs {
			n, r, err := b.normalizeN(s, depth+1, steps)
			refs = append(refs, r...)
			if err != nil {
				return nil, refs, err
			}
			out = mergeSchemas(out, n)
		}
		cur = out
	}
	return cur, refs, nil
}

func refOf(s *omap) (string, bool) {
	for _, k := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
		if v, ok := s.get(k); ok {
			if r, ok := v.(string); ok {
				return r, true
			}
		}
	}
	return "", false
}

// mergeSchemas combines two schemas that must both hold (allOf). Keywords of a
// win, except properties and required, which are united, and type, which is
// intersected.
func mergeSchemas(a, b *omap) *omap {
	out := a.clone()
	for _, k := range b.keys {
		bv := b.vals[k]
		av, has := out.get(k)
		if !has {
			out.set(k, bv)
			continue
		}
		switch k {
		case "properties":
			ap, ok1 := av.(*omap)
			bp, ok2 := bv.(*omap)
			if !ok1 || !ok2 {
				continue
			}
			m := ap.clone()
			for _, pk := range bp.keys {
				if pv, ok := m.get(pk); ok {
					both := newOmap()
					both.set("allOf", []any{pv, bp.vals[pk]})
					m.set(pk, both)
				} else {
					m.set(pk, bp.vals[pk])
				}
			}
			out.set(k, m)
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
			out.set(k, req)
		case "type":
			at, bt := typeList(av), typeList(bv)
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
				out.set(k, both)
			}
		}
	}
	return out
}

func typeList(v any) []string {
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

// isNullSchema reports whether s only admits null.
func isNullSchema(s *omap) bool {
	if c, ok := s.get("const"); ok && c == nil {
		return true
	}
	if e, ok := s.at("enum").([]any); ok && len(e) == 1 && e[0] == nil {
		return true
	}
	t := typeList(s.vals["type"])
	return len(t) == 1 && t[0] == "null"
}

// enumOptions lists the choices of an enum-like schema: enum (with legacy
// enumNames) or a oneOf/anyOf whose variants are all consts.
func (b *builder) enumOptions(s *omap) ([]option, bool, bool) {
	if e, ok := s.get("enum"); ok {
		vals, ok := e.([]any)
		if !ok || len(vals) == 0 {
			return nil, false, false
		}
		names := typeList(s.vals["enumNames"])
		if len(names) != len(vals) {
			names = nil
		}
		var opts []option
		for i, v := range vals {
			label := compactText(v)
			if names != nil {
				label = names[i]
			}
			opts = append(opts, option{val: v, label: label})
		}
		return opts, false, true
	}
	variants := unionVariants(s)
	if len(variants) == 0 {
		return nil, false, false
	}
	var opts []option
	nullable := false
	for _, v := range variants {
		vs, _, err := b.normalize(v, 0)
		if err != nil {
			return nil, false, false
		}
		c, ok := vs.get("const")
		if !ok {
			if e, ok2 := vs.at("enum").([]any); ok2 && len(e) == 1 {
				c, ok = e[0], true
			}
		}
		if !ok {
			if isNullSchema(vs) {
				nullable = true
				continue
			}
			return nil, false, false
		}
		label := vs.str("title")
		if label == "" {
			label = compactText(c)
		}
		opts = append(opts, option{val: c, label: label, desc: vs.str("description")})
	}
	if len(opts) == 0 {
		return nil, false, false
	}
	return opts, nullable, true
}

func unionVariants(s *omap) []any {
	for _, k := range []string{"oneOf", "anyOf"} {
		if v, ok := s.at(k).([]any); ok && len(v) > 0 {
			return v
		}
	}
	return nil
}

func unionKeyword(s *omap) string {
	if v, ok := s.at("oneOf").([]any); ok && len(v) > 0 {
		return "oneOf"
	}
	return "anyOf"
}

// inferType guesses the type of a schema that has no "type".
func inferType(s *omap) string {
	for _, k := range []string{"properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties"} {
		if s.has(k) {
			return "object"
		}
	}
	for _, k := range []string{"items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"} {
		if s.has(k) {
			return "array"
		}
	}
	for _, k := range []string{"minLength", "maxLength", "pattern", "format"} {
		if s.has(k) {
			return "string"
		}
	}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} {
		if s.has(k) {
			return "number"
		}
	}
	return ""
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
	s, refs, err := b.normalize(v, 0)
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
	if d, ok := s.get("default"); ok {
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
		n.title = s.str("title")
		n.desc = s.str("description")
		n.format = s.str("format")
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
	if c, ok := s.get("const"); ok {
		n := b.newNode(kConst, s, depth)
		n.cval = c
		return n
	}
	if opts, nullable, ok := b.enumOptions(s); ok {
		n := b.newNode(kEnum, s, depth)
		n.opts = opts
		n.nullable = nullable || hasNullType(s)
		return n
	}
	if variants := unionVariants(s); variants != nil {
		return b.buildUnion(s, variants, depth)
	}
	types := typeList(s.vals["type"])
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
			vs := s.clone()
			vs.set("type", t)
			vs.del("title")
			vs.del("description")
			vs.del("default")
			variants = append(variants, vs)
		}
		u := s.clone()
		u.del("type")
		n := b.buildUnionOf(u, variants, depth, "type", false)
		n.nullable = n.nullable || nullable
		return n
	}
	t := ""
	if len(nonNull) == 1 {
		t = nonNull[0]
	} else {
		t = inferType(s)
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
		if s.has("not") && s.len() == 1 {
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
	for _, t := range typeList(s.vals["type"]) {
		if t == "null" {
			return true
		}
	}
	return false
}

func (b *builder) buildObject(s *omap, depth int, root bool) *node {
	props, _ := s.at("properties").(*omap)
	if props.len() == 0 && !root {
		// A free-form map: nothing to lay out as fields.
		if ap, ok := s.get("additionalProperties"); !ok || ap != false {
			return b.jsonNode(s, depth, "")
		}
	}
	n := b.newNode(kObject, s, depth)
	if root && props.len() == 0 && !s.has("patternProperties") {
		if ap, ok := s.get("additionalProperties"); !ok || ap != false {
			n.free = true // {"type":"object"}: any arguments, as key/value rows
		}
	}
	required := map[string]bool{}
	for _, r := range typeList(s.vals["required"]) {
		required[r] = true
	}
	if props != nil {
		for _, k := range props.keys {
			c := b.build(props.vals[k], depth+1, false)
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
	if _, tuple := s.at("items").([]any); tuple || s.has("prefixItems") {
		return b.jsonNode(s, depth, "tuple array")
	}
	items, ok := s.get("items")
	if !ok {
		items = true
	}
	if is, _, err := b.normalize(items, 0); err == nil {
		if opts, _, ok := b.enumOptions(is); ok {
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
	kw := unionKeyword(s)
	base := s.clone()
	base.del("oneOf")
	base.del("anyOf")
	nullable := false
	var keep []any
	for _, v := range variants {
		vs, _, err := b.normalize(v, 0)
		if err == nil && isNullSchema(vs) {
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
		if d, ok := s.get("default"); ok && n.sc != nil && !n.sc.has("default") {
			n.sc = n.sc.clone() // so the hint shows the default
			n.sc.set("default", d)
		}
		if n.title == "" {
			n.title = s.str("title")
		}
		if n.desc == "" {
			n.desc = s.str("description")
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
	out := base.clone()
	for _, k := range []string{"default", "title", "description", "$schema", "$id", "$defs", "definitions", "examples"} {
		out.del(k)
	}
	if out.len() == 0 {
		return variant
	}
	out.set("allOf", []any{variant})
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
	vs, _, err := b.normalize(v, 0)
	if err != nil || vs == nil {
		return fmt.Sprintf("variant %d", i+1)
	}
	if t := vs.str("title"); t != "" {
		return t
	}
	if props, ok := vs.at("properties").(*omap); ok {
		for _, k := range props.keys {
			ps, _, err := b.normalize(props.vals[k], 0)
			if err != nil {
				continue
			}
			if c, ok := ps.get("const"); ok {
				return k + ": " + compactText(c)
			}
			if e, ok := ps.at("enum").([]any); ok && len(e) == 1 {
				return k + ": " + compactText(e[0])
			}
		}
	}
	if ref, ok := refOf(asObj(v)); ok {
		if i := strings.LastIndex(ref, "/"); i >= 0 && i+1 < len(ref) {
			return ptrUnescape(ref[i+1:])
		}
	}
	t := typeList(vs.vals["type"])
	if len(t) == 0 {
		if it := inferType(vs); it != "" {
			t = []string{it}
		}
	}
	if len(t) > 0 {
		label := strings.Join(t, "|")
		if props, ok := vs.at("properties").(*omap); ok && props.len() > 0 {
			names := props.keys
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
		return newOmap()
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
		v, ok := s.get(k)
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
			if s.vals["exclusiveMinimum"] == true {
				h = append(h, "> "+lo)
			} else if !hasHi {
				h = append(h, "≥ "+lo)
			}
		}
		if x, ok := num("exclusiveMaximum"); ok {
			h = append(h, "< "+x)
		} else if hasHi {
			if s.vals["exclusiveMaximum"] == true {
				h = append(h, "< "+hi)
			} else if hasLo && s.vals["exclusiveMinimum"] != true {
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
		if p := s.str("pattern"); p != "" {
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
		if s.vals["uniqueItems"] == true && n.k == kArray {
			h = append(h, "unique")
		}
	}
	if d, ok := s.get("default"); ok {
		text := compactText(d)
		if _, isStr := d.(string); isStr && n.k != kEnum {
			text = string(encodeJSON(d, ""))
		}
		if n.k == kEnum {
			for _, o := range n.opts {
				if jsonEqual(o.val, d) {
					text = o.label
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
