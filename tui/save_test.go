package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/target"
)

// Saving a result whose block types are paths ("../../../escaped", "/tmp/…") writes
// every file inside the new result directory, nowhere else.
func TestSaveResultStaysInItsDirectory(t *testing.T) {
	base := t.TempDir()
	save := filepath.Join(base, "a", "b", "c", "save")
	if err := os.MkdirAll(save, 0o755); err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, Options{Target: target.Target{Argv: testutil.FakeServer(t, "bad-names")}, Name: "fake", Theme: "dark", SaveDir: save}, 120, 40)
	h.until("the tools", func(m *model) bool { return len(m.list.tools) > 0 })
	h.selectTool("echo")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"message":"x"}`))
	h.press("enter")
	h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && m.current.result != nil })
	h.press("s")
	h.until("the save", func(m *model) bool { return strings.HasPrefix(m.notice, "save") && m.notice != "saving the result…" })
	if !strings.Contains(h.m.notice, "saved 3 blocks") {
		t.Fatalf("notice %q", h.m.notice)
	}
	var files []string
	filepath.Walk(base, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	for _, f := range files {
		if filepath.Dir(filepath.Dir(f)) != save {
			t.Errorf("%s is outside the result directory", f)
		}
	}
	if len(files) != 4 {
		t.Errorf("files %v, want 3 blocks and result.json", files)
	}
	if _, err := os.Stat("/tmp/absolute-from-server.json"); err == nil {
		t.Error("a file was written at the server's absolute path")
	}
}
