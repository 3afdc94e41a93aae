package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/target"
)

// Keys are matched through bindings (key.Matches), never by their names, so that the
// help shows every key a view handles and a binding changed in one place changes
// everywhere. This keeps new code to it.
func TestNoRawKeyMatching(t *testing.T) {
	raw := regexp.MustCompile(`(^|[^.\w])(k|m|msg|key)\.(String|Keystroke)\(\)`)
	for _, dir := range []string{".", "form"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(b), "\n") {
				if raw.MatchString(line) {
					t.Errorf("%s:%d matches a key by its name: %s", f, i+1, strings.TrimSpace(line))
				}
			}
		}
	}
}

// History is a windowed list: with more calls than fit, end (G) shows the oldest
// call and l (like →) opens its result. Before History shared the list type, the
// cursor could move below the screen, out of sight.
func TestHistoryScrollsToTheOldestCall(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"mcpscope":"recording","version":1,"started":"2026-01-01T00:00:00Z","target":{"transport":"stdio","argv":["x"]}}` + "\n")
	const calls = 60
	for i := range calls {
		fmt.Fprintf(&b, `{"t":%d,"dir":"send","msg":{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"count","arguments":{"n":%d}}}}`+"\n", i+1, i+1, i)
		fmt.Fprintf(&b, `{"t":%d.5,"dir":"recv","msg":{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"answer number %d"}]}}}`+"\n", i+1, i+1, i)
	}
	b.WriteString(`{"t":99,"kind":"end"}` + "\n")
	file := filepath.Join(t.TempDir(), "many.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	rec, err := record.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, Options{
		Target: target.Target{Argv: []string{testutil.Mcpscope(t), "serve", file}},
		Name:   "recording", Theme: "dark", Browse: rec,
	}, 100, 24)
	h.until("the failure", func(m *model) bool { return m.srv.state() == stateFailed })
	h.press("6")
	h.contains(`{"n":59}`)
	h.press("G")
	h.contains(`› HH:MM:SS`, `{"n":0}`)
	h.press("l")
	h.contains("answer number 0")
	if h.m.tab != tabResult {
		t.Errorf("l did not open the Result tab")
	}
	h.press("6", "g", "pgdown")
	if c := h.m.hist.cursor; c < 5 || c >= calls-1 {
		t.Errorf("pgdown moved the History cursor to %d", c)
	}
	h.contains(fmt.Sprintf(`{"n":%d}`, calls-1-h.m.hist.cursor))
}

// keyNamed is the key press whose name (String) is name, for any name a binding
// uses: "ctrl+home", "alt+left", "shift+pgup", "G". It fails the test rather than
// press another key than the one named.
func keyNamed(t *testing.T, name string) tea.KeyPressMsg {
	t.Helper()
	codes := map[string]rune{
		"enter": tea.KeyEnter, "tab": tea.KeyTab, "esc": tea.KeyEscape, "up": tea.KeyUp, "down": tea.KeyDown,
		"left": tea.KeyLeft, "right": tea.KeyRight, "home": tea.KeyHome, "end": tea.KeyEnd, "pgup": tea.KeyPgUp,
		"pgdown": tea.KeyPgDown, "backspace": tea.KeyBackspace, "delete": tea.KeyDelete, "space": tea.KeySpace,
		"f1": tea.KeyF1,
	}
	var kp tea.KeyPressMsg
	parts := strings.Split(name, "+")
	if name == "+" {
		parts = []string{"+"}
	}
	for _, mod := range parts[:len(parts)-1] {
		switch mod {
		case "ctrl":
			kp.Mod |= tea.ModCtrl
		case "alt":
			kp.Mod |= tea.ModAlt
		case "shift":
			kp.Mod |= tea.ModShift
		default:
			t.Fatalf("key %q: unknown modifier %q", name, mod)
		}
	}
	last := parts[len(parts)-1]
	if c, ok := codes[last]; ok {
		kp.Code = c
		if last == "space" && kp.Mod == 0 {
			kp.Text = " "
		}
	} else {
		r := []rune(last)
		kp.Code = r[0]
		if kp.Mod == 0 {
			kp.Text = last
		}
	}
	if kp.String() != name {
		t.Fatalf("key %q: made a press named %q", name, kp.String())
	}
	return kp
}

// Every key a view's help lists is routed: pressing it reaches the binding the help
// shows (the same table, the same key), or the help says why it does nothing now,
// or (a key listed without a handler: ctrl+r, : and L, which mean the same
// everywhere) something before the views takes it. The help and the routing come
// from one table per view, so this walks each tab's table in the states it has.
func TestEveryListedKeyIsRouted(t *testing.T) {
	h := ready(t, 120, 40)
	seen := map[tab]bool{}
	check := func(state string) {
		t.Helper()
		table := h.m.viewKeys()
		if table.name == "" {
			t.Fatalf("%s: no key table", state)
		}
		if h.m.focus == paneRight && !h.m.list.filtering {
			seen[h.m.tab] = true
		}
		listed := 0
		for _, g := range table.groups {
			for _, b := range g {
				if b.hidden || len(b.Keys()) == 0 {
					continue
				}
				listed++
				// The first key, and every other the help names ("←/ctrl+b"): each
				// must reach this binding, not one listed before it with that key.
				keys := []string{b.Keys()[0]}
				for _, k := range b.Keys()[1:] {
					if slices.Contains(strings.Split(b.Help().Key, "/"), k) {
						keys = append(keys, k)
					}
				}
				for _, name := range keys {
					var got routedKey
					h.m.probe = &got
					h.m.onKey(keyNamed(t, name)) // routed, not run: only where the key goes matters
					h.m.probe = nil
					// A key caught before the views may have opened a dialog: close it.
					h.m.dialogs, h.m.notice = overlay{}, ""
					what := fmt.Sprintf("%s (%s): %q (%s) %s", state, table.name, b.Help().Key, name, b.Help().Desc)
					switch {
					case b.do == nil:
						if got != (routedKey{}) {
							t.Errorf("%s is listed as caught before the views, but reached %+v", what, got)
						}
					case got.table == table.name && got.to != "" && got.to == b.to:
						// Handed to the form, which decides what the key does there.
					case got.table != table.name || got.key != b.Help().Key:
						t.Errorf("%s did not reach its binding: went to %+v", what, got)
					case got.off != "" && !helpSays(table, got.off):
						t.Errorf("%s does nothing (%s) and the help does not say why", what, got.off)
					}
				}
			}
		}
		if listed == 0 {
			t.Errorf("%s (%s) lists no key", state, table.name)
		}
	}
	open := func(tb tab) { h.m.openTab(tb); h.m.focus = paneRight }

	check("the tool list")
	h.press("/")
	check("the tool filter")
	h.press("esc")
	h.selectTool("rich_form")
	h.press("enter")
	check("the form")
	h.press("ctrl+j")
	check("the raw JSON")
	h.press("ctrl+j", "esc", "v", "tab") // the raw JSON of the tool, with the keys
	check("the tool detail")
	h.press("v", "esc")

	h.press("2")
	check("Result with no call")
	h.press("3")
	check("Traffic")
	h.press("enter")
	check("a traffic frame")
	h.press("esc", "/")
	check("the traffic search")
	h.press("esc", "4")
	check("Logs")
	h.press("/")
	check("the logger filter")
	h.press("esc", "l")
	check("the level picker")
	h.press("esc", "5")
	check("Stderr")
	h.press("6")
	check("History")
	h.press("/")
	check("the history search")
	h.press("esc")
	h.m.hist.naming = true // setup: naming needs a marked call
	check("a collection's name")
	h.m.hist.naming = false
	open(tabServers)
	check("Servers")

	h.press("8")
	h.until("the resources", func(m *model) bool { m.resourcesKeys(); _, ok := m.res.selected(); return ok && len(m.res.rows) > 0 })
	check("Resources")
	h.press("/")
	check("the resource filter")
	h.press("esc", "enter")
	check("a resource or a template")

	h.press("9")
	h.until("the prompts", func(m *model) bool { _, ok := m.prompts.selected(); return ok })
	check("Prompts")
	h.press("/")
	check("the prompt filter")
	h.press("esc", "enter")
	if h.m.prompts.open == nil {
		t.Fatal("enter opened no prompt")
	}
	check("a prompt's arguments")

	for _, tb := range []tab{tabTasks, tabSkills, tabChanges, tabAuth, tabLint, tabBench} {
		open(tb)
		check(tb.String())
	}
	for tb := range tabCount {
		if !seen[tb] {
			t.Errorf("the %s tab's table was not walked", tb.String())
		}
	}
}

// helpSays reports whether the help of t says why: a listed key's words hold it.
func helpSays(t keyTable, why string) bool {
	for _, g := range t.help() {
		for _, b := range g {
			if strings.Contains(b.Help().Desc, why) {
				return true
			}
		}
	}
	return false
}

// No key in the help of a server's request for input names a key a binding before
// it takes: the form's "home/ctrl+a start of the text" sat under "enter/ctrl+a
// accept", and ctrl+a accepts.
func TestElicitationHelpNamesNoTakenKey(t *testing.T) {
	h := ready(t, 120, 40)
	reply := make(chan client.ElicitResponse, 1)
	h.update(elicitMsg{id: -1, server: "bundled host", reply: reply, req: client.ElicitRequest{Message: "Your name, please?",
		Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","title":"Name"}}}`)}})
	h.contains("Your name, please?")
	// The dialog's own keys come first and are taken before the form's (which
	// decides among its own by the field: backspace unsets a choice, deletes text).
	_, groups := h.m.focusedHelp()
	taken := map[string]string{}
	for _, b := range groups[0] {
		for _, k := range b.Keys() {
			taken[k] = b.Help().Desc
		}
	}
	for _, g := range groups[1:] {
		for _, b := range g {
			for _, shown := range strings.Split(b.Help().Key, "/") {
				if by, ok := taken[shown]; ok {
					t.Errorf("the help names %s for %q, but %q takes it first", shown, b.Help().Desc, by)
				}
			}
		}
	}
	h.press("esc")
}
