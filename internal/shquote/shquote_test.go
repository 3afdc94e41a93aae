package shquote

import (
	"os/exec"
	"testing"
)

// Every word, quoted, reads back as itself in a real sh: the quoting is judged by the
// shell, not by a list of expected strings.
func TestQuoteReadsBackInSh(t *testing.T) {
	words := []string{"plain", "with space", "it's", "a\nb", "$HOME", "`x`", "semi;colon", "glob*?[a]", "~user", "tab\there", "ünï", "", "a'b'c", "-flag", "x=y:z@w+v"}
	for _, w := range words {
		out, err := exec.Command("sh", "-c", `printf %s `+Quote(w)).Output()
		if err != nil {
			t.Fatalf("%q quoted as %s: sh: %v", w, Quote(w), err)
		}
		if string(out) != w {
			t.Errorf("%q quoted as %s reads back as %q", w, Quote(w), out)
		}
	}
	for _, w := range []string{"server.js", "/tmp/r.jsonl", "a=b", "user@host:8080"} {
		if Quote(w) != w {
			t.Errorf("%q needs no quotes, got %s", w, Quote(w))
		}
	}
}
