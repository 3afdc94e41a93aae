package live

import (
	"regexp"
	"strings"
	"testing"
)

// CheckName accepts exactly the names the pattern it replaced did (kept here as the
// reference): every byte as first and as later character, and the length edges.
func TestCheckNameIsThePattern(t *testing.T) {
	ref := regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$`)
	cases := []string{"", strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 65), "a" + strings.Repeat(".", 63), "a/b", "a b", "é"}
	for c := 0; c < 256; c++ {
		cases = append(cases, string([]byte{byte(c)}), "a"+string([]byte{byte(c)}), string([]byte{byte(c)})+"a")
	}
	for _, name := range cases {
		if got, want := CheckName(name) == nil, ref.MatchString(name); got != want {
			t.Errorf("CheckName(%q) accepts: %v, the pattern: %v", name, got, want)
		}
	}
}
