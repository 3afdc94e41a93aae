package form

import (
	"strings"
	"testing"
)

// Issue 9, item 14: a bare {"type":"object"} accepts any arguments; the form says so
// and offers key/value rows, each value sent as JSON when it parses.
func TestFreeObjectKeyValueRows(t *testing.T) {
	for _, schema := range []string{`{"type":"object"}`, `{"type":"object","properties":{}}`} {
		f := mustNew(t, schema)
		if v := f.View(80, 10); !strings.Contains(v, "any arguments are accepted") || strings.Contains(v, "no arguments") {
			t.Errorf("%s: the form says:\n%s", schema, v)
		}
		press(f, "ctrl+n")
		typeText(f, "city")
		press(f, "tab")
		typeText(f, "Paris")
		press(f, "ctrl+n")
		typeText(f, "n")
		press(f, "tab")
		typeText(f, "42")
		press(f, "ctrl+n")
		typeText(f, "tags")
		press(f, "tab")
		typeText(f, `["a", "b"]`)
		v, err := f.Value()
		if err != nil {
			t.Fatal(err)
		}
		if string(v) != `{"city":"Paris","n":42,"tags":["a","b"]}` {
			t.Errorf("%s: value %s", schema, v)
		}
		// Loading a value back keeps its types: "42" as a string stays one.
		if err := f.SetValue([]byte(`{"id":"42","on":true}`)); err != nil {
			t.Fatal(err)
		}
		if v, _ := f.Value(); string(v) != `{"id":"42","on":true}` {
			t.Errorf("round trip gave %s", v)
		}
	}
	// A schema that closes its properties still has no arguments.
	f := mustNew(t, `{"type":"object","properties":{},"additionalProperties":false}`)
	if v := f.View(80, 10); !strings.Contains(v, "no arguments") {
		t.Errorf("closed schema: %s", v)
	}
}

// Smaller: an optional object typed into can be switched off again (del on its
// heading), and is then not sent.
func TestOptionalObjectCanBeCleared(t *testing.T) {
	f := mustNew(t, `{"type":"object","properties":{"opt":{"type":"object","properties":{"a":{"type":"string"}}}}}`)
	focusOn(t, f, "/opt/a")
	typeText(f, "x")
	if v, _ := f.Value(); string(v) != `{"opt":{"a":"x"}}` {
		t.Fatalf("value %s", v)
	}
	focusOn(t, f, "/opt")
	press(f, "delete")
	if v, _ := f.Value(); string(v) != `{}` {
		t.Errorf("after del on the heading: %s", v)
	}
}

// Smaller: a wrong type is reported once beside its field, not twice.
func TestWrongTypeReportedOnce(t *testing.T) {
	f := mustNew(t, `{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}`)
	typeText(f, "abc")
	f.Validate()
	if v := f.View(80, 10); strings.Count(v, "not a number") != 1 {
		t.Errorf("the error is not shown once:\n%s", v)
	}
}

// A number beyond a 64-bit float (1e400) is valid JSON that a JavaScript or Python
// server reads as Infinity: the field says so as it is typed and the form is not
// sent; 1e300 is a number like any other.
func TestNumberBeyondAFloatIsRefused(t *testing.T) {
	f := mustNew(t, `{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}`)
	typeText(f, "1e400")
	if v := f.View(80, 10); !strings.Contains(v, "too large") {
		t.Errorf("typed 1e400, the field does not say it is too large:\n%s", v)
	}
	if _, err := f.Value(); err == nil {
		t.Errorf("1e400 gave a value with no error")
	}
	f = mustNew(t, `{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}`)
	typeText(f, "1e300")
	if v, err := f.Value(); err != nil || string(v) != `{"n":1e300}` {
		t.Errorf("1e300: %s %v", v, err)
	}
}
