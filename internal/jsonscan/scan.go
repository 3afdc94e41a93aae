// Package jsonscan walks JSON without decoding it: it validates a value, finds its
// end, lists an object's members or an array's elements as slices of the input, and
// decodes strings, without the copies and the per-byte state machine of
// encoding/json. It exists for the hot path of big results (a 100 MiB text block):
// a string's body is scanned eight bytes at a time, and a string without escapes is
// returned without a copy when the caller says the input will never change.
//
// What it accepts is what encoding/json accepts (RFC 8259, with invalid UTF-8 inside
// strings tolerated and replaced by U+FFFD when decoded), plus a nesting limit.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// MaxDepth is the nesting limit of Valid and Skip, the same as the Go SDK's: deeper
// input is refused with a *DepthError before any decoder sees it.
const MaxDepth = 1000

// DepthError says a value nests deeper than MaxDepth.
type DepthError struct{ Offset int }

func (e *DepthError) Error() string {
	return fmt.Sprintf("JSON nested more than %d levels deep (at byte %d)", MaxDepth, e.Offset)
}

// SyntaxError says the input is not JSON.
type SyntaxError struct {
	Offset int
	What   string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.What)
}

func syntax(i int, what string) error { return &SyntaxError{Offset: i, What: what} }

// IsDepth reports whether err is a *DepthError.
func IsDepth(err error) bool {
	var d *DepthError
	return errors.As(err, &d)
}

// Valid reports whether data is exactly one JSON value (with surrounding whitespace).
func Valid(data []byte) error {
	i := skipWS(data, 0)
	end, err := Skip(data, i)
	if err != nil {
		return err
	}
	if j := skipWS(data, end); j != len(data) {
		return syntax(j, "data after the value")
	}
	return nil
}

// Skip validates the value that starts at data[i] (no leading whitespace) and returns
// the offset just past it.
func Skip(data []byte, i int) (int, error) {
	// An explicit stack of open containers instead of recursion: the depth guard is
	// then one comparison, and hostile nesting costs no goroutine stack.
	var stackBuf [64]byte
	stack := stackBuf[:0]
	for {
		// A value is expected at i.
		if i >= len(data) {
			return i, syntax(i, "unexpected end of input")
		}
		switch c := data[i]; {
		case c == '{' || c == '[':
			if len(stack) >= MaxDepth {
				return i, &DepthError{Offset: i}
			}
			stack = append(stack, c)
			i = skipWS(data, i+1)
			if i < len(data) && (c == '{' && data[i] == '}' || c == '[' && data[i] == ']') {
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if c == '{' {
				var err error
				if i, err = objectKey(data, i); err != nil {
					return i, err
				}
			}
			continue
		case c == '"':
			end, _, _, err := scanString(data, i)
			if err != nil {
				return end, err
			}
			i = end
		case c == '-' || c >= '0' && c <= '9':
			end, err := scanNumber(data, i)
			if err != nil {
				return end, err
			}
			i = end
		case c == 't':
			if !hasLit(data, i, "true") {
				return i, syntax(i, "bad literal")
			}
			i += 4
		case c == 'f':
			if !hasLit(data, i, "false") {
				return i, syntax(i, "bad literal")
			}
			i += 5
		case c == 'n':
			if !hasLit(data, i, "null") {
				return i, syntax(i, "bad literal")
			}
			i += 4
		default:
			return i, syntax(i, fmt.Sprintf("unexpected %q", c))
		}
		// After a value: close containers or move to the next element.
		for {
			if len(stack) == 0 {
				return i, nil
			}
			i = skipWS(data, i)
			if i >= len(data) {
				return i, syntax(i, "unexpected end of input")
			}
			top := stack[len(stack)-1]
			c := data[i]
			if c == ',' {
				i = skipWS(data, i+1)
				if top == '{' {
					var err error
					if i, err = objectKey(data, i); err != nil {
						return i, err
					}
				}
				break
			}
			if top == '{' && c == '}' || top == '[' && c == ']' {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			return i, syntax(i, fmt.Sprintf("unexpected %q after a value", c))
		}
	}
}

// objectKey reads `"key" :` at i and returns the offset of the value after it.
func objectKey(data []byte, i int) (int, error) {
	if i >= len(data) || data[i] != '"' {
		return i, syntax(i, "expected an object key")
	}
	end, _, _, err := scanString(data, i)
	if err != nil {
		return end, err
	}
	i = skipWS(data, end)
	if i >= len(data) || data[i] != ':' {
		return i, syntax(i, "expected ':' after an object key")
	}
	return skipWS(data, i+1), nil
}

func hasLit(data []byte, i int, lit string) bool {
	return len(data)-i >= len(lit) && string(data[i:i+len(lit)]) == lit
}

func skipWS(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// scanString validates the string that starts at data[i] (the opening quote) and
// returns the offset past its closing quote, whether it has escapes and whether it
// has bytes above 0x7F.
func scanString(data []byte, i int) (end int, escaped, nonASCII bool, err error) {
	j := i + 1
	quote := -1 // the next quote at or after j, once found: searched again only when an escape passes it
	for {
		// The run up to the next quote or backslash: found with IndexByte (vectorised),
		// then checked for control bytes and non-ASCII eight bytes at a time. The quote is
		// remembered across escapes: searching for it again after every \n of a 50 MB
		// text would make the scan quadratic.
		if quote < j {
			q := bytes.IndexByte(data[j:], '"')
			if q < 0 {
				return len(data), escaped, nonASCII, syntax(i, "unterminated string")
			}
			quote = j + q
		}
		run := data[j:quote]
		if b := bytes.IndexByte(run, '\\'); b >= 0 {
			run = run[:b]
		}
		ctl, high := checkRun(run)
		if ctl >= 0 {
			return j + ctl, escaped, nonASCII, syntax(j+ctl, "control character in a string")
		}
		nonASCII = nonASCII || high
		j += len(run)
		if data[j] == '"' {
			return j + 1, escaped, nonASCII, nil
		}
		// A backslash.
		escaped = true
		if j+1 >= len(data) {
			return j, escaped, nonASCII, syntax(j, "unterminated string")
		}
		switch data[j+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			j += 2
		case 'u':
			if len(data)-j < 6 || !isHex4(data[j+2:j+6]) {
				return j, escaped, nonASCII, syntax(j, `bad \u escape`)
			}
			j += 6
		default:
			return j, escaped, nonASCII, syntax(j, "bad escape")
		}
	}
}

// checkRun returns the offset of the first byte below 0x20 in b (-1: none) and whether
// any byte is above 0x7F.
func checkRun(b []byte) (ctl int, high bool) {
	var hi, bad uint64
	k := 0
	for ; len(b)-k >= 32; k += 32 {
		x0 := binary.LittleEndian.Uint64(b[k:])
		x1 := binary.LittleEndian.Uint64(b[k+8:])
		x2 := binary.LittleEndian.Uint64(b[k+16:])
		x3 := binary.LittleEndian.Uint64(b[k+24:])
		hi |= x0 | x1 | x2 | x3
		bad |= (x0 - lsb*0x20) &^ x0
		bad |= (x1 - lsb*0x20) &^ x1
		bad |= (x2 - lsb*0x20) &^ x2
		bad |= (x3 - lsb*0x20) &^ x3
		if bad&msb != 0 {
			break
		}
	}
	for ; k < len(b); k++ {
		if b[k] < 0x20 {
			return k, false
		}
		hi |= uint64(b[k])
	}
	return -1, hi&msb != 0
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func scanNumber(data []byte, i int) (int, error) {
	j := i
	if data[j] == '-' {
		j++
	}
	digits := func() int {
		n := 0
		for j < len(data) && data[j] >= '0' && data[j] <= '9' {
			j++
			n++
		}
		return n
	}
	if j < len(data) && data[j] == '0' {
		j++
	} else if digits() == 0 {
		return j, syntax(j, "bad number")
	}
	if j < len(data) && data[j] == '.' {
		j++
		if digits() == 0 {
			return j, syntax(j, "bad number")
		}
	}
	if j < len(data) && (data[j] == 'e' || data[j] == 'E') {
		j++
		if j < len(data) && (data[j] == '+' || data[j] == '-') {
			j++
		}
		if digits() == 0 {
			return j, syntax(j, "bad number")
		}
	}
	return j, nil
}

// Members calls fn for each member of the object data (which must be one valid JSON
// object, as checked by Valid), with the raw key (without quotes, escapes undecoded)
// and the raw value. fn returns false to stop.
func Members(data []byte, fn func(key, value []byte) bool) error {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return syntax(i, "not an object")
	}
	i = skipWS(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return syntax(i, "expected an object key")
		}
		kend, _, _, err := scanString(data, i)
		if err != nil {
			return err
		}
		key := data[i+1 : kend-1]
		i = skipWS(data, kend)
		if i >= len(data) || data[i] != ':' {
			return syntax(i, "expected ':'")
		}
		i = skipWS(data, i+1)
		vend, err := Skip(data, i)
		if err != nil {
			return err
		}
		if !fn(key, data[i:vend]) {
			return nil
		}
		i = skipWS(data, vend)
		if i >= len(data) {
			return syntax(i, "unexpected end of input")
		}
		switch data[i] {
		case ',':
			i = skipWS(data, i+1)
		case '}':
			return nil
		default:
			return syntax(i, "expected ',' or '}'")
		}
	}
}

// Elements calls fn for each element of the array data. fn returns false to stop.
func Elements(data []byte, fn func(value []byte) bool) error {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '[' {
		return syntax(i, "not an array")
	}
	i = skipWS(data, i+1)
	if i < len(data) && data[i] == ']' {
		return nil
	}
	for {
		end, err := Skip(data, i)
		if err != nil {
			return err
		}
		if !fn(data[i:end]) {
			return nil
		}
		i = skipWS(data, end)
		if i >= len(data) {
			return syntax(i, "unexpected end of input")
		}
		switch data[i] {
		case ',':
			i = skipWS(data, i+1)
		case ']':
			return nil
		default:
			return syntax(i, "expected ',' or ']'")
		}
	}
}

// String decodes the JSON string v (quotes included) into a new string.
func String(v []byte) (string, bool) { return decodeString(v, false) }

// SharedString decodes the JSON string v like String, but when v has no escapes and
// is valid UTF-8 the result shares v's memory instead of copying it. The caller
// promises that v's bytes never change afterwards.
func SharedString(v []byte) (string, bool) { return decodeString(v, true) }

func decodeString(v []byte, shared bool) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	end, escaped, nonASCII, err := scanString(v, 0)
	if err != nil || end != len(v) {
		return "", false
	}
	body := v[1 : len(v)-1]
	if !escaped && (!nonASCII || utf8.Valid(body)) {
		if shared && len(body) > 0 {
			return unsafe.String(&body[0], len(body)), true
		}
		return string(body), true
	}
	return unescape(body), true
}

// unescape decodes a string body known to be well formed, replacing invalid UTF-8 and
// lone surrogates with U+FFFD as encoding/json does.
func unescape(b []byte) string {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		if c == '\\' {
			switch e := b[i+1]; e {
			case 'u':
				r := rune(hex4(b[i+2 : i+6]))
				i += 6
				if utf16.IsSurrogate(r) {
					if i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
						if r2 := utf16.DecodeRune(r, rune(hex4(b[i+2:i+6]))); r2 != utf8.RuneError {
							out = utf8.AppendRune(out, r2)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
				continue
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			default: // '"', '\\', '/'
				out = append(out, e)
			}
			i += 2
			continue
		}
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return unsafe.String(unsafe.SliceData(out), len(out))
}

func hex4(b []byte) uint16 {
	n, _ := strconv.ParseUint(string(b), 16, 16)
	return uint16(n)
}

// KeyIs reports whether the raw key (as Members gives it) is name. Keys with escapes
// are compared after decoding.
func KeyIs(key []byte, name string) bool {
	if string(key) == name {
		return true
	}
	for _, c := range key {
		if c == '\\' {
			s, ok := String(append(append([]byte{'"'}, key...), '"'))
			return ok && s == name
		}
	}
	return false
}

// The Trusted variants walk input that Valid has already accepted. They skip strings
// with a vectorised search for the closing quote and check nothing, so walking a
// validated 100 MiB string costs a fraction of validating it again. On input that is
// not valid JSON their results are unspecified (but they never panic or loop).

// SkipTrusted returns the offset just past the valid value that starts at data[i].
func SkipTrusted(data []byte, i int) int {
	depth := 0
	for i < len(data) {
		switch c := data[i]; c {
		case '"':
			i = skipStringTrusted(data, i)
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			i++
		case ',', ':', ' ', '\t', '\n', '\r':
			i++
		default: // a number or a literal
			for i < len(data) && !isDelim(data[i]) {
				i++
			}
		}
		if depth <= 0 {
			// Past a scalar at depth 0, or past the closing bracket of the container.
			return i
		}
	}
	return len(data)
}

func isDelim(c byte) bool {
	switch c {
	case ',', ':', '}', ']', ' ', '\t', '\n', '\r', '"', '{', '[':
		return true
	}
	return false
}

// skipStringTrusted returns the offset past the string that starts at data[i].
func skipStringTrusted(data []byte, i int) int {
	j := i + 1
	for {
		q := bytes.IndexByte(data[j:], '"')
		if q < 0 {
			return len(data)
		}
		j += q
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for k := j - 1; k > i && data[k] == '\\'; k-- {
			n++
		}
		j++
		if n%2 == 0 {
			return j
		}
	}
}

// MembersTrusted is Members for an object Valid has accepted.
func MembersTrusted(data []byte, fn func(key, value []byte) bool) {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return
	}
	i = skipWS(data, i+1)
	for i < len(data) && data[i] == '"' {
		kend := skipStringTrusted(data, i)
		key := data[i+1 : max(i+1, kend-1)]
		i = skipWS(data, kend)
		if i < len(data) && data[i] == ':' {
			i++
		}
		i = skipWS(data, i)
		vend := SkipTrusted(data, i)
		if vend <= i || !fn(key, data[i:vend]) {
			return
		}
		i = skipWS(data, vend)
		if i < len(data) && data[i] == ',' {
			i = skipWS(data, i+1)
		}
	}
}

// ElementsTrusted is Elements for an array Valid has accepted.
func ElementsTrusted(data []byte, fn func(value []byte) bool) {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '[' {
		return
	}
	i = skipWS(data, i+1)
	for i < len(data) && data[i] != ']' {
		end := SkipTrusted(data, i)
		if end <= i || !fn(data[i:end]) {
			return
		}
		i = skipWS(data, end)
		if i < len(data) && data[i] == ',' {
			i = skipWS(data, i+1)
		}
	}
}

// SharedStringTrusted decodes a string value Valid has accepted, sharing v's memory
// when it has no escapes and is valid UTF-8 (see SharedString).
func SharedStringTrusted(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	body := v[1 : len(v)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		if len(body) == 0 {
			return "", true
		}
		return unsafe.String(&body[0], len(body)), true
	}
	return decodeString(v, false)
}

// MembersDeep is Members without the nesting limit, for finding the id of a message
// that Valid refused as too deep. It does not validate.
func MembersDeep(data []byte, fn func(key, value []byte) bool) { MembersTrusted(data, fn) }
