// Package termsafe makes untrusted text safe to show on a terminal.
//
// The rule: a string that came from a server (a tool's name, title or description, a
// schema, a result, an error message, a stderr or log line, an entry of a config file)
// never drives the terminal it is shown on. Every control character, escape sequence
// and bidirectional control in it is made visible instead of interpreted:
//
//   - ESC, which starts every 7-bit sequence (CSI, OSC, DCS, APC, PM, SOS and the
//     two-byte escapes), becomes ␛: an OSC 52 clipboard write shows as ␛]52;…, an
//     SGR 8 "conceal" as ␛[8m, and the text it wanted to hide stays readable;
//   - the other C0 controls and DEL become their control pictures (␇, ␈, ␡, …);
//   - the C1 controls U+0080–U+009F (U+009B is an 8-bit CSI, U+009D an OSC), the
//     bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069),
//     the line and paragraph separators U+2028 and U+2029, the invisible tag
//     characters U+E0000–U+E007F and every other invisible format character
//     (Unicode category Cf: the zero-width space and joiners U+200B–U+200D, the word
//     joiner U+2060, the byte order mark U+FEFF, the soft hyphen U+00AD, …) become
//     escapes such as \u009b, \u202e, \u200b, \U000e0041. A zero-width joiner
//     between two pictographs stays: it is how an emoji sequence (👩‍💻) is written,
//     and it hides nothing there;
//   - bytes that are not UTF-8 become \xNN.
//
// Newlines are the caller's choice. Line folds a string onto one line, for list rows
// and status text: a newline (or \r\n) shows as ↵, a bare \r as ␍ and a tab as a
// space. Text keeps the lines of a block: \n stays, \r\n becomes \n, a bare \r (which
// would move the cursor back over what is already drawn) shows as ␍, and a tab stays
// (TextTabs replaces it with spaces, for layouts that count cells).
//
// Output to a pipe or a file that is meant to be exact (raw text, JSON) does not go
// through this package; only what a person reads does. Each function runs in one
// linear pass without regular expressions and returns its input unchanged, without
// copying, when there is nothing to change.
package termsafe

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line returns s made safe for a single line of a terminal.
func Line(s string) string { return clean(s, false, " ") }

// Text returns s made safe for a block of lines on a terminal: \n separates lines,
// \r\n is a newline too, and tabs stay.
func Text(s string) string { return clean(s, true, "\t") }

// TextTabs is Text with every tab replaced by n spaces.
func TextTabs(s string, n int) string { return clean(s, true, strings.Repeat(" ", max(n, 0))) }

// IsLine reports whether Line(s) would return s unchanged.
func IsLine(s string) bool { return firstUnsafe(s, false, false) == len(s) }

// IsText reports whether Text(s) would return s unchanged.
func IsText(s string) bool { return firstUnsafe(s, true, true) == len(s) }

// NewWriter returns a writer that passes what is written to w through Text. Each
// Write is made safe on its own, so write whole messages (as fmt.Fprintf does); a
// UTF-8 sequence cut between two writes shows as \xNN. It is as safe for concurrent
// use as w is.
func NewWriter(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

// Unwrap returns the writer written to (to ask whether it is a terminal).
func (w writer) Unwrap() io.Writer { return w.w }

func (w writer) Write(p []byte) (int, error) {
	s := string(p)
	if t := Text(s); t != s {
		if _, err := io.WriteString(w.w, t); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return w.w.Write(p)
}

const (
	lo7 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// lead marks the lead bytes of the UTF-8 sequences that can encode an escaped rune:
// C2 (U+0080–U+00BF), D8 (U+0600–U+063F), E2 (U+2000–U+2FFF) and F3 (U+C0000–U+FFFFF).
// In valid UTF-8 every other non-ASCII byte starts or continues a rune that is kept.
// The C1 controls (0xc2), U+061C (0xd8), the bidi controls and separators (0xe2) and
// the tags (0xf3), and those of every format character (category Cf), set in init.
var lead = [256]bool{0xc2: true, 0xd8: true, 0xe2: true, 0xf3: true}

// stops[mode] marks the bytes of valid UTF-8 that need a closer look: the controls
// the mode does not keep, and the lead bytes. mode is multiline<<1 | keepTab.
var stops [4][256]bool

func init() {
	var b [utf8.UTFMax]byte
	for _, r := range unicode.Cf.R16 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			utf8.EncodeRune(b[:], c)
			lead[b[0]] = true
		}
	}
	for _, r := range unicode.Cf.R32 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			utf8.EncodeRune(b[:], c)
			lead[b[0]] = true
		}
	}
	for m := range stops {
		for c := range 256 {
			kept := c >= 0x20 && c != 0x7f || (m&2 != 0 && c == '\n') || (m&1 != 0 && c == '\t')
			stops[m][c] = !kept || lead[c]
		}
	}
}

// firstUnsafe returns the offset of the first byte that clean would change, or len(s).
func firstUnsafe(s string, multiline, keepTab bool) int {
	return next(s, multiline, keepTab, utf8.ValidString(s))
}

// next returns the offset of the first byte that clean would change, or len(s).
// valid says that s is known to be UTF-8, so that only the lead bytes that can start
// an escaped rune need decoding.
func next(s string, multiline, keepTab, valid bool) int {
	if !valid {
		return nextInvalid(s, multiline, keepTab)
	}
	mode := 0
	if multiline {
		mode |= 2
	}
	if keepTab {
		mode |= 1
	}
	stop := &stops[mode]
	i := 0
	for i < len(s) {
		// Eight bytes at a time while they are all printable ASCII (0x20–0x7e):
		// a byte below 0x20 or above 0x7e sets its high bit in one of the terms.
		for i+8 <= len(s) {
			x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			if ((x-lo7*0x20)&^x|(x+lo7)|x)&hi8 != 0 {
				break
			}
			i += 8
		}
		// Then byte by byte through the table for a while.
		end := min(i+16, len(s))
		for i < end && !stop[s[i]] {
			i++
		}
		if i == end {
			continue
		}
		if s[i] < utf8.RuneSelf {
			return i
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if escaped(r) && !joinsPictographs(s, i, r, size) {
			return i
		}
		i += size
	}
	return len(s)
}

// joinsPictographs reports whether r, at s[i:i+size], is a zero-width joiner between
// two pictographs (an emoji sequence), which Line and Text keep.
func joinsPictographs(s string, i int, r rune, size int) bool {
	if r != 0x200d {
		return false
	}
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i+size:])
	return pictograph(before) && pictograph(after)
}

// pictograph reports whether r is (or ends, as a variation selector or skin tone
// does) an emoji: the blocks emoji come from, not the full Extended_Pictographic
// property, which this only needs to approximate to keep emoji sequences whole.
func pictograph(r rune) bool {
	return r >= 0x1f000 && r <= 0x1faff || r >= 0x2300 && r <= 0x23ff || r >= 0x2600 && r <= 0x27bf ||
		r >= 0x2b00 && r <= 0x2bff || r == 0xfe0f
}

// nextInvalid is next for text that is not all UTF-8: every rune is decoded.
func nextInvalid(s string, multiline, keepTab bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !(c >= 0x20 && c != 0x7f || c == '\n' && multiline || c == '\t' && keepTab) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || escaped(r) && !joinsPictographs(s, i, r, size) {
			return i
		}
		i += size
	}
	return len(s)
}

// Escaped reports whether Line and Text show r as a \u escape: the C1 controls, the
// bidi controls, the line and paragraph separators, the tag characters and the other
// invisible format characters (category Cf; a zero-width joiner inside an emoji
// sequence is kept, see joinsPictographs). (C0 controls and DEL are shown as control
// pictures.) A JSON encoder that wants its
// output to stay inert can write these runes as \u escapes too.
func Escaped(r rune) bool { return escaped(r) }

func escaped(r rune) bool {
	switch {
	case r < 0x80:
		return false
	case r <= 0x9f:
		return true
	case r < 0x600:
		return r == 0xad // the soft hyphen, the only format character below U+0600
	case r == 0x61c, r == 0x200e, r == 0x200f, r >= 0x2028 && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r >= 0xe0000 && r <= 0xe007f:
		return true
	case r >= 0x3000 && r < 0xfeff, r >= 0x1e000 && r < 0xe0000:
		return false // CJK, emoji and most other scripts: no format character there
	}
	return unicode.Is(unicode.Cf, r)
}

const hex = "0123456789abcdef"

func clean(s string, multiline bool, tab string) string {
	keepTab := tab == "\t"
	// Validity is checked once; what comes after a change is still valid (or not).
	valid := utf8.ValidString(s)
	i := next(s, multiline, keepTab, valid)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/8 + 8)
	for {
		b.WriteString(s[:i])
		s = s[i:]
		if s == "" {
			return b.String()
		}
		// s[0] starts something to change.
		c := s[0]
		n := 1
		if c < utf8.RuneSelf {
			switch {
			case c == '\n' || (c == '\r' && len(s) > 1 && s[1] == '\n'):
				if c == '\r' {
					n = 2
				}
				if multiline {
					b.WriteByte('\n')
				} else {
					b.WriteString("↵")
				}
			case c == '\t':
				b.WriteString(tab)
			case c == 0x7f:
				b.WriteString("␡")
			default: // C0: its control picture, U+2400 + c
				b.WriteRune(0x2400 + rune(c))
			}
		} else {
			r, size := utf8.DecodeRuneInString(s)
			n = size
			switch {
			case r == utf8.RuneError && size == 1:
				b.WriteString(`\x`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			case r > 0xffff:
				b.WriteString(`\U`)
				for shift := 28; shift >= 0; shift -= 4 {
					b.WriteByte(hex[r>>shift&0xf])
				}
			default:
				b.WriteString(`\u`)
				for shift := 12; shift >= 0; shift -= 4 {
					b.WriteByte(hex[r>>shift&0xf])
				}
			}
		}
		s = s[n:]
		i = next(s, multiline, keepTab, valid)
	}
}
