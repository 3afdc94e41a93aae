package main_test

import (
	"os"
	"path/filepath"
	"testing"
)

// A named file that is no tool surface (not JSON, a tools member that is no array, an
// --inspect document of a later format, JSON without formatVersion and tools, a
// recording that lists nothing) is a usage error for diff and lint alike (exit 2): in
// a CI step exit 1 means "breaking changes" (diff) or "findings" (lint), and a broken
// baseline file is neither. Before, only an empty file and, for diff, a document
// without formatVersion and tools exited 2; the rest exited 1.
func TestASurfaceFileThatIsNoSurfaceIsAUsageError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join("..", "..", "surface", "testdata", "everything.json")
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		file string
		says string
	}{
		{write("bad.json", "not json\n"), "is not an --inspect JSON document"},
		{write("notools.json", `{"formatVersion":1,"tools":5}`), "tools is not an array"},
		{write("later.json", `{"formatVersion":99,"tools":[]}`), "upgrade mcpscope"},
		{write("other.json", `{"hello":"world"}`), "no tool surface"},
		{write("header.jsonl", `{"mcpscope":"recording","version":1,"started":"2026-01-01T00:00:00Z","target":{"transport":"stdio","argv":["x"]}}`+"\n"), "no tool surface"},
	} {
		expect(t, mcpscope(t, nil, "diff", tc.file, good), 2, nil, []string{tc.says})
		expect(t, mcpscope(t, nil, "diff", good, tc.file), 2, nil, []string{tc.says})
		expect(t, mcpscope(t, nil, "lint", tc.file), 2, nil, []string{tc.says})
	}
}
