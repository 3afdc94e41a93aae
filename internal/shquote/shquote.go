// Package shquote quotes a word for a command line that mcpscope prints for the user
// to copy (run: mcpscope auth login ...; mcpscope -- node 'my server.js').
package shquote

import "strings"

// Quote returns s as one sh word: unchanged when every character is one that needs no
// quoting anywhere (letters, digits and - _ . / = : @ +), else in single quotes. The
// safe set is a short list on purpose: a character missing from it is quoted, which
// is never wrong, while a list of characters to quote misses one (a newline, a
// non-ASCII space) sooner or later.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ':' || r == '@' || r == '+' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
