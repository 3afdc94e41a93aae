package tui

import (
	"encoding/json"
	"strings"
	"testing"
)

// A property's bounds read as the schema wrote them, as the form shows them: %v had
// written the JSON integer -9007199254740991 as -9.007199254740991e+15.
func TestSummaryWritesBoundsAsJSON(t *testing.T) {
	var p map[string]any
	if err := json.Unmarshal([]byte(`{"type":"integer","minimum":-9007199254740991,"maximum":100,"exclusiveMaximum":0.5,"pattern":"^[a-z]+$"}`), &p); err != nil {
		t.Fatal(err)
	}
	got := summary(p)
	for _, want := range []string{"minimum -9007199254740991", "maximum 100", "exclusiveMaximum 0.5", "pattern ^[a-z]+$"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary = %q, lacks %q", got, want)
		}
	}
	if strings.Contains(got, "e+") {
		t.Errorf("summary = %q: a bound in exponent notation", got)
	}
}
