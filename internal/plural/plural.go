// Package plural says counts in words: "1 tool", "2 tools". Every count a command
// prints goes through it, so none reads "1 tools" or "1 tool(s)".
package plural

import "strconv"

// Count is n and noun, in the singular when n is 1 ("1 tool", "0 tools", "2 tools").
// noun is a regular English noun (the plural adds "s"); the last word is the one
// inflected ("1 resource template", "2 resource templates").
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Noun(n, noun)
}

// Noun is noun in the number n asks for, without the number: "field", "fields".
func Noun(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
