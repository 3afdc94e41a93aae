package tui

import (
	"encoding/json"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
)

// FuzzKeys presses arbitrary key sequences on a workbench with tools, a result and
// traffic, and draws after each key: whatever the user types, no panic.
func FuzzKeys(f *testing.F) {
	f.Add([]byte("/ech\r\t\t1234567[]?q"), uint8(80), uint8(24))
	f.Add([]byte("\x1b\x1b\x1bvvyYcso6e\r"), uint8(120), uint8(40))
	f.Add([]byte("\t/zzz\x7f\x7f\x7f\r\r\r\x0a"), uint8(40), uint8(10))
	keys := []tea.KeyPressMsg{
		{Code: tea.KeyEnter}, {Code: tea.KeyTab}, {Code: tea.KeyTab, Mod: tea.ModShift}, {Code: tea.KeyEscape},
		{Code: tea.KeyUp}, {Code: tea.KeyDown}, {Code: tea.KeyPgDown}, {Code: tea.KeyPgUp}, {Code: tea.KeyBackspace},
		{Code: tea.KeyEnter, Mod: tea.ModAlt}, {Code: 'j', Mod: tea.ModCtrl}, {Code: tea.KeyLeft}, {Code: tea.KeyRight},
		{Code: 'n', Mod: tea.ModCtrl}, {Code: 'd', Mod: tea.ModCtrl}, {Code: 't', Mod: tea.ModCtrl}, {Code: tea.KeySpace, Text: " "},
	}
	f.Fuzz(func(t *testing.T, input []byte, w, h uint8) {
		m := newModel(Options{Theme: "dark", SaveDir: t.TempDir()})
		m.send = func(tea.Msg) {}
		m.Update(tea.WindowSizeMsg{Width: int(w), Height: int(h)})
		setReady(m.srv)
		m.list.setTools([]client.Tool{
			{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
			{Name: "rich", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1},"tags":{"type":"array","items":{"type":"string","enum":["a","b"]}},"o":{"oneOf":[{"type":"string"},{"type":"object","properties":{"x":{"type":"number"}}}]}}}`)},
			{Name: "wipe", Annotations: client.Annotations{Present: true, Destructive: client.Hint{Set: true, Value: true}}},
		})
		m.syncForm()
		r := &client.CallResult{Content: []client.Content{{Type: "text", Text: `{"a":[1,2,{"b":null}]}`}, {Type: "resource_link", URI: "x://y"}}, Raw: json.RawMessage(`{}`)}
		m.calls = []*outcome{{id: 1, tool: client.Tool{Name: "echo"}, args: json.RawMessage(`{"text":"hi"}`), result: r}}
		m.current = m.calls[0]
		m.onWire(nil, nil)
		for _, b := range input {
			var k tea.KeyPressMsg
			if int(b) < len(keys) {
				k = keys[b]
			} else if b >= 32 && b < 127 {
				k = tea.KeyPressMsg{Code: rune(b), Text: string(rune(b))}
			} else {
				k = keys[int(b)%len(keys)]
			}
			if k.String() == "ctrl+c" || k.String() == "ctrl+r" || k.String() == "ctrl+e" {
				continue // these leave the program or start processes
			}
			_, cmd := m.Update(k)
			_ = cmd // commands would reach a server; none is connected here
			_ = m.render()
		}
	})
}
