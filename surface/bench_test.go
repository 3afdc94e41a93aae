package surface

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcpscope/mcpscope/client"
)

// thousand builds a surface of 1,000 tools from server-everything's real schemas;
// changed edits every tenth tool (a type narrowed, a description edited, a parameter
// added) and renames none.
func thousand(b *testing.B, changed bool) *Surface {
	every := load(b, "everything.json")
	var items []json.RawMessage
	for i := 0; i < 1000; i++ {
		src := every.Tools[i%len(every.Tools)]
		var m map[string]any
		_ = json.Unmarshal(src.Raw, &m)
		m["name"] = fmt.Sprintf("%s-%04d", src.Name, i)
		if changed && i%10 == 0 {
			m["description"] = "edited"
			props := obj(m, "inputSchema", "properties")
			props[fmt.Sprintf("extra%d", i)] = map[string]any{"type": "integer", "minimum": 1}
			if i%20 == 0 {
				obj(m, "inputSchema")["additionalProperties"] = false
			}
		}
		raw, _ := json.Marshal(m)
		items = append(items, raw)
	}
	arr, _ := json.Marshal(items)
	ts, _ := client.DecodeTools(arr)
	return &Surface{Label: "bench", Tools: ts, HasTools: true}
}

// BenchmarkCompare1000: two surfaces of 1,000 tools, 100 of them changed (the
// issue's target: under 100 ms). The diff text of every changed tool is included.
func BenchmarkCompare1000(b *testing.B) {
	old, new := thousand(b, false), thousand(b, true)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := Compare(old, new)
		if len(r.Entries) != 100 {
			b.Fatalf("%d entries", len(r.Entries))
		}
	}
}

// BenchmarkCompare1000Unchanged: the common case after a restart, nothing changed.
func BenchmarkCompare1000Unchanged(b *testing.B) {
	old, new := thousand(b, false), thousand(b, false)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := Compare(old, new); !r.Empty() {
			b.Fatal("changes")
		}
	}
}
