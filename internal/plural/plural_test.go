package plural

import "testing"

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
