package form

import (
	"github.com/mcpscope/mcpscope/fields"

	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// kind is package fields' Kind: the form builds one node per kind that
// fields.Classify gives (fields.KindMaybe never becomes a node: the X of "X or
// null" does), and names it as fields does.
type kind = fields.Kind

const (
	kString  = fields.KindString
	kNumber  = fields.KindNumber
	kInteger = fields.KindInteger
	kBool    = fields.KindBool
	kEnum    = fields.KindEnum   // one of a list of values
	kMulti   = fields.KindMulti  // array of enum values: a set of checkboxes
	kArray   = fields.KindArray  // list of items built from one item schema
	kObject  = fields.KindObject // section of properties
	kUnion   = fields.KindUnion  // oneOf/anyOf: a variant selector and the chosen variant's fields
	kConst   = fields.KindConst  // a fixed value, shown but not edited
	kJSON    = fields.KindJSON   // raw JSON text for anything the form cannot express
)

// node is one field of the form. Which members are used depends on k.
type node struct {
	k        kind
	parent   *node
	key      string // property name when the parent is an object
	sc       *omap  // the normalized schema
	b        *builder
	depth    int
	title    string
	desc     string
	format   string
	reason   string // why this is a JSON field
	required bool

	nullable bool
	isNull   bool

	// present says a value was loaded or defaulted, so an empty string,
	// array or object is still sent.
	present bool
	// pristine: a text field still showing its schema default, untouched; the first
	// key typed into it replaces the default (typing 5 over a default 3 gives 5, not
	// 35). Any edit, or a value loaded over it, makes the field the user's.
	pristine bool

	ed editor // kString, kNumber, kInteger, kJSON

	bval bool // kBool
	bset bool

	opts []option // kEnum, kMulti
	sel  int      // kEnum: index into opts, -1 for none
	msel []int    // kMulti: chosen indexes in the order chosen

	itemSchema any     // kArray
	items      []*node // kArray

	props  []*node // kObject
	extras *omap   // kObject: loaded keys the schema does not list
	// free: a root object whose schema lists no properties and does not close
	// them ({"type":"object"}): any arguments are accepted, edited as key/value
	// rows in pairs. A pair is a key node (pairVal set) and a value node
	// (pairKey set); a value is sent as JSON when it parses as JSON, else as text.
	free    bool
	pairs   [][2]*node
	pairKey *node
	pairVal *node

	unionKw  string // kUnion: "oneOf", "anyOf" or "type"
	variants []any
	vlabels  []string
	vkids    []*node
	vsel     int

	cval any // kConst
}

func (n *node) isText() bool {
	switch n.k {
	case kString, kNumber, kInteger, kJSON:
		return true
	}
	return false
}

// newPair adds an empty key/value row to a free object.
func (n *node) newPair() (k, v *node) {
	k = &node{k: kString, parent: n, b: n.b, depth: n.depth + 1, sc: fields.NewMap(), title: "key"}
	v = &node{k: kString, parent: n, b: n.b, depth: n.depth + 1, sc: fields.NewMap(), title: "value"}
	k.pairVal, v.pairKey = v, k
	n.pairs = append(n.pairs, [2]*node{k, v})
	return k, v
}

// looseValue is a free object's value as typed: JSON when it parses (42, true,
// {"a":1}, "quoted"), else the text itself.
func looseValue(text string) any {
	if t := strings.TrimSpace(text); t != "" {
		if v, err := fields.Parse([]byte(t)); err == nil {
			return v
		}
	}
	return text
}

// looseText is the text that looseValue turns back into v.
func looseText(v any) string {
	if s, ok := v.(string); ok {
		if _, ok := looseValue(s).(string); ok && strings.TrimSpace(s) == s {
			return s
		}
	}
	return string(fields.Encode(v, ""))
}

// kid returns the node of variant i, building it on first use.
func (n *node) kid(i int) *node {
	if n.vkids[i] == nil {
		n.b.fresh()
		c := n.b.build(n.variants[i], n.depth+1, false)
		c.parent = n
		n.vkids[i] = c
	}
	return n.vkids[i]
}

func (n *node) newItem() *node {
	n.b.fresh()
	c := n.b.build(n.itemSchema, n.depth+1, false)
	c.parent = n
	if c.k == kBool && !c.bset {
		c.bset = true
	}
	return c
}

// path is the JSON pointer of the node's value.
func (n *node) path() string {
	if n.parent == nil {
		return ""
	}
	p := n.parent
	switch p.k {
	case kObject:
		if n.pairKey != nil {
			return p.path() + "/" + fields.PtrEscape(n.pairKey.ed.text)
		}
		if n.pairVal != nil {
			return p.path()
		}
		return p.path() + "/" + fields.PtrEscape(n.key)
	case kArray:
		return p.path() + "/" + strconv.Itoa(slices.Index(p.items, n))
	}
	return p.path()
}

// clear empties the node (it does not restore defaults).
func (n *node) clear() {
	n.isNull = false
	n.present = false
	switch n.k {
	case kString, kNumber, kInteger, kJSON:
		n.ed.setText("")
	case kBool:
		n.bset, n.bval = false, false
	case kEnum:
		n.sel = -1
	case kMulti:
		n.msel = nil
	case kArray:
		n.items = nil
	case kObject:
		for _, c := range n.props {
			c.clear()
		}
		n.extras = nil
		n.pairs = nil
	case kUnion:
		for _, c := range n.vkids {
			if c != nil {
				c.clear()
			}
		}
		n.vsel = 0
	}
}

// isSet reports whether the node holds something the user (or a default)
// put there, so an optional field is sent.
func (n *node) isSet() bool {
	if n.nullable && n.isNull {
		return true
	}
	switch n.k {
	case kString:
		return n.ed.text != "" || n.present
	case kNumber, kInteger, kJSON:
		return strings.TrimSpace(n.ed.text) != ""
	case kBool:
		return n.bset
	case kEnum:
		return n.sel >= 0
	case kMulti:
		return len(n.msel) > 0 || n.present
	case kArray:
		return len(n.items) > 0 || n.present
	case kObject:
		if n.present || n.extras.Len() > 0 || len(n.pairs) > 0 {
			return true
		}
		for _, c := range n.props {
			if c.k != kConst && c.isSet() {
				return true
			}
		}
		return false
	case kUnion:
		return n.present || n.kid(n.vsel).isSet()
	}
	return false
}

// value builds the node's JSON value. force asks for a value even when the
// node is empty (array items, required sections). Text that does not parse
// is returned as a string and reported in errs.
func (n *node) value(path string, force bool, errs *[]FieldError) (any, bool) {
	if n.nullable && n.isNull {
		return nil, true
	}
	if !force && !n.isSet() && n.k != kConst {
		return nil, false
	}
	switch n.k {
	case kString:
		return n.ed.text, true
	case kNumber, kInteger:
		t := strings.TrimSpace(n.ed.text)
		if t == "" {
			return nil, true
		}
		if !fields.IsNumber(t) {
			*errs = append(*errs, FieldError{Path: path, Message: "not a number: " + strconv.Quote(t)})
			return t, true
		}
		if fields.Overflows(t) {
			*errs = append(*errs, FieldError{Path: path, Message: tooLarge})
			return t, true
		}
		return json.Number(t), true
	case kJSON:
		t := strings.TrimSpace(n.ed.text)
		if t == "" {
			return nil, true
		}
		v, err := fields.Parse([]byte(t))
		if err != nil {
			*errs = append(*errs, FieldError{Path: path, Message: "invalid JSON: " + err.Error()})
			return t, true
		}
		return v, true
	case kBool:
		return n.bval, true
	case kEnum:
		if n.sel < 0 || n.sel >= len(n.opts) {
			return nil, true
		}
		return n.opts[n.sel].Val, true
	case kConst:
		return n.cval, true
	case kMulti:
		out := make([]any, 0, len(n.msel))
		for _, i := range n.msel {
			out = append(out, n.opts[i].Val)
		}
		return out, true
	case kArray:
		out := make([]any, 0, len(n.items))
		for i, c := range n.items {
			v, _ := c.value(path+"/"+strconv.Itoa(i), true, errs)
			out = append(out, v)
		}
		return out, true
	case kObject:
		o := fields.NewMap()
		for _, c := range n.props {
			cforce := c.k == kConst || (c.required && c.isContainer())
			if v, ok := c.value(path+"/"+fields.PtrEscape(c.key), cforce, errs); ok {
				o.Set(c.key, v)
			}
		}
		if n.extras != nil {
			for _, k := range n.extras.Keys {
				if !o.Has(k) {
					o.Set(k, n.extras.Vals[k])
				}
			}
		}
		for _, p := range n.pairs {
			if k := p[0].ed.text; k != "" {
				o.Set(k, looseValue(p[1].ed.text))
			}
		}
		return o, true
	case kUnion:
		return n.kid(n.vsel).value(path, force || n.present, errs)
	}
	return nil, false
}

// isContainer says an empty value of this node still means something when
// it is required ({} or []), unlike an empty scalar, which is left out so
// the validator reports it missing.
func (n *node) isContainer() bool {
	switch n.k {
	case kObject, kArray, kMulti:
		return true
	case kUnion:
		return n.kid(n.vsel).isContainer()
	}
	return false
}

type mismatchError struct {
	path string
	want string
	got  any
}

func (e *mismatchError) Error() string {
	p := e.path
	if p == "" {
		p = "/"
	}
	return fmt.Sprintf("value at %s does not fit the form: want %s, got %s", p, e.want, describe(e.got))
}

func describe(v any) string {
	s := fields.CompactText(v)
	if _, ok := v.(string); ok {
		s = string(fields.Encode(v, ""))
	}
	if len(s) > 40 {
		s = s[:37] + "…"
	}
	return fields.TypeOf(v) + " " + s
}

// set loads v into the node, replacing what it held. On error the node may
// be partly changed; callers work on a fresh tree. Each kind of node loads its
// value in its own step below.
func (n *node) set(v any) error {
	n.b.work++
	if n.b.work > maxSetWork {
		return fields.ErrTooComplex
	}
	n.isNull = false
	n.pristine = false
	if v == nil && n.takeNull() {
		return nil
	}
	switch n.k {
	case kJSON:
		n.ed.setText(string(fields.Encode(v, "")))
		n.present = true
		return nil
	case kString:
		return n.setString(v)
	case kNumber, kInteger:
		return n.setNumber(v)
	case kBool:
		return n.setBool(v)
	case kConst:
		if !fields.Equal(v, n.cval) {
			return n.mismatch(describe(n.cval), v)
		}
		return nil
	case kEnum:
		return n.setEnum(v)
	case kMulti:
		return n.setMulti(v)
	case kArray:
		return n.setArray(v)
	case kObject:
		return n.setObject(v)
	case kUnion:
		return n.setUnion(v)
	}
	return n.mismatch(n.k.String(), v)
}

// takeNull loads a null into a node that takes one: a nullable node becomes null,
// and an empty array item (sent as null) comes back empty. It reports whether it did.
func (n *node) takeNull() bool {
	if n.nullable {
		n.clear()
		n.isNull = true
		return true
	}
	if n.parent != nil && n.parent.k == kArray && (n.k == kNumber || n.k == kInteger || n.k == kEnum) {
		n.clear()
		return true
	}
	return false
}

// mismatch is the error of a value that does not fit the node.
func (n *node) mismatch(want string, got any) error {
	return &mismatchError{path: n.path(), want: want, got: got}
}

func (n *node) setString(v any) error {
	s, ok := v.(string)
	if !ok {
		return n.mismatch("a string", v)
	}
	n.ed.setText(s)
	n.present = true
	return nil
}

func (n *node) setNumber(v any) error {
	switch x := v.(type) {
	case json.Number:
		n.ed.setText(string(x))
	case string:
		// Text that is not a number is what Value gives for a number
		// field typed wrong; take it back as typed so a trip through
		// raw JSON loses nothing. A string holding a number is a real
		// type mismatch and is refused.
		if fields.IsNumber(strings.TrimSpace(x)) || strings.TrimSpace(x) == "" {
			return n.mismatch("a number", v)
		}
		n.ed.setText(x)
	default:
		return n.mismatch("a number", v)
	}
	return nil
}

func (n *node) setBool(v any) error {
	x, ok := v.(bool)
	if !ok {
		return n.mismatch("true or false", v)
	}
	n.bval, n.bset = x, true
	return nil
}

func (n *node) setEnum(v any) error {
	for i, o := range n.opts {
		if fields.Equal(o.Val, v) {
			n.sel = i
			return nil
		}
	}
	return n.mismatch("one of the listed values", v)
}

// setMulti: an array of listed choices, each at most once, kept in its order.
func (n *node) setMulti(v any) error {
	arr, ok := v.([]any)
	if !ok {
		return n.mismatch("an array", v)
	}
	n.msel = nil
	for _, e := range arr {
		i := slices.IndexFunc(n.opts, func(o option) bool { return fields.Equal(o.Val, e) })
		if i < 0 {
			return n.mismatch("listed values only", v)
		}
		if slices.Contains(n.msel, i) {
			return n.mismatch("each choice at most once", v)
		}
		n.msel = append(n.msel, i)
	}
	n.present = true
	return nil
}

// setArray: one new item per element, each loaded in turn.
func (n *node) setArray(v any) error {
	arr, ok := v.([]any)
	if !ok {
		return n.mismatch("an array", v)
	}
	n.items = nil
	for _, e := range arr {
		c := n.newItem()
		n.items = append(n.items, c)
		if err := c.set(e); err != nil {
			return err
		}
	}
	n.present = true
	return nil
}

// setObject loads each property the schema lists (clearing those v leaves out); a
// free object takes every key as a row, any other keeps the keys it does not list
// as extras, sent back as they came.
func (n *node) setObject(v any) error {
	o, ok := v.(*omap)
	if !ok {
		return n.mismatch("an object", v)
	}
	seen := map[string]bool{}
	for _, c := range n.props {
		seen[c.key] = true
		if cv, ok := o.Get(c.key); ok {
			if err := c.set(cv); err != nil {
				return err
			}
		} else {
			c.clear()
		}
	}
	n.extras = nil
	n.present = true
	if n.free {
		n.pairs = nil
		for _, k := range o.Keys {
			kn, vn := n.newPair()
			kn.ed.setText(k)
			vn.ed.setText(looseText(o.Vals[k]))
		}
		return nil
	}
	for _, k := range o.Keys {
		if !seen[k] {
			if n.extras == nil {
				n.extras = fields.NewMap()
			}
			n.extras.Set(k, o.Vals[k])
		}
	}
	return nil
}

// setUnion tries the variants v fits best first and keeps the first that takes it;
// when none does, the first one's error says why.
func (n *node) setUnion(v any) error {
	var firstErr error
	for _, i := range n.rankVariants(v) {
		c := n.kid(i)
		if err := c.set(v); err != nil {
			c.clear()
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		n.vsel = i
		n.present = true
		return nil
	}
	if firstErr == nil {
		firstErr = n.mismatch("one of the variants", v)
	}
	return firstErr
}

// rankVariants orders variant indexes for trying a value: those it fits
// best first, then those it fits once required properties are overlooked (a
// half-filled variant the form itself produced); all of them when it fits
// none.
func (n *node) rankVariants(v any) []int {
	type scored struct{ i, s int }
	var out []int
	seen := make([]bool, len(n.variants))
	for _, strict := range []bool{true, false} {
		var list []scored
		for i, vs := range n.variants {
			if seen[i] {
				continue
			}
			if s := n.b.match(vs, v, 0, strict); s >= 0 {
				list = append(list, scored{i, s})
			}
		}
		slices.SortStableFunc(list, func(a, b scored) int { return b.s - a.s })
		for _, s := range list {
			seen[s.i] = true
			out = append(out, s.i)
		}
	}
	if len(out) == 0 {
		for i := range n.variants {
			out = append(out, i)
		}
	}
	return out
}

// match scores how well value v fits schema s: -1 when it cannot, higher
// for a closer fit. It is a cheap structural check used to pick a
// oneOf/anyOf variant for a loaded value, not a validator.
func (b *builder) match(sv any, v any, depth int, strict bool) int {
	steps := 0
	return b.matchN(sv, v, depth, strict, &steps)
}

// maxMatch bounds the work of one match (unions of unions of unions…).
const maxMatch = 5000

func (b *builder) matchN(sv any, v any, depth int, strict bool, steps *int) int {
	*steps++
	if depth > maxDepth || *steps > maxMatch {
		return 0
	}
	s, _, err := b.Normalize(sv, 0)
	if err != nil {
		return 0
	}
	if c, ok := s.Get("const"); ok {
		if fields.Equal(c, v) {
			return 100
		}
		return -1
	}
	if e, ok := s.At("enum").([]any); ok {
		for _, x := range e {
			if fields.Equal(x, v) {
				return 50
			}
		}
		return -1
	}
	if vs := fields.UnionVariants(s); vs != nil {
		best := -1
		for _, x := range vs {
			if m := b.matchN(x, v, depth+1, strict, steps); m > best {
				best = m
			}
		}
		if best < 0 {
			return -1
		}
		return best
	}
	types := fields.TypeList(s.Vals["type"])
	if len(types) == 0 {
		if t := fields.InferType(s); t != "" && t != "string" && t != "number" {
			types = []string{t}
		}
	}
	if len(types) > 0 {
		vt := fields.TypeOf(v)
		ok := false
		for _, t := range types {
			if t == vt || (t == "number" && vt == "integer") {
				ok = true
			}
		}
		if !ok {
			return -1
		}
	}
	score := 1
	switch t := v.(type) {
	case *omap:
		props, _ := s.At("properties").(*omap)
		for _, r := range fields.TypeList(s.Vals["required"]) {
			if strict && !t.Has(r) {
				return -1
			}
		}
		closed := s.Vals["additionalProperties"] == false
		for _, k := range t.Keys {
			ps, ok := props.Get(k)
			if !ok {
				if closed {
					return -1
				}
				continue
			}
			m := b.matchN(ps, t.Vals[k], depth+1, strict, steps)
			if m < 0 {
				return -1
			}
			score += 1 + m
		}
	case []any:
		if items, ok := s.Get("items"); ok {
			if _, tuple := items.([]any); !tuple {
				for _, e := range t {
					m := b.matchN(items, e, depth+1, strict, steps)
					if m < 0 {
						return -1
					}
					score += m
				}
			}
		}
	}
	return score
}

// itemOf returns the innermost array item that holds n (or n itself) and
// its array.
func itemOf(n *node) (item, arr *node) {
	for c := n; c != nil && c.parent != nil; c = c.parent {
		if c.parent.k == kArray {
			return c, c.parent
		}
	}
	return nil, nil
}
