package tui

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2/formatters"

	"github.com/mcpscope/mcpscope/themes"
)

// highlightJSON writes the bytes chroma's terminal16m formatter writes (the test may
// import chroma's formatters package; the binary does not, for its init's sake), in
// every theme, for JSON with every token kind, CRLF line ends and a string that spans
// lines.
func TestHighlightIsChromasTerminal16m(t *testing.T) {
	srcs := []string{
		"{\n  \"name\": \"echo\",\n  \"n\": -1.5e3,\n  \"ok\": true,\n  \"none\": null,\n  \"list\": [1, 2, {\"a\": \"b\"}]\n}",
		"{\r\n  \"crlf\": false\r\n}\r\n",
		"\"a string\nover two lines\"",
		"not json at all: é \x1b",
		"",
	}
	for _, p := range []themes.Palette{themes.Dark, themes.Light, themes.HighContrast} {
		for _, src := range srcs {
			it, err := jsonLexer.Tokenise(nil, src)
			if err != nil {
				t.Fatal(err)
			}
			var want strings.Builder
			if err := formatters.TTY16m.Format(&want, jsonStyle(p), it); err != nil {
				t.Fatal(err)
			}
			if got := highlightJSON(p, src); got != want.String() {
				t.Errorf("%s, %q:\n got %q\nwant %q", p.Name, src, got, want.String())
			}
			if src != "" && !strings.Contains(want.String(), "\x1b[38;2;") {
				t.Errorf("%s, %q: chroma wrote no colour, so the comparison proves nothing", p.Name, src)
			}
		}
	}
}
