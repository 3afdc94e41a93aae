package tui

import (
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"

	"github.com/mcpscope/mcpscope/themes"
)

// JSON is highlighted with chroma's lexer engine and terminal formatter, but with a
// JSON lexer and a style of our own: chroma's lexers and styles packages register every
// language and style at start-up (about 12 ms and 4.7 MB on each run of mcpscope, the
// one-shot commands included), and our style follows the theme.
var jsonLexer = chroma.MustNewLexer(
	&chroma.Config{Name: "JSON", Aliases: []string{"json"}, MimeTypes: []string{"application/json"}},
	func() chroma.Rules {
		return chroma.Rules{"root": {
			{Pattern: `\s+`, Type: chroma.Whitespace},
			{Pattern: `"(\\.|[^"\\])*"(?=\s*:)`, Type: chroma.NameTag},
			{Pattern: `"(\\.|[^"\\])*"`, Type: chroma.LiteralStringDouble},
			{Pattern: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, Type: chroma.LiteralNumber},
			{Pattern: `true|false|null`, Type: chroma.KeywordConstant},
			{Pattern: `[{}\[\],:]`, Type: chroma.Punctuation},
			{Pattern: `.`, Type: chroma.Text},
		}}
	},
)

var (
	styleMu    sync.Mutex
	jsonStyles = map[string]*chroma.Style{}
)

// jsonStyle is the chroma style for a palette.
func jsonStyle(p themes.Palette) *chroma.Style {
	styleMu.Lock()
	defer styleMu.Unlock()
	if s, ok := jsonStyles[p.Name]; ok {
		return s
	}
	s := chroma.MustNewStyle("mcpscope-"+p.Name, chroma.StyleEntries{
		chroma.Background:          p.Text,
		chroma.NameTag:             p.Accent,
		chroma.LiteralStringDouble: p.Recv,
		chroma.LiteralNumber:       p.Warn,
		chroma.KeywordConstant:     p.BadgeOpen,
		chroma.Punctuation:         p.Muted,
	})
	jsonStyles[p.Name] = s
	return s
}

// highlightJSON colours indented JSON text; on any failure it returns it as is.
func highlightJSON(p themes.Palette, src string) string {
	it, err := jsonLexer.Tokenise(nil, src)
	if err != nil {
		return src
	}
	var b strings.Builder
	if err := formatters.TTY16m.Format(&b, jsonStyle(p), it); err != nil {
		return src
	}
	return b.String()
}
