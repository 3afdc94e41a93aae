package form

import (
	"fmt"
	"strings"
	"testing"
)

// hostileSchemas blow up exponentially if expanded naively: allOf of two
// $refs nested 30 deep, anyOf of 21 $refs nested 30 deep, and 10,000 fields.
func hostileSchemas() map[string]string {
	var allOf, anyOf, wide strings.Builder
	allOf.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	anyOf.WriteString(`{"type":"object","properties":{"a":{"$ref":"#/$defs/u0"}},"$defs":{`)
	for i := range 30 {
		fmt.Fprintf(&allOf, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}],"properties":{"x":{"$ref":"#/$defs/d%d"}}},`, i, i+1, i+1, i+1)
		anyOf.WriteString(fmt.Sprintf(`"u%d":{"anyOf":[`, i))
		for range 20 {
			fmt.Fprintf(&anyOf, `{"$ref":"#/$defs/u%d"},`, i+1)
		}
		fmt.Fprintf(&anyOf, `{"type":"object","properties":{"k":{"$ref":"#/$defs/u%d"}}}]},`, i+1)
	}
	allOf.WriteString(`"d30":{"type":"string"}}}`)
	anyOf.WriteString(`"u30":{"type":"integer"}}}`)
	wide.WriteString(`{"type":"object","properties":{`)
	for i := range 100 {
		if i > 0 {
			wide.WriteString(",")
		}
		fmt.Fprintf(&wide, `"p%d":{"type":"object","properties":{`, i)
		for j := range 100 {
			if j > 0 {
				wide.WriteString(",")
			}
			fmt.Fprintf(&wide, `"q%d":{"type":"string"}`, j)
		}
		wide.WriteString(`}}`)
	}
	wide.WriteString(`}}`)
	return map[string]string{"allOf": allOf.String(), "anyOf": anyOf.String(), "wide": wide.String()}
}

// TestHostileSchemasStayFast: a server's schema can never stall the UI: the
// exponential ones are not validated (the cost guard counts their work first), the
// wide one is. Speed itself is measured by the benchmarks.
func TestHostileSchemasStayFast(t *testing.T) {
	for name, s := range hostileSchemas() {
		t.Run(name, func(t *testing.T) {
			f := mustNew(t, s)
			checkView(t, f, 80, 24)
			press(f, "down", "right", "down", "x", "ctrl+n")
			typeText(f, "12")
			v, _ := f.Value()
			_ = f.SetValue(v)
			_ = f.SetValue([]byte(`{"a":{"k":{"k":{"k":{"k":{"k":{"k":1}}}}}}}`))
			errs := f.Validate()
			costly := len(errs) > 0 && strings.Contains(errs[len(errs)-1].Message, "not validated: too costly")
			if costly != (name != "wide") {
				t.Errorf("Validate = %v; the cost guard should stop exactly the exponential schemas", errs)
			}
			f.ToggleRaw()
			f.ToggleRaw()
			checkView(t, f, 80, 24)
		})
	}
}
