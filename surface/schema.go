package surface

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// direction says whose values a schema describes. An input schema describes what the
// client sends: a new schema that accepts less breaks old clients. An output schema
// describes what the server sends: a new schema that may produce more breaks them.
type direction int

const (
	input direction = iota
	output
)

// breaksWhen returns whether narrowing (true) or widening (false) breaks in this
// direction, as "is this narrowing a break".
func (d direction) breaking(narrowed bool) bool {
	if d == input {
		return narrowed
	}
	return !narrowed
}

func parseSchema(raw json.RawMessage) (map[string]any, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return map[string]any{}, true
	}
	return m, true
}

func compareInput(o, n json.RawMessage) []Change {
	if sameJSON(o, n) {
		return nil
	}
	om, _ := parseSchema(o)
	nm, _ := parseSchema(n)
	if om == nil {
		om = map[string]any{}
	}
	if nm == nil {
		nm = map[string]any{}
	}
	var cs []Change
	walk(&cs, "inputSchema", om, nm, input, 0)
	return cs
}

func compareOutput(o, n json.RawMessage) []Change {
	if sameJSON(o, n) {
		return nil
	}
	om, oh := parseSchema(o)
	nm, nh := parseSchema(n)
	switch {
	case oh && !nh:
		return []Change{{Kind: "output-schema-removed", Path: "outputSchema", Breaking: true, Before: short(o),
			Message: "the output schema was removed: structured results are no longer promised"}}
	case !oh && nh:
		return []Change{{Kind: "output-schema-added", Path: "outputSchema", After: short(n),
			Message: "an output schema was added"}}
	case !oh && !nh:
		return nil
	}
	var cs []Change
	walk(&cs, "outputSchema", om, nm, output, 0)
	return cs
}

// handled are the keywords walk classifies; any other difference is reported as
// unclassified.
var handled = map[string]bool{
	"type": true, "enum": true, "const": true, "properties": true, "required": true,
	"additionalProperties": true, "items": true, "description": true, "title": true,
	"default": true, "examples": true, "$schema": true, "pattern": true, "format": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
	"minProperties": true, "maxProperties": true, "multipleOf": true, "uniqueItems": true,
}

const maxDepth = 32

// walk compares two schemas at path.
func walk(cs *[]Change, path string, o, n map[string]any, d direction, depth int) {
	if depth > maxDepth {
		return
	}
	add := func(c Change) { *cs = append(*cs, c) }
	for _, k := range []string{"description", "title"} {
		if ov, nv := o[k], n[k]; !equal(ov, nv) {
			add(Change{Kind: k + "-changed", Path: join(path, k), Before: short(ov), After: short(nv),
				Message: fmt.Sprintf("%s changed", join(path, k))})
		}
	}
	if ov, nv := o["default"], n["default"]; !equal(ov, nv) {
		add(Change{Kind: "default-changed", Path: join(path, "default"), Before: short(ov), After: short(nv),
			Message: fmt.Sprintf("the default of %s changed", path)})
	}
	compareType(cs, path, o, n, d)
	compareEnum(cs, path, o, n, d)
	compareConstraints(cs, path, o, n, d)
	compareAdditional(cs, path, o, n, d, depth)
	compareProperties(cs, path, o, n, d, depth)
	if oi, ok := o["items"].(map[string]any); ok {
		if ni, ok := n["items"].(map[string]any); ok {
			walk(cs, join(path, "items"), oi, ni, d, depth+1)
		}
	} else if !equal(o["items"], n["items"]) {
		add(unclassified(path, "items", o["items"], n["items"]))
	}
	// Everything else: said, not judged.
	keys := map[string]bool{}
	for k := range o {
		keys[k] = true
	}
	for k := range n {
		keys[k] = true
	}
	var other []string
	for k := range keys {
		if !handled[k] && !equal(o[k], n[k]) {
			other = append(other, k)
		}
	}
	sort.Strings(other)
	for _, k := range other {
		add(unclassified(path, k, o[k], n[k]))
	}
}

func unclassified(path, k string, ov, nv any) Change {
	return Change{Kind: "schema-changed", Path: join(path, k), Before: short(ov), After: short(nv),
		Message: fmt.Sprintf("%s changed; mcpscope does not classify %s, review the diff", join(path, k), k)}
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func equal(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return canonical(a) == canonical(b)
}

// typeSet reads "type" (a string or a list); nil means any type.
func typeSet(s map[string]any) map[string]bool {
	switch v := s["type"].(type) {
	case string:
		return map[string]bool{v: true}
	case []any:
		m := map[string]bool{}
		for _, x := range v {
			if t, ok := x.(string); ok {
				m[t] = true
			}
		}
		return m
	}
	return nil
}

// subset reports whether every value of type set a is allowed by type set b (nil: any).
func subset(a, b map[string]bool) bool {
	if b == nil {
		return true
	}
	if a == nil {
		return false
	}
	for t := range a {
		if !b[t] && !(t == "integer" && b["number"]) {
			return false
		}
	}
	return true
}

func typeText(s map[string]bool) string {
	if s == nil {
		return "any"
	}
	var l []string
	for t := range s {
		l = append(l, t)
	}
	sort.Strings(l)
	return strings.Join(l, "|")
}

func compareType(cs *[]Change, path string, o, n map[string]any, d direction) {
	ot, nt := typeSet(o), typeSet(n)
	a, b := subset(nt, ot), subset(ot, nt) // a: new within old (narrowed); b: old within new (widened)
	if a && b {
		return
	}
	c := Change{Path: join(path, "type"), Before: typeText(ot), After: typeText(nt)}
	switch {
	case a:
		c.Kind, c.Breaking = "type-narrowed", d.breaking(true)
		c.Message = fmt.Sprintf("the type of %s was narrowed from %s to %s", path, c.Before, c.After)
	case b:
		c.Kind, c.Breaking = "type-widened", d.breaking(false)
		c.Message = fmt.Sprintf("the type of %s was widened from %s to %s", path, c.Before, c.After)
	default:
		c.Kind, c.Breaking = "type-changed", true
		c.Message = fmt.Sprintf("the type of %s changed from %s to %s", path, c.Before, c.After)
	}
	*cs = append(*cs, c)
}

// enumSet reads enum (or const as an enum of one); ok false means any value.
func enumSet(s map[string]any) (vals map[string]bool, order []string, ok bool) {
	var list []any
	if e, has := s["enum"].([]any); has {
		list = e
	} else if c, has := s["const"]; has {
		list = []any{c}
	} else {
		return nil, nil, false
	}
	vals = map[string]bool{}
	for _, v := range list {
		k := short(v)
		if !vals[k] {
			vals[k] = true
			order = append(order, k)
		}
	}
	return vals, order, true
}

func compareEnum(cs *[]Change, path string, o, n map[string]any, d direction) {
	ov, oo, ok1 := enumSet(o)
	nv, no, ok2 := enumSet(n)
	switch {
	case !ok1 && !ok2:
		return
	case !ok1:
		*cs = append(*cs, Change{Kind: "enum-added", Path: join(path, "enum"), Breaking: d.breaking(true), After: strings.Join(no, ", "),
			Message: fmt.Sprintf("%s is now limited to %s", path, strings.Join(no, ", "))})
		return
	case !ok2:
		*cs = append(*cs, Change{Kind: "enum-removed", Path: join(path, "enum"), Breaking: d.breaking(false), Before: strings.Join(oo, ", "),
			Message: fmt.Sprintf("%s is no longer limited to a list of values", path)})
		return
	}
	for _, v := range oo {
		if !nv[v] {
			*cs = append(*cs, Change{Kind: "enum-value-removed", Path: join(path, "enum"), Breaking: d.breaking(true), Before: v,
				Message: fmt.Sprintf("value %s of %s was removed", v, path)})
		}
	}
	for _, v := range no {
		if !ov[v] {
			*cs = append(*cs, Change{Kind: "enum-value-added", Path: join(path, "enum"), Breaking: d.breaking(false), After: v,
				Message: fmt.Sprintf("value %s of %s was added", v, path)})
		}
	}
}

var lowerBounds = []string{"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"}
var upperBounds = []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"}

func compareConstraints(cs *[]Change, path string, o, n map[string]any, d direction) {
	emit := func(k string, narrowed bool, ov, nv any) {
		c := Change{Path: join(path, k), Before: short(ov), After: short(nv), Breaking: d.breaking(narrowed)}
		if narrowed {
			c.Kind = "constraint-tightened"
			c.Message = fmt.Sprintf("%s of %s was tightened (%s → %s)", k, path, orNone(c.Before), orNone(c.After))
		} else {
			c.Kind = "constraint-loosened"
			c.Message = fmt.Sprintf("%s of %s was loosened (%s → %s)", k, path, orNone(c.Before), orNone(c.After))
		}
		*cs = append(*cs, c)
	}
	bound := func(k string, lower bool) {
		ov, ohas := o[k].(float64)
		nv, nhas := n[k].(float64)
		switch {
		case !ohas && !nhas:
			if !equal(o[k], n[k]) { // a draft-04 boolean exclusiveMinimum, say
				*cs = append(*cs, unclassified(path, k, o[k], n[k]))
			}
		case !ohas:
			emit(k, true, nil, nv)
		case !nhas:
			emit(k, false, ov, nil)
		case ov != nv:
			emit(k, (nv > ov) == lower, ov, nv)
		}
	}
	for _, k := range lowerBounds {
		bound(k, true)
	}
	for _, k := range upperBounds {
		bound(k, false)
	}
	for _, k := range []string{"pattern", "format", "multipleOf"} {
		ov, nv := o[k], n[k]
		if equal(ov, nv) {
			continue
		}
		// Added or changed: fewer values pass (as far as anyone can tell); removed: more.
		emit(k, nv != nil, ov, nv)
	}
	if ou, nu := o["uniqueItems"] == true, n["uniqueItems"] == true; ou != nu {
		emit("uniqueItems", nu, o["uniqueItems"], n["uniqueItems"])
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func compareAdditional(cs *[]Change, path string, o, n map[string]any, d direction, depth int) {
	ov, nv := o["additionalProperties"], n["additionalProperties"]
	if ov == nil {
		ov = true // absent: open
	}
	if nv == nil {
		nv = true
	}
	if equal(ov, nv) {
		return
	}
	closed := func(v any) bool { b, ok := v.(bool); return ok && !b }
	k := join(path, "additionalProperties")
	switch {
	case !closed(ov) && closed(nv):
		*cs = append(*cs, Change{Kind: "additional-properties-closed", Path: k, Breaking: d.breaking(true), Before: orNone(short(ov)), After: "false",
			Message: fmt.Sprintf("%s no longer accepts properties it does not list", path)})
	case closed(ov) && !closed(nv):
		*cs = append(*cs, Change{Kind: "additional-properties-opened", Path: k, Breaking: d.breaking(false), Before: "false", After: orNone(short(nv)),
			Message: fmt.Sprintf("%s now accepts properties it does not list", path)})
	default:
		om, ok1 := ov.(map[string]any)
		nm, ok2 := nv.(map[string]any)
		if ok1 && ok2 {
			walk(cs, k, om, nm, d, depth+1)
		} else {
			*cs = append(*cs, unclassified(path, "additionalProperties", ov, nv))
		}
	}
}

func requiredSet(s map[string]any) map[string]bool {
	m := map[string]bool{}
	if l, ok := s["required"].([]any); ok {
		for _, x := range l {
			if r, ok := x.(string); ok {
				m[r] = true
			}
		}
	}
	return m
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func compareProperties(cs *[]Change, path string, o, n map[string]any, d direction, depth int) {
	op, _ := o["properties"].(map[string]any)
	np, _ := n["properties"].(map[string]any)
	oreq, nreq := requiredSet(o), requiredSet(n)
	top := depth == 0 && d == input
	noun := "property"
	if top {
		noun = "parameter"
	}
	add := func(c Change) { *cs = append(*cs, c) }
	for _, name := range sortedKeys(op) {
		p := join(join(path, "properties"), name)
		nsub, ok := np[name]
		if !ok {
			c := Change{Path: p, Breaking: true, Before: short(op[name])}
			if d == input {
				c.Kind = "param-removed"
				c.Message = fmt.Sprintf("%s %q was removed (%s)", noun, name, path)
				if top {
					c.Message = fmt.Sprintf("parameter %q was removed", name)
				}
			} else {
				c.Kind = "output-property-removed"
				c.Message = fmt.Sprintf("output property %q was removed (%s)", name, path)
			}
			add(c)
			continue
		}
		switch {
		case d == input && !oreq[name] && nreq[name]:
			add(Change{Kind: "param-made-required", Path: p, Breaking: true,
				Message: fmt.Sprintf("%s %q is now required", noun, name)})
		case d == input && oreq[name] && !nreq[name]:
			add(Change{Kind: "param-made-optional", Path: p,
				Message: fmt.Sprintf("%s %q is now optional", noun, name)})
		case d == output && oreq[name] && !nreq[name]:
			add(Change{Kind: "output-property-made-optional", Path: p, Breaking: true,
				Message: fmt.Sprintf("output property %q may now be missing", name)})
		case d == output && !oreq[name] && nreq[name]:
			add(Change{Kind: "output-property-made-required", Path: p,
				Message: fmt.Sprintf("output property %q is now always present", name)})
		}
		om, ok1 := op[name].(map[string]any)
		nm, ok2 := nsub.(map[string]any)
		if ok1 && ok2 {
			walk(cs, p, om, nm, d, depth+1)
		} else if !equal(op[name], nsub) {
			add(unclassified(join(path, "properties"), name, op[name], nsub))
		}
	}
	for _, name := range sortedKeys(np) {
		if _, ok := op[name]; ok {
			continue
		}
		p := join(join(path, "properties"), name)
		c := Change{Path: p, After: short(np[name])}
		switch {
		case d == input && nreq[name]:
			c.Kind, c.Breaking = "param-added-required", true
			c.Message = fmt.Sprintf("new required %s %q: calls without it fail", noun, name)
		case d == input:
			c.Kind = "param-added"
			c.Message = fmt.Sprintf("new optional %s %q", noun, name)
		default:
			c.Kind = "output-property-added"
			c.Message = fmt.Sprintf("new output property %q", name)
		}
		add(c)
	}
	// required naming a property that properties does not list (or no properties at all).
	for _, r := range sortedSet(nreq) {
		if _, listed := np[r]; listed || oreq[r] {
			continue
		}
		if _, wasListed := op[r]; wasListed {
			continue
		}
		if d == input {
			add(Change{Kind: "param-added-required", Path: join(path, "required"), Breaking: true, After: r,
				Message: fmt.Sprintf("%q is now required", r)})
		}
	}
	for _, r := range sortedSet(oreq) {
		if _, listed := op[r]; listed || nreq[r] {
			continue
		}
		if _, nowListed := np[r]; nowListed {
			continue
		}
		if d == output {
			add(Change{Kind: "output-property-made-optional", Path: join(path, "required"), Breaking: true, Before: r,
				Message: fmt.Sprintf("output property %q may now be missing", r)})
		} else {
			add(Change{Kind: "param-made-optional", Path: join(path, "required"), Before: r,
				Message: fmt.Sprintf("%q is no longer required", r)})
		}
	}
}

func sortedSet(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
