package fields

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// Map is a JSON object that remembers the order of its keys. Schemas are
// decoded into it so that a form lists properties in the order the server
// wrote them, and values are decoded into it so that extra keys round-trip in
// their original order.
type Map struct {
	Keys []string
	Vals map[string]any
}

func NewMap() *Map { return &Map{Vals: map[string]any{}} }

func (o *Map) Get(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.Vals[k]
	return v, ok
}

// at returns the value at k, or nil.
func (o *Map) At(k string) any {
	v, _ := o.Get(k)
	return v
}

func (o *Map) Has(k string) bool {
	_, ok := o.Get(k)
	return ok
}

func (o *Map) Set(k string, v any) {
	if _, ok := o.Vals[k]; !ok {
		o.Keys = append(o.Keys, k)
	}
	o.Vals[k] = v
}

func (o *Map) Del(k string) {
	if _, ok := o.Vals[k]; !ok {
		return
	}
	delete(o.Vals, k)
	for i, key := range o.Keys {
		if key == k {
			o.Keys = append(o.Keys[:i:i], o.Keys[i+1:]...)
			break
		}
	}
}

func (o *Map) Len() int {
	if o == nil {
		return 0
	}
	return len(o.Keys)
}

// str returns the string value at k, or "" when absent or not a string.
func (o *Map) Str(k string) string {
	v, _ := o.Get(k)
	s, _ := v.(string)
	return s
}

// clone is a shallow copy.
func (o *Map) Clone() *Map {
	c := &Map{Keys: append([]string(nil), o.Keys...), Vals: make(map[string]any, len(o.Vals))}
	for k, v := range o.Vals {
		c.Vals[k] = v
	}
	return c
}

const maxJSONDepth = 10000

// Parse decodes one JSON value into nil, bool, json.Number, string, []any
// and *Map, keeping object key order. Duplicate keys keep their first
// position and their last value.
func Parse(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, errors.New("JSON nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, errors.New("unexpected end of JSON input")
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := NewMap()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errors.New("object key is not a string")
				}
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		}
		return nil, fmt.Errorf("unexpected %q", t)
	default:
		return t, nil
	}
}

// Encode writes v compactly (indent == "") or pretty-printed.
func Encode(v any, indent string) []byte {
	var b bytes.Buffer
	writeJSON(&b, v, indent, 0)
	return b.Bytes()
}

func writeJSON(b *bytes.Buffer, v any, indent string, level int) {
	nl := func(l int) {
		if indent != "" {
			b.WriteByte('\n')
			for i := 0; i < l; i++ {
				b.WriteString(indent)
			}
		}
	}
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		if IsNumber(string(t)) {
			b.WriteString(string(t))
		} else {
			writeString(b, string(t))
		}
	case string:
		writeString(b, t)
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(level + 1)
			writeJSON(b, e, indent, level+1)
		}
		nl(level)
		b.WriteByte(']')
	case *Map:
		if t.Len() == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, k := range t.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(level + 1)
			writeString(b, k)
			b.WriteByte(':')
			if indent != "" {
				b.WriteByte(' ')
			}
			writeJSON(b, t.Vals[k], indent, level+1)
		}
		nl(level)
		b.WriteByte('}')
	case RawJSON:
		if indent == "" {
			b.Write(t)
		} else {
			var pb bytes.Buffer
			if json.Indent(&pb, t, strings.Repeat(indent, level), indent) == nil {
				b.Write(pb.Bytes())
			} else {
				b.Write(t)
			}
		}
	default:
		// Not produced by this package; fall back to encoding/json.
		data, err := json.Marshal(t)
		if err != nil {
			b.WriteString("null")
			return
		}
		b.Write(data)
	}
}

// RawJSON is already-valid compact JSON.
type RawJSON []byte

const hexDigits = "0123456789abcdef"

// writeString writes s as a JSON string without HTML escaping.
func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				b.WriteString(`\"`)
			case c == '\\':
				b.WriteString(`\\`)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\t':
				b.WriteString(`\t`)
			case c < 0x20:
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xf])
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case termsafe.Escaped(r):
			// C1 and bidi controls as \u escapes, so that the raw JSON editor never
			// holds one a terminal would interpret.
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				writeU(b, r1)
				writeU(b, r2)
			} else {
				writeU(b, r)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

// writeU writes the JSON escape \uXXXX of a UTF-16 code unit.
func writeU(b *bytes.Buffer, u rune) {
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hexDigits[u>>shift&0xf])
	}
}

// Compiled on first use, not at start: every command links this package (issue 23).
var numberRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`) })

// IsNumber reports whether s is a number in JSON syntax.
func IsNumber(s string) bool { return numberRE().MatchString(s) }

// Overflows reports whether the JSON number s is beyond what a 64-bit float holds
// (1e400): valid JSON, but a JavaScript or Python server reads it as Infinity.
func Overflows(s string) bool {
	f, err := strconv.ParseFloat(s, 64)
	return err != nil && math.IsInf(f, 0)
}

// IsIntegral reports whether the JSON number s has no fractional part.
func IsIntegral(s string) bool {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// Out of float range: a huge magnitude is integral for any
		// practical purpose; the validator has the final word.
		return math.IsInf(f, 0)
	}
	return f == math.Trunc(f)
}

// Equal compares two decoded JSON values; numbers compare by value.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		fx, err1 := strconv.ParseFloat(string(x), 64)
		fy, err2 := strconv.ParseFloat(string(y), 64)
		return err1 == nil && err2 == nil && fx == fy
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case *Map:
		y, ok := b.(*Map)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for _, k := range x.Keys {
			yv, ok := y.Get(k)
			if !ok || !Equal(x.Vals[k], yv) {
				return false
			}
		}
		return true
	}
	return false
}

// TypeOf names the JSON type of a decoded value as JSON Schema does.
func TypeOf(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if IsIntegral(string(t)) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case *Map:
		return "object"
	}
	return "unknown"
}

// PtrEscape escapes one JSON pointer reference token.
func PtrEscape(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func PtrUnescape(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// CompactText renders v as one line of JSON, for hints and labels.
func CompactText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return string(Encode(v, ""))
}
