package form

import (
	"encoding/json"
	"runtime"
	"testing"
)

// A form holds no raw text area until raw mode opens, and drops it when raw mode
// closes: the workbench keeps a form for every tool the user visited, and a text
// area holds about 240 KiB from its start. 100 small forms held 24 MiB before.
func TestFormsHoldNoTextAreaUntilRaw(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"string"}}}`)
	held := func(build func() *Form) uint64 {
		const n = 100
		forms := make([]*Form, 0, n)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range n {
			forms = append(forms, build())
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(forms)
		return (after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)) / n
	}
	fresh := held(func() *Form {
		f, err := New(schema)
		if err != nil {
			t.Fatal(err)
		}
		return f
	})
	if fresh > 64<<10 {
		t.Errorf("a form of two fields holds %d KiB", fresh>>10)
	}
	back := held(func() *Form {
		f, _ := New(schema)
		f.ToggleRaw()
		f.ToggleRaw()
		return f
	})
	if back > 64<<10 {
		t.Errorf("a form back from raw mode holds %d KiB", back>>10)
	}
	f, _ := New(schema)
	f.ToggleRaw() // and the text area is there when raw mode is open
	if !f.Raw() || f.View(60, 10) == "" {
		t.Fatalf("raw mode did not open: raw %v", f.Raw())
	}
}
