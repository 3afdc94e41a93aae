package tui

import (
	"go/ast"
	"go/parser"
	"go/token"
	goTypes "go/types"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/workbench"
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

// TestEveryWorkbenchEventIsRouted: onWorkbench routes an event by its kind through
// listEvents and serverEvents; the subscription takes every kind but screenExcept,
// those added to the workbench later too, so a kind without an entry would be
// dropped without a word (a list of kinds once missed two new ones). Every
// EventKind the workbench declares has an entry, but the wire frames (the pump's).
func TestEveryWorkbenchEventIsRouted(t *testing.T) {
	files, err := filepath.Glob("../workbench/*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var kinds []workbench.EventKind
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || vs.Type == nil || goTypes.ExprString(vs.Type) != "EventKind" {
				return true
			}
			for _, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					kinds = append(kinds, workbench.EventKind(s))
				}
			}
			return true
		})
	}
	if len(kinds) < 15 {
		t.Fatalf("found %d event kinds in package workbench; the test no longer sees them", len(kinds))
	}
	for _, k := range kinds {
		_, list := listEvents[k]
		_, srv := serverEvents[k]
		switch {
		case k == workbench.EventWire:
			if list || srv {
				t.Errorf("%s: the wire frames come through the pump, not onWorkbench", k)
			}
		case !list && !srv:
			t.Errorf("workbench event %q has no entry in listEvents or serverEvents: onWorkbench drops it", k)
		case list && srv:
			t.Errorf("workbench event %q is in both listEvents and serverEvents: serverEvents' is never used", k)
		}
	}
}
