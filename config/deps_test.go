package config

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// config reads other clients' files and names servers; it must not pull in the MCP
// SDK (issue 22, move 5): Target is package target's for that. This walks the
// imports of config's own files, and of every package of this module they reach,
// and fails on the first path into the SDK, naming the chain.
func TestConfigDoesNotImportTheSDK(t *testing.T) {
	const module = "github.com/mcpscope/mcpscope"
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var walk func(path string, chain []string)
	walk = func(path string, chain []string) {
		if seen[path] {
			return
		}
		seen[path] = true
		chain = append(chain, path)
		if strings.HasPrefix(path, "github.com/modelcontextprotocol/") {
			t.Errorf("config reaches the SDK: %s", strings.Join(chain, " → "))
			return
		}
		if path != module && !strings.HasPrefix(path, module+"/") {
			return // the standard library or another module: not followed
		}
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(path, module), "/")))
		pkg, err := build.ImportDir(dir, 0) // non-test files only
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			walk(imp, chain)
		}
	}
	walk(module+"/config", nil)
}
