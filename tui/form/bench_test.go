package form

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// wideSchema is an object of n string properties.
func wideSchema(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","required":["p0"],"properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"p%d":{"type":"string","description":"field %d","minLength":2}`, i, i)
	}
	b.WriteString(`}}`)
	return b.String()
}

// BenchmarkKeystroke10000Properties: one typed character in a form of 10,000
// fields, after a first validation (so errors follow edits), and the frame
// drawn after it.
func BenchmarkKeystroke10000Properties(b *testing.B) {
	f, err := New([]byte(wideSchema(10000)))
	if err != nil {
		b.Fatal(err)
	}
	f.Validate()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
		_ = f.View(80, 20)
	}
}
