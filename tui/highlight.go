package tui

import (
	"fmt"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"

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

// jsonStyle is the chroma style for a palette, its background cleared as chroma's
// terminal formatters clear it (they did so at every call).
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
	b := s.Builder()
	bg := b.Get(chroma.Background)
	bg.Background, bg.NoInherit = 0, true
	b.AddEntry(chroma.Background, bg)
	s, _ = b.Build()
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
	writeTrueColour(&b, jsonStyle(p), it)
	return b.String()
}

// writeTrueColour writes tokens in 24-bit colour, byte for byte as chroma's
// terminal16m formatter does (TestHighlightIsChromasTerminal16m), without importing
// chroma's formatters package: its init registers the HTML and SVG formatters too,
// which cost every command about 0.35 ms of start-up (issue 23).
func writeTrueColour(b *strings.Builder, style *chroma.Style, it chroma.Iterator) {
	for t := it(); t != chroma.EOF; t = it() {
		e := style.Get(t.Type)
		if e.IsZero() {
			b.WriteString(t.Value)
			continue
		}
		var f strings.Builder
		if e.Bold == chroma.Yes {
			f.WriteString("\033[1m")
		}
		if e.Underline == chroma.Yes {
			f.WriteString("\033[4m")
		}
		if e.Italic == chroma.Yes {
			f.WriteString("\033[3m")
		}
		if e.Colour.IsSet() {
			fmt.Fprintf(&f, "\033[38;2;%d;%d;%dm", e.Colour.Red(), e.Colour.Green(), e.Colour.Blue())
		}
		if e.Background.IsSet() {
			fmt.Fprintf(&f, "\033[48;2;%d;%d;%dm", e.Background.Red(), e.Background.Green(), e.Background.Blue())
		}
		writeColoured(b, f.String(), t.Value)
	}
}

// writeColoured writes text in formatting, reset before each line end and taken up
// again after it, as chroma does, so that a line stands on its own. A line end is \n
// alone: the lexer's default options turn \r\n and \r into \n before any token.
func writeColoured(b *strings.Builder, formatting, text string) {
	if formatting == "" {
		b.WriteString(text)
		return
	}
	for {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			break
		}
		b.WriteString(formatting)
		b.WriteString(text[:i])
		b.WriteString("\033[0m\n")
		text = text[i+1:]
	}
	if text != "" {
		b.WriteString(formatting)
		b.WriteString(text)
		b.WriteString("\033[0m")
	}
}
