package form

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

var fuzzKeys = []string{
	"down", "up", "tab", "shift+tab", "left", "right", "space", "backspace", "delete",
	"home", "end", "ctrl+n", "ctrl+d", "alt+up", "alt+down", "ctrl+t", "ctrl+u", "ctrl+k",
	"ctrl+w", "pgdown", "pgup", "enter", "esc",
}

// FuzzNew builds forms from arbitrary schema bytes and drives keys, View,
// Value, Validate, raw mode and SetValue: none may panic or hang, and no
// line may be wider than the view.
func FuzzNew(f *testing.F) {
	for _, c := range shapeCases {
		f.Add([]byte(c.schema), []byte{0, 5, 11, 0, 30, 6, 1, 12, 14, 2, 15})
	}
	for _, tool := range loadEverything(f).Tools {
		f.Add([]byte(tool.InputSchema), []byte{30, 31, 0, 5, 6})
	}
	f.Add(readFile(f, "testdata/elicitation-everything.json"), []byte{30, 0, 6, 0, 5, 0, 0, 0, 0, 6})
	f.Add(readFile(f, "testdata/elicitation-research.json"), []byte{5, 4, 7})
	for _, s := range []string{
		`{"$ref":"#"}`,
		`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`,
		`{"allOf":[{"$ref":"#"}]}`,
		`{"type":"object","properties":{"a":{"$ref":"#"},"b":{"$ref":"#"},"c":{"$ref":"#"}}}`,
		`{"anyOf":[{"$ref":"#"},{"type":"null"}]}`,
		`{"oneOf":[{"oneOf":[{"oneOf":[{"const":1}]}]}]}`,
		`{"type":["array","object","null"],"items":{"$ref":"#"},"properties":{"x":{"$ref":"#"}}}`,
		`{"properties":{"a":{"properties":{"a":{"properties":{"a":{"properties":{"a":{"properties":{"a":{}}}}}}}}}}}`,
		`{"$id":"https://x.example/s","$defs":{"n":{"$anchor":"n","type":"integer"}},"properties":{"a":{"$ref":"#n"},"b":{"$ref":"https://x.example/s#/$defs/n"}}}`,
		`{"enum":[]}`, `{"oneOf":[]}`, `{"type":[]}`, `{"items":false}`, `{"properties":{"x":false}}`,
		`{"type":"object","required":["a","a"],"properties":{"a":{"type":"integer","default":"x"}}}`,
		`{"$ref":"%"}`, `{"$ref":"#/%zz"}`, `{"$ref":"#/definitions/~2"}`,
		`{"type":"string","pattern":"(a+)+$","format":"regex"}`,
		`null`, `[]`, `"\u001b[2J"`, `{"title":"\u0000\u009b31m","type":"string"}`,
	} {
		f.Add([]byte(s), []byte{0, 1, 2, 5, 6, 11, 12, 13, 15, 30, 31})
	}
	f.Fuzz(func(t *testing.T, schema, keys []byte) {
		fm, err := New(schema)
		if err != nil {
			return
		}
		view := func(w, h int) {
			out := fm.View(w, h)
			lines := strings.Split(out, "\n")
			if len(lines) > h {
				t.Fatalf("View(%d,%d): %d lines", w, h, len(lines))
			}
			for _, l := range lines {
				if ansi.StringWidth(l) > w {
					t.Fatalf("View(%d,%d): line %q is %d wide", w, h, l, ansi.StringWidth(l))
				}
			}
		}
		if len(keys) > 64 {
			keys = keys[:64]
		}
		for i, k := range keys {
			switch {
			case int(k) < len(fuzzKeys):
				fm.Update(keyMsg(fuzzKeys[k]))
			case k == 30:
				fm.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
			case k == 31:
				fm.Update(tea.KeyPressMsg{Code: '1', Text: "1"})
			case k == 32:
				fm.Update(tea.PasteMsg{Content: "{\"p\": [1, \"é\"]}\n"})
			case k == 33:
				fm.ToggleRaw()
			default:
				fm.Update(tea.KeyPressMsg{Code: rune(k), Text: string(rune(k))})
			}
			if !fm.raw {
				// The cached rows are the rows the form has now.
				cached := fm.rows()
				fm.rowsOK = false
				fresh := fm.rows()
				if len(cached) != len(fresh) {
					t.Fatalf("after key %d the cached rows (%d) are stale (%d)", k, len(cached), len(fresh))
				}
				for j := range fresh {
					if cached[j].n != fresh[j].n || cached[j].kind != fresh[j].kind || cached[j].path != fresh[j].path || cached[j].sub != fresh[j].sub {
						t.Fatalf("after key %d cached row %d is stale", k, j)
					}
				}
			}
			if i%8 == 0 {
				view(80, 24)
			}
		}
		view(80, 24)
		view(13, 4)
		v, _ := fm.Value()
		fm.Validate()
		view(80, 24)
		fm.ToggleRaw()
		view(40, 6)
		fm.ToggleRaw()
		_ = fm.SetValue(v)
		_ = fm.Focused()
		view(80, 24)
	})
}
