package plural

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "tool", "0 tools"},
		{1, "tool", "1 tool"},
		{2, "tool", "2 tools"},
		{1, "resource template", "1 resource template"},
		{3, "resource template", "3 resource templates"},
	} {
		if got := Count(c.n, c.noun); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
	if Noun(1, "field") != "field" || Noun(2, "field") != "fields" {
		t.Error("Noun")
	}
}

// No string in mcpscope's code says a count as "tool(s)": every count goes through
// Count or Noun. The rule had been written down and broken in thirty places (check's
// report, the workbench's notices, replay's notes), each found by a reader.
func TestNoCountSaysItsNounWithParenthesisS(t *testing.T) {
	root := filepath.Join("..", "..")
	paren := regexp.MustCompile(`[a-z]\(s\)`)
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "testdata", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && paren.MatchString(strings.ReplaceAll(lit.Value, "http(s)", "")) {
				t.Errorf("%s: %s: say the count with plural.Count or plural.Noun", fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
