package recsniff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSniff(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		path string
		want bool
	}{
		{file("rec.jsonl", `{"mcpscope":"recording","version":1}`+"\n"+`{"t":0}`+"\n"), true},
		{file("header-only.jsonl", `{"mcpscope":"recording","version":1}`), true},
		{file("other.json", `{"mcpscope":"surface"}`+"\n"), false},
		{file("config.json", `{"mcpServers":{}}`), false},
		{file("script.py", "print('hi')\n"), false},
		{file("long.jsonl", `{"mcpscope":"recording","pad":"`+strings.Repeat("x", sniffMax)+`"}`+"\n"), false},
		{dir, false},
		{filepath.Join(dir, "missing"), false},
	} {
		if got := Sniff(c.path); got != c.want {
			t.Errorf("Sniff(%s) = %v, want %v", filepath.Base(c.path), got, c.want)
		}
	}
}
