package form

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Issue 14 item 5: in a form of 10,000 fields a keystroke costs the field edited: it
// neither validates the whole value inline nor draws every row. The check runs in the
// command Update returns, and its errors then show.
func TestWideFormKeystrokeCostsTheField(t *testing.T) {
	f := mustNew(t, wideSchema(10000))
	if errs := f.Validate(); len(errs) != 1 || errs[0].Path != "/p0" {
		t.Fatalf("first Validate = %v, want p0 required", errs)
	}
	runs := f.val.runs.Load()
	cmd := f.Update(char('x')) // into p0
	if cmd == nil {
		t.Fatal("an edit after a validation returned no command to check again")
	}
	if f.val.runs.Load() != runs {
		t.Fatal("the keystroke validated the whole value inline")
	}
	view := ansi.Strip(f.View(80, 20))
	if f.drawn > 20 {
		t.Errorf("View drew %d rows for a height of 20", f.drawn)
	}
	if !strings.Contains(view, "p0") || !strings.Contains(view, "↓ ") {
		t.Errorf("view:\n%s", view)
	}
	run(cmd)
	if f.val.runs.Load() != runs+1 {
		t.Fatalf("the command ran %d validations, want 1", f.val.runs.Load()-runs)
	}
	// "x" is shorter than minLength 2: the check's error shows beside the field.
	if view := ansi.Strip(f.View(80, 20)); !strings.Contains(view, "✗") {
		t.Errorf("the check's error is not shown:\n%s", view)
	}
	// Several quick keys: each makes the earlier pending check stale, so only one runs.
	c1 := f.Update(char('y'))
	c2 := f.Update(char('z'))
	runs = f.val.runs.Load()
	run(c1)
	run(c2)
	if got := f.val.runs.Load() - runs; got != 1 {
		t.Errorf("two quick keystrokes ran %d checks, want 1", got)
	}
}

// Issue 14 item 5: a hostile input schema is not validated, and the form says so;
// the wide one is validated.
func TestHostileInputSchemaNotValidated(t *testing.T) {
	for name, s := range hostileSchemas() {
		f := mustNew(t, s)
		if name == "anyOf" {
			// Its 21^30 blow-up is under property a.
			if err := f.SetValue([]byte(`{"a":{"k":1}}`)); err != nil {
				t.Fatal(err)
			}
		}
		errs := f.Validate()
		costly := len(errs) > 0 && strings.Contains(errs[len(errs)-1].Message, "not validated: too costly")
		if costly != (name != "wide") {
			t.Errorf("%s: Validate = %v; the cost guard should stop exactly the exponential schemas", name, errs)
		}
		if ran := f.Checks() == 1; ran != (name == "wide") {
			t.Errorf("%s: the validator ran %d times", name, f.Checks())
		}
	}
}

// The heights View counts without drawing match the rows drawn.
func TestRowLinesMatchRenderRow(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	schemas := []string{wideSchema(30)}
	for _, p := range files {
		b, _ := os.ReadFile(p)
		schemas = append(schemas, string(b))
	}
	for i, s := range schemas {
		f, err := New([]byte(s))
		if err != nil {
			continue
		}
		typeText(f, "1x")
		f.Validate()
		rows := f.rows()
		rowErrs, _ := f.placeErrors(rows)
		lay := layout{width: 80, labelW: 20, valX: 23, valW: 57}
		for j, r := range rows {
			if got, want := rowLines(r, rowErrs[j], lay), len(f.renderRow(r, false, lay, rowErrs[j])); got != want {
				t.Errorf("schema %d row %d (%s): counted %d lines, drew %d", i, j, r.path, got, want)
			}
		}
	}
}

var _ = fmt.Sprint

func char(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }
