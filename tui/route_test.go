package tui

import (
	"go/ast"
	"go/parser"
	"go/token"
	goTypes "go/types"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestEveryMessageHasItsHandler: update routes a message of this package by its
// handle method (route.go), not by a case in a switch, so a message type without one
// would be dropped without a word. Every type named …Msg in the package (the
// messages its commands send back) must have one.
func TestEveryMessageHasItsHandler(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	msgs := map[string]token.Position{}
	handled := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && strings.HasSuffix(ts.Name.Name, "Msg") {
						msgs[ts.Name.Name] = fset.Position(ts.Pos())
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil || d.Name.Name != "handle" || len(d.Recv.List) != 1 {
					continue
				}
				typ := d.Recv.List[0].Type
				if st, ok := typ.(*ast.StarExpr); ok {
					typ = st.X
				}
				id, ok := typ.(*ast.Ident)
				if !ok {
					continue
				}
				// handle(m *model) tea.Cmd, or the type does not implement msgHandler
				// and update drops it all the same.
				if sig := signature(d.Type); sig != "(*model) tea.Cmd" {
					t.Errorf("%s: %s.handle takes and gives %s, not (*model) tea.Cmd", fset.Position(d.Pos()), id.Name, sig)
					continue
				}
				handled[id.Name] = true
			}
		}
	}
	if len(msgs) < 40 {
		t.Fatalf("found %d message types; the test no longer sees the package's messages", len(msgs))
	}
	var missing []string
	for name, pos := range msgs {
		if !handled[name] {
			missing = append(missing, name+" ("+filepath.Base(pos.Filename)+")")
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d message types have no handle method, so update drops them: %s", len(missing), strings.Join(missing, ", "))
	}
}

// signature is a function's parameter and result types, without their names.
func signature(f *ast.FuncType) string {
	types := func(l *ast.FieldList) []string {
		var ts []string
		if l == nil {
			return nil
		}
		for _, p := range l.List {
			for range max(len(p.Names), 1) {
				ts = append(ts, goTypes.ExprString(p.Type))
			}
		}
		return ts
	}
	return "(" + strings.Join(types(f.Params), ", ") + ") " + strings.Join(types(f.Results), ", ")
}
