package validate

import "github.com/santhosh-tekuri/jsonschema/v6"

// Cost counts the schema applications that validating inst against s would take,
// following the validator's own recursion (in-place applicators such as allOf, anyOf,
// oneOf, not, if/then/else, $ref and dependent schemas on the same value; properties,
// items and the like on the value's members), and stops counting at budget. It
// reports the count and whether it stayed within budget. Counting costs at most
// budget steps, whatever the schema: exponential schemas are found out early.
func Cost(s *jsonschema.Schema, inst any, budget int) (int, bool) {
	c := coster{left: budget}
	ok := c.apply(s, inst, nil)
	return budget - c.left, ok && c.left >= 0
}

type coster struct{ left int }

// apply counts s applied to v; stack holds the schemas already applied in place to
// this same value (the validator stops such a loop with an error).
func (c *coster) apply(s *jsonschema.Schema, v any, stack []*jsonschema.Schema) bool {
	if s == nil {
		return true
	}
	c.left--
	if c.left < 0 {
		return false
	}
	if s.Bool != nil {
		return true
	}
	for _, t := range stack {
		if t == s {
			return true
		}
	}
	stack = append(stack, s)
	in := func(t *jsonschema.Schema) bool { return c.apply(t, v, stack) }
	if !in(s.Ref) || !in(s.RecursiveRef) || !in(s.Not) || !in(s.If) || !in(s.Then) || !in(s.Else) {
		return false
	}
	if s.DynamicRef != nil && !in(s.DynamicRef.Ref) {
		return false
	}
	for _, list := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, t := range list {
			if !in(t) {
				return false
			}
		}
	}
	switch v := v.(type) {
	case map[string]any:
		for k := range v {
			if t := s.DependentSchemas[k]; t != nil && !in(t) {
				return false
			}
			if t, ok := s.Dependencies[k].(*jsonschema.Schema); ok && !in(t) {
				return false
			}
		}
		for k, cv := range v {
			if s.PropertyNames != nil && !c.apply(s.PropertyNames, k, nil) {
				return false
			}
			matched := false
			if t := s.Properties[k]; t != nil {
				matched = true
				if !c.apply(t, cv, nil) {
					return false
				}
			}
			for re, t := range s.PatternProperties {
				if re.MatchString(k) {
					matched = true
					if !c.apply(t, cv, nil) {
						return false
					}
				}
			}
			if t, ok := s.AdditionalProperties.(*jsonschema.Schema); ok && !matched && !c.apply(t, cv, nil) {
				return false
			}
			if s.UnevaluatedProperties != nil && !c.apply(s.UnevaluatedProperties, cv, nil) {
				return false
			}
		}
	case []any:
		for i, iv := range v {
			var t *jsonschema.Schema
			switch {
			case i < len(s.PrefixItems):
				t = s.PrefixItems[i]
			case s.Items2020 != nil:
				t = s.Items2020
			}
			switch items := s.Items.(type) {
			case *jsonschema.Schema:
				t = items
			case []*jsonschema.Schema:
				if i < len(items) {
					t = items[i]
				} else if a, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
					t = a
				}
			}
			for _, u := range []*jsonschema.Schema{t, s.Contains, s.UnevaluatedItems} {
				if u != nil && !c.apply(u, iv, nil) {
					return false
				}
			}
		}
	}
	return true
}
