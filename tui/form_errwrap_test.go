package tui

import (
	"strings"
	"testing"
)

// A field's error is written whole, wrapped under its value: cut at the pane's
// edge, a date's error lost its reason ("'1990-13-45' is not valid date: parsing
// time "…), the part that says what to fix.
func TestFieldErrorIsWhole(t *testing.T) {
	h := ready(t, 100, 40)
	h.selectTool("rich_form")
	h.press("enter")
	if err := h.m.form.SetValue([]byte(`{"title":"x","priority":"normal","due":"1990-13-45"}`)); err != nil {
		t.Fatal(err)
	}
	h.press("enter")
	h.until("the form's errors", func(m *model) bool { return strings.Contains(m.notice, "argument error") })
	h.contains("month out of range")
}
