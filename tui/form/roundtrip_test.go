package form

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestRawRoundTrip: every filled shape survives form → raw JSON → form.
func TestRawRoundTrip(t *testing.T) {
	for _, c := range shapeCases {
		t.Run(c.name, func(t *testing.T) {
			f := mustNew(t, c.schema)
			if c.keys != nil {
				c.keys(t, f)
			}
			before, _ := f.Value()
			f.ToggleRaw()
			if !f.Raw() {
				t.Fatal("ToggleRaw did not switch to raw")
			}
			if got := ansi.Strip(f.View(80, 40)); !strings.Contains(got, "{") && !strings.Contains(got, "[") {
				t.Errorf("raw view shows no JSON:\n%s", got)
			}
			inRaw, err := f.Value()
			if err != nil || !sameJSON(t, inRaw, before) {
				t.Errorf("raw Value = %s, %v; want %s", inRaw, err, before)
			}
			f.ToggleRaw()
			if f.Raw() {
				t.Fatalf("stuck in raw: %s", f.rawErr)
			}
			after, _ := f.Value()
			if !sameJSON(t, after, before) {
				t.Errorf("after the round trip\n got %s\nwant %s", after, before)
			}
		})
	}
}

// TestRawRoundTripKeepsHalfFilled: what the user typed is kept even where it
// is not valid yet (a number field holding text, a half-filled variant).
func TestRawRoundTripKeepsHalfFilled(t *testing.T) {
	f := mustNew(t, `{"type":"object","properties":{
		"n":{"type":"number"},
		"shape":{"oneOf":[
			{"title":"Circle","type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind","r"]},
			{"title":"Rect","type":"object","properties":{"kind":{"const":"rect"},"w":{"type":"number"}},"required":["kind","w"]}]},
		"ints":{"type":"array","items":{"type":"integer"}}},"required":["shape"]}`)
	typeText(f, "12x")
	focusOn(t, f, "/shape")
	press(f, "right") // Rect, w left empty
	focusOn(t, f, "/ints")
	press(f, "ctrl+n", "ctrl+n") // two empty items
	typeText(f, "4")
	before, err := f.Value()
	if err == nil {
		t.Error("12x should be reported")
	}
	f.ToggleRaw()
	f.ToggleRaw()
	if f.Raw() {
		t.Fatalf("stuck in raw: %s", f.rawErr)
	}
	after, _ := f.Value()
	if !sameJSON(t, after, before) {
		t.Errorf("got %s, want %s", after, before)
	}
	if v := ansi.Strip(f.View(80, 24)); !strings.Contains(v, "12x") || !strings.Contains(v, "‹ Rect ›") {
		t.Errorf("typed text or chosen variant lost:\n%s", v)
	}
}

// TestRawEditing: keys edit the raw text; text that is not JSON, or does
// not fit the fields, keeps the form raw and says why.
func TestRawEditing(t *testing.T) {
	schema := `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a"]}`
	f := mustNew(t, schema)
	typeText(f, "1")
	f.ToggleRaw()
	press(f, "ctrl+end")
	typeText(f, "x") // `{"a": 1}x`
	f.ToggleRaw()
	if !f.Raw() {
		t.Fatal("invalid JSON should keep the form raw")
	}
	if v := ansi.Strip(f.View(80, 10)); !strings.Contains(v, "✗ form: invalid JSON") {
		t.Errorf("raw view should show the parse error:\n%s", v)
	}
	if _, err := f.Value(); err == nil {
		t.Error("Value of invalid raw JSON should fail")
	}
	if errs := f.Validate(); len(errs) != 1 || !strings.Contains(errs[0].Message, "invalid JSON") {
		t.Errorf("Validate = %v", errs)
	}
	press(f, "backspace")
	// a type the fields cannot hold
	if err := f.SetValue([]byte(`{"a":1,"b":5}`)); err == nil {
		t.Error("SetValue of a mismatched type should fail")
	}
	f.ToggleRaw()
	if !f.Raw() || !strings.Contains(f.rawErr, "/b") {
		t.Fatalf("a mismatch should keep the form raw and name the field: raw=%v err=%q", f.Raw(), f.rawErr)
	}
	if errs := f.Validate(); len(errs) != 1 || errs[0].Path != "/b" {
		t.Errorf("raw Validate = %v, want an error at /b", errs)
	}
	if v := ansi.Strip(f.View(80, 10)); !strings.Contains(v, "✗ /b:") {
		t.Errorf("raw view should list validation errors:\n%s", v)
	}
	// paste a fix over everything
	press(f, "ctrl+g") // select all
	press(f, "backspace")
	update(f, tea.PasteMsg{Content: `{"a": 5, "b": "pasted"}`})
	f.ToggleRaw()
	if f.Raw() {
		t.Fatalf("stuck in raw: %s\n%s", f.rawErr, f.ta.Value())
	}
	checkFilled(t, f, []byte(schema), `{"a":5,"b":"pasted"}`)
}

// TestSetValueIdentity: loading a valid value and reading it back gives the
// same JSON.
func TestSetValueIdentity(t *testing.T) {
	cases := []struct{ schema, value string }{
		{string(readFile(t, "testdata/elicitation-everything.json")), `{"name":"Zoë","check":false,"firstLine":"","email":"z@example.com",
			"homepage":"https://z.example","birthdate":"2000-02-29","integer":100,"number":0,"untitledSingleSelectEnum":"Phoebe",
			"untitledMultipleSelectEnum":["Piano","Guitar","Bass"],"titledSingleSelectEnum":"hero-2","titledMultipleSelectEnum":["fish-3","fish-1"],"legacyTitledEnum":"pet-5"}`},
		{string(readFile(t, "testdata/elicitation-everything.json")), `{"name":"only the name","untitledMultipleSelectEnum":[]}`},
		{`{"type":"object","properties":{"s":{"type":"string"},"n":{"type":"number"},"i":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}}}}`,
			`{"s":"a\nb\t\"q\" 😀 \u0000","n":-1.5e-7,"i":12345678901234567890,"tags":[]}`},
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, `{"a":"x","extra":{"z":1,"a":[1,{"k":null}]},"more":true}`},
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, `{}`},
		{`{"type":"object","properties":{"n":{"type":["integer","null"]},"o":{"anyOf":[{"type":"object","properties":{"x":{"type":"string"}}},{"type":"null"}]}}}`,
			`{"n":null,"o":null}`},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"string"}}},"p":{"type":"object","properties":{"y":{"type":"string"}}}}}`,
			`{"o":{},"p":{"y":""}}`},
		{shapeCases[9].schema, `{"shape":{"kind":"circle","r":1}}`},
		{shapeCases[9].schema, `{"shape":{"kind":"rect","w":1,"h":2}}`},
		{shapeCases[10].schema, `{"id":"abc","pet":{"type":"cat","lives":9},"multi":3}`},
		{shapeCases[10].schema, `{"id":7,"pet":{"type":"dog","good":false},"multi":"s"}`},
		{shapeCases[7].schema, `{"lines":[{"sku":"a","qty":1},{"sku":"b","qty":2,"gift":false}]}`},
		{shapeCases[13].schema, `{"name":"a","children":[{"name":"b","children":[{"name":"c","parent":{"name":"p","children":[]}}]}]}`},
		{shapeCases[15].schema, `{"meta":{"b":"1","a":"2"},"pair":["x",2],"tuple":["t"],"anything":{"deep":[[[]]]}}`},
		{shapeCases[18].schema, `[3,1,2]`},
		{`{"type":"object","properties":{"d":{"type":"array","items":{"type":"array","items":{"type":"number"}}}}}`, `{"d":[[1,2],[],[3]]}`},
		{`true`, `{"anything":["goes"]}`},
		{`{"type":"string"}`, `"root string"`},
	}
	for i, c := range cases {
		f := mustNew(t, c.schema)
		if err := f.SetValue([]byte(c.value)); err != nil {
			t.Errorf("case %d: SetValue: %v", i, err)
			continue
		}
		got, err := f.Value()
		if err != nil {
			t.Errorf("case %d: Value: %v", i, err)
		}
		if !sameJSON(t, got, []byte(c.value)) {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, c.value)
		}
		checkView(t, f, 80, 24)
		// and through raw JSON
		f.ToggleRaw()
		f.ToggleRaw()
		if got2, _ := f.Value(); f.Raw() || !sameJSON(t, got2, []byte(c.value)) {
			t.Errorf("case %d: raw round trip: raw=%v %s", i, f.Raw(), got2)
		}
	}
}

// TestSetValueMismatch: a value the fields cannot hold is refused and the
// form keeps what it had.
func TestSetValueMismatch(t *testing.T) {
	f := mustNew(t, `{"type":"object","properties":{"n":{"type":"number"},"e":{"enum":["a","b"]},"m":{"type":"array","items":{"enum":["x","y"]}}}}`)
	typeText(f, "3")
	before, _ := f.Value()
	for _, v := range []string{`{"n":"3"}`, `{"n":true}`, `{"e":"c"}`, `{"m":["x","x"]}`, `{"m":["z"]}`, `[]`, `{"n":null}`, `nope`} {
		if err := f.SetValue([]byte(v)); err == nil {
			t.Errorf("SetValue(%s) should fail", v)
		}
		if after, _ := f.Value(); string(after) != string(before) {
			t.Errorf("SetValue(%s) changed the form: %s", v, after)
		}
	}
}

// TestPaste: a paste lands in the focused text field at the cursor.
func TestPaste(t *testing.T) {
	f := mustNew(t, `{"type":"object","properties":{"s":{"type":"string"},"e":{"enum":["a"]}}}`)
	typeText(f, "ab")
	press(f, "left")
	update(f, tea.PasteMsg{Content: "X\nY"})
	press(f, "down")
	update(f, tea.PasteMsg{Content: "ignored"})
	v, _ := f.Value()
	if !sameJSON(t, v, []byte(`{"s":"aX\nYb"}`)) {
		t.Errorf("value %s", v)
	}
	if view := ansi.Strip(f.View(80, 5)); !strings.Contains(view, "aX↵Yb") {
		t.Errorf("newline should show as ↵:\n%s", view)
	}
}
