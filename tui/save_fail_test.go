package tui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
)

// Issue 19, item 10: s in Result says the error when the result cannot be written,
// never that it saved. Through the keys: a save directory whose parent is a file.
func TestSaveResultSaysTheError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, Options{Target: hostTarget(t), Name: "bundled host", Theme: "dark", SaveDir: filepath.Join(file, "sub")}, 120, 40)
	h.until("the tools", func(m *model) bool { return len(m.list.tools) > 0 })
	h.selectTool("echo")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"text":"x"}`))
	h.press("enter")
	h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && m.current.result != nil })
	h.press("s")
	h.until("the save", func(m *model) bool { return m.notice != "saving the result…" })
	h.contains("save failed", "not a directory")
	if strings.Contains(h.screen(), "saved ") {
		t.Errorf("a failed save reads as saved:\n%s", h.screen())
	}
}

// The writes inside the new directory: a block or result.json that cannot be
// written is said with its reason (tests run as root, where no directory refuses a
// write, so the write itself fails here).
func TestSaveFilesSaysEveryFailedWrite(t *testing.T) {
	full := errors.New("no space left on device")
	write := func(dir, name string, data []byte) (string, error) {
		if strings.HasPrefix(name, "2-") || name == "result.json" {
			return "", full
		}
		return writeFile(dir, name, data)
	}
	r := &client.CallResult{Raw: []byte(`{}`), Content: []client.Content{{Type: "text", Text: "a"}, {Type: "text", Text: "b"}}}
	got := saveFiles(t.TempDir(), r, nil, write)
	for _, want := range []string{"save failed for 2 files", "2-text.txt: no space left on device", "result.json: no space left on device", "saved 1 block)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the notice %q does not say %q", got, want)
		}
	}
	if strings.HasPrefix(got, "saved") {
		t.Errorf("a save with failed writes reads as a success: %q", got)
	}
}
