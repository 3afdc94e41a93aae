package form

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func editorForm(t *testing.T) *Form {
	return mustNew(t, `{"type":"object","properties":{"s":{"type":"string"}}}`)
}

func text(f *Form) string { return f.root.props[0].ed.text }

func TestEditorKeys(t *testing.T) {
	cases := []struct {
		name  string
		typed string
		keys  []string
		more  string
		want  string
	}{
		{"combining mark stays with its letter", "cafe\u0301", []string{"backspace"}, "", "caf"},
		{"left over a combining cluster", "cafe\u0301", []string{"left"}, "X", "cafXe\u0301"},
		{"flag emoji is one cluster", "a🇫🇷b", []string{"left", "backspace"}, "", "ab"},
		{"ZWJ family is one cluster", "👨‍👩‍👧x", []string{"home", "delete"}, "", "x"},
		{"ctrl+w deletes a word", "hello big world", []string{"ctrl+w"}, "", "hello big "},
		{"alt+left moves by word", "hello big world", []string{"alt+left", "alt+left"}, "_", "hello _big world"},
		{"ctrl+k kills to the end", "hello world", []string{"home", "alt+right", "ctrl+k"}, "", "hello"},
		{"ctrl+u kills to the start", "hello world", []string{"left", "ctrl+u"}, "", "d"},
		{"ctrl+a and ctrl+e", "bc", []string{"ctrl+a"}, "a", "abc"},
		{"delete at the end does nothing", "ab", []string{"delete", "right"}, "", "ab"},
		{"backspace at the start does nothing", "ab", []string{"home", "backspace"}, "", "ab"},
		{"ctrl+d outside arrays deletes forward", "ab", []string{"home", "ctrl+d"}, "", "b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := editorForm(t)
			typeText(f, c.typed)
			press(f, c.keys...)
			typeText(f, c.more)
			if got := text(f); got != c.want {
				t.Errorf("text %q, want %q", got, c.want)
			}
			checkView(t, f, 80, 3)
		})
	}
}

// TestEditorScrollsHorizontally: a long value keeps the cursor in view.
func TestEditorScrollsHorizontally(t *testing.T) {
	f := editorForm(t)
	long := strings.Repeat("0123456789", 20) + "END"
	typeText(f, long)
	v := ansi.Strip(checkView(t, f, 40, 3))
	if !strings.Contains(v, "END") {
		t.Errorf("end of the text not shown while the cursor is there:\n%s", v)
	}
	press(f, "home")
	v = ansi.Strip(checkView(t, f, 40, 3))
	if !strings.Contains(v, "01234") || strings.Contains(v, "END") {
		t.Errorf("start of the text not shown after home:\n%s", v)
	}
	// wide characters scroll by whole cells
	f = editorForm(t)
	typeText(f, strings.Repeat("世界", 40))
	for w := 10; w < 30; w++ {
		checkView(t, f, w, 2)
	}
}

// TestEditorControlCharacters: what a terminal must not interpret is shown
// as symbols, and kept in the value (a pasted \r\n is a newline).
func TestEditorControlCharacters(t *testing.T) {
	f := editorForm(t)
	update(f, tea.PasteMsg{Content: "a\x1b[31mb\tc\r\nd\x00\u009b2J\u202e"})
	out := f.View(80, 3)
	if strings.Contains(out, "\x1b[31m") || strings.Contains(out, "\x00") || strings.Contains(out, "\t") ||
		strings.Contains(out, "\u009b") || strings.Contains(out, "\u202e") {
		t.Errorf("control characters reach the terminal: %q", out)
	}
	if view := ansi.Strip(out); !strings.Contains(view, "a␛[31mb⇥c↵d␀\\u009b2J\\u202e") {
		t.Errorf("control characters are not shown:\n%s", view)
	}
	if got := text(f); got != "a\x1b[31mb\tc\nd\x00\u009b2J\u202e" {
		t.Errorf("text %q", got)
	}
	v, _ := f.Value()
	if !sameJSON(t, v, []byte(`{"s":"a\u001b[31mb\tc\nd\u0000\u009b2J\u202e"}`)) {
		t.Errorf("value %s", v)
	}
	// The raw JSON editor gets C1 and bidi controls as escapes, not as runes.
	f.ToggleRaw()
	if raw := f.View(80, 5); strings.Contains(raw, "\u009b") || strings.Contains(raw, "\u202e") ||
		!strings.Contains(ansi.Strip(raw), `\u009b2J\u202e`) {
		t.Errorf("the raw editor shows %q", raw)
	}
}

// TestPastedLineBreaks: a terminal sends a pasted line break as \r; the value
// gets \n.
func TestPastedLineBreaks(t *testing.T) {
	f := editorForm(t)
	f.Update(tea.PasteMsg{Content: "one\rtwo\r\nthree\n"})
	if got := text(f); got != "one\ntwo\nthree\n" {
		t.Errorf("text %q", got)
	}
	// The raw JSON editor too: one line break each, not two for \r\n.
	f = editorForm(t)
	f.ToggleRaw()
	f.Update(tea.PasteMsg{Content: "{\r\n\"s\": \"x\"\r}"})
	if got := f.ta.Value(); !strings.HasPrefix(got, "{\n\"s\": \"x\"\n}") || strings.Contains(got, "\n\n") {
		t.Errorf("raw editor holds %q", got)
	}
}
