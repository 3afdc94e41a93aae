package form

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// keyMsg builds the key press a terminal would deliver for a key name as
// Bubble Tea spells it ("tab", "shift+tab", "ctrl+n", "alt+up", "space").
func keyMsg(name string) tea.KeyPressMsg {
	var mod tea.KeyMod
	for {
		switch {
		case strings.HasPrefix(name, "ctrl+") && len(name) > 5:
			mod |= tea.ModCtrl
			name = name[5:]
			continue
		case strings.HasPrefix(name, "alt+") && len(name) > 4:
			mod |= tea.ModAlt
			name = name[4:]
			continue
		case strings.HasPrefix(name, "shift+") && len(name) > 6:
			mod |= tea.ModShift
			name = name[6:]
			continue
		}
		break
	}
	codes := map[string]rune{
		"tab": tea.KeyTab, "enter": tea.KeyEnter, "esc": tea.KeyEscape,
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
		"home": tea.KeyHome, "end": tea.KeyEnd, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
		"backspace": tea.KeyBackspace, "delete": tea.KeyDelete, "space": tea.KeySpace,
	}
	if c, ok := codes[name]; ok {
		k := tea.KeyPressMsg{Code: c, Mod: mod}
		if c == tea.KeySpace && mod == 0 {
			k.Text = " "
		}
		return k
	}
	r := []rune(name)
	if len(r) != 1 {
		panic("keyMsg: unknown key " + name)
	}
	return tea.KeyPressMsg{Code: r[0], Mod: mod}
}

// press sends named keys.
func press(f *Form, keys ...string) {
	for _, k := range keys {
		update(f, keyMsg(k))
	}
}

// The tests check after each key; the form's check after edits is due at once.
func init() { debounce = 0 }

// update sends a message and runs the commands it returns to the end, as the owner
// of the form would (the form's own messages go back to it).
func update(f *Form, msg tea.Msg) {
	run(f.Update(msg))
}

func run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch m := cmd().(type) {
	case Msg:
		run(Handle(m))
	case tea.BatchMsg:
		for _, c := range m {
			run(c)
		}
	}
}

// typeText types s one character at a time, as a terminal delivers it.
func typeText(f *Form, s string) {
	for _, r := range s {
		if r == ' ' {
			update(f, tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
			continue
		}
		update(f, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// focusOn moves focus down (wrapping to the top first) until the focused
// field is path.
func focusOn(t *testing.T, f *Form, path string) {
	t.Helper()
	for _, dir := range []string{"down", "up"} {
		for range 500 {
			if f.Focused() == path {
				return
			}
			before := f.fidx
			update(f, keyMsg(dir))
			if f.fidx == before {
				break
			}
		}
	}
	t.Fatalf("cannot focus %q; last focus %q\n%s", path, f.Focused(), ansi.Strip(f.View(80, 200)))
}

func mustNew(t testing.TB, schema string) *Form {
	t.Helper()
	f, err := New(json.RawMessage(schema))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return f
}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameJSON compares two JSON texts by value.
func sameJSON(t testing.TB, got, want []byte) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got is not JSON: %v: %s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("want is not JSON: %v: %s", err, want)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	return string(gb) == string(wb)
}
