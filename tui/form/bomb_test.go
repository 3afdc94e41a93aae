package form

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
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

// useHostile does what a user does with a form: look, move, type, load a
// value, validate, flip to raw JSON and back. It returns the views drawn.
func useHostile(f *Form) []string {
	var views []string
	views = append(views, f.View(80, 24))
	press(f, "down", "right", "down", "x", "ctrl+n")
	typeText(f, "12")
	v, _ := f.Value()
	_ = f.SetValue(v)
	_ = f.SetValue([]byte(`{"a":{"k":{"k":{"k":{"k":{"k":{"k":1}}}}}}}`))
	f.Validate()
	f.ToggleRaw()
	f.ToggleRaw()
	return append(views, f.View(80, 24))
}

// countNodes counts the form fields built so far.
func countNodes(n *node) int {
	if n == nil {
		return 0
	}
	c := 1
	for _, k := range n.props {
		c += countNodes(k)
	}
	for _, k := range n.items {
		c += countNodes(k)
	}
	for _, k := range n.vkids {
		c += countNodes(k)
	}
	return c
}

// TestHostileSchemasStayBounded: a server's schema can never stall the UI. What is
// built stays within the node budget however the schema multiplies (how fast that
// is, is BenchmarkHostileSchemas' business), and the form stays usable.
func TestHostileSchemasStayBounded(t *testing.T) {
	for name, s := range hostileSchemas() {
		t.Run(name, func(t *testing.T) {
			f := mustNew(t, s)
			var views []string
			testutil.Within(t, "the form on the "+name+" schema", func() { views = useHostile(f) })
			for _, v := range views {
				lines := strings.Split(v, "\n")
				if len(lines) > 24 {
					t.Errorf("the view has %d lines, want at most 24", len(lines))
				}
				if strings.TrimSpace(v) == "" {
					t.Error("the view is empty")
				}
			}
			checkView(t, f, 80, 24)
			// New, the array item added and the variant chosen each get their own
			// budget; nothing else may build fields.
			if n := countNodes(f.root); n > 3*maxNodes {
				t.Errorf("%d fields built, want at most %d", n, 3*maxNodes)
			}
		})
	}
}

// BenchmarkHostileSchemas: the cost of building and using a form for each hostile
// schema (it used to be a 3 s budget in a test, which -race on a loaded machine
// broke):
//
//	go test -run '^$' -bench HostileSchemas -benchtime 3x ./tui/form
func BenchmarkHostileSchemas(b *testing.B) {
	for name, s := range hostileSchemas() {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				useHostile(mustNew(b, s))
			}
		})
	}
}
