package form

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// checkView renders f and fails on a line wider than w or more lines than h.
func checkView(t *testing.T, f *Form, w, h int) string {
	t.Helper()
	out := f.View(w, h)
	lines := strings.Split(out, "\n")
	if len(lines) > h {
		t.Errorf("View(%d,%d) has %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw > w {
			t.Errorf("View(%d,%d) line %d is %d wide: %q", w, h, i, lw, ansi.Strip(l))
		}
	}
	return out
}

func TestViewWidths(t *testing.T) {
	var schemas []string
	for _, c := range shapeCases {
		schemas = append(schemas, c.schema)
	}
	for _, tool := range loadEverything(t).Tools {
		schemas = append(schemas, string(tool.InputSchema))
	}
	schemas = append(schemas,
		string(readFile(t, "testdata/elicitation-everything.json")),
		`{"type":"object","properties":{"名前とても長いフィールド名前とても長い":{"type":"string","description":"説明 😀 with a very long description that keeps going and going past any reasonable width"},
			"e":{"enum":["👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽"]},
			"ctl\u001b[31m":{"type":"string","title":"\u001b]52;c;aGk=\u0007tab\there"}},"required":["名前とても長いフィールド名前とても長い"]}`,
	)
	for _, s := range schemas {
		f := mustNew(t, s)
		for _, fill := range []string{"", "世界👍🏽 wide wide wide wide wide wide wide wide wide wide wide wide wide wide wide"} {
			for step := 0; step < 20; step++ {
				if fill != "" {
					typeText(f, fill)
				}
				for _, w := range []int{80, 41, 12, 1} {
					for _, h := range []int{24, 3, 1} {
						checkView(t, f, w, h)
					}
				}
				press(f, "down")
			}
			f.Validate()
			checkView(t, f, 80, 24)
			checkView(t, f, 30, 10)
			f.ToggleRaw()
			checkView(t, f, 80, 24)
			checkView(t, f, 7, 3)
			f.ToggleRaw()
			if f.Raw() {
				t.Fatalf("stuck in raw mode: %s\n%s", f.rawErr, f.ta.Value())
			}
		}
	}
}

// TestViewMarksAndHints: required fields are marked, format hints, bounds
// and defaults are shown, and the description of the focused field.
func TestViewMarksAndHints(t *testing.T) {
	f := mustNew(t, `{"type":"object","properties":{
		"name":{"type":"string","description":"Who to greet"},
		"when":{"type":"string","format":"date-time"},
		"count":{"type":"integer","minimum":1,"maximum":5,"default":2},
		"site":{"type":"string","format":"uri"}},
		"required":["name"]}`)
	view := ansi.Strip(checkView(t, f, 80, 24))
	lines := strings.Split(view, "\n")
	want := []string{"› name*", "Who to greet", "when", "YYYY-MM-DDThh:mm:ssZ", "count", "1–5 · default 2", "site", "https://…"}
	for _, w := range want {
		if !strings.Contains(view, w) {
			t.Errorf("view lacks %q:\n%s", w, view)
		}
	}
	for _, l := range lines {
		if strings.Contains(l, "when*") || strings.Contains(l, "count*") {
			t.Errorf("optional field marked required: %q", l)
		}
	}
	// the description follows the focus
	press(f, "down")
	if view := ansi.Strip(f.View(80, 24)); strings.Contains(view, "Who to greet") {
		t.Errorf("description of an unfocused field shown:\n%s", view)
	}
}

// TestViewScrolls: a form taller than the view keeps the focused field
// visible and says how much is cut off.
func TestViewScrolls(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range 60 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"f` + string(rune('a'+i/26)) + string(rune('a'+i%26)) + `":{"type":"string"}`)
	}
	b.WriteString(`}}`)
	f := mustNew(t, b.String())
	for i := range 60 {
		v := ansi.Strip(checkView(t, f, 40, 10))
		if !strings.Contains(v, "› "+f.Focused()[1:]) {
			t.Fatalf("step %d: focused %s not visible:\n%s", i, f.Focused(), v)
		}
		lines := strings.Split(v, "\n")
		if len(lines) != 10 {
			t.Fatalf("step %d: %d lines", i, len(lines))
		}
		if i > 10 && !strings.Contains(lines[0], "↑") {
			t.Errorf("step %d: no marker for lines above:\n%s", i, v)
		}
		if i < 50 && !strings.Contains(lines[9], "↓") {
			t.Errorf("step %d: no marker for lines below:\n%s", i, v)
		}
		press(f, "down")
	}
	press(f, "pgup", "pgup")
	if v := ansi.Strip(f.View(40, 10)); !strings.Contains(v, "› "+f.Focused()[1:]) {
		t.Errorf("after pgup: focus not visible:\n%s", v)
	}
}
