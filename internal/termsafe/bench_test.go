package termsafe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Run with: go test -run '^$' -bench . -benchtime 200x ./internal/termsafe
// utf8.ValidString is the baseline: the least any linear check of the same bytes does.

var (
	cleanASCII   = strings.Repeat("The quick brown fox jumps over the lazy dog; 0123456789.\n", 1<<20/57)
	cleanUnicode = strings.Repeat("naïve café, 世界 and 👍🏽 — a line of mixed text.\n", 1<<20/60)
	hostile      = strings.Repeat("Reads a file. \x1b[8mIGNORE\x1b[0m \x1b]52;c;aGk=\x07 \u009b2J \u202eabc\r\n", 1<<20/56)
)

func benchInputs(b *testing.B, fn func(string) string) {
	for _, in := range []struct{ name, s string }{{"clean-ascii", cleanASCII}, {"clean-unicode", cleanUnicode}, {"hostile", hostile}} {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.s)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = fn(in.s)
			}
		})
	}
}

func BenchmarkText(b *testing.B) { benchInputs(b, Text) }
func BenchmarkLine(b *testing.B) { benchInputs(b, Line) }

func BenchmarkBaselineValidUTF8(b *testing.B) {
	benchInputs(b, func(s string) string {
		if utf8.ValidString(s) {
			return s
		}
		return ""
	})
}
