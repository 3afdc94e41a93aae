package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Redactor replaces secrets by [redacted] before anything reaches a file: literal
// values (a bearer token, env values that look like keys) and regular expressions
// (--redact). Inside JSON it works on decoded string values, so an escaped secret is
// found too and the JSON stays valid. The zero value and nil redact nothing (but
// sensitive HTTP headers are always redacted).
type Redactor struct {
	secrets  []string
	patterns []*regexp.Regexp
}

// NewRedactor returns a redactor for the literal secrets (empty ones are skipped) and
// the regular expressions in patterns (Go syntax).
func NewRedactor(secrets, patterns []string) (*Redactor, error) {
	r := &Redactor{}
	for _, s := range secrets {
		r.AddSecret(s)
	}
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("--redact %q: %v", p, err)
		}
		if re.MatchString("") {
			return nil, fmt.Errorf("--redact %q matches the empty string; it would redact between every character", p)
		}
		r.patterns = append(r.patterns, re)
	}
	return r, nil
}

// AddSecret adds a literal value to redact.
func (r *Redactor) AddSecret(s string) {
	if s == "" {
		return
	}
	for _, have := range r.secrets {
		if have == s {
			return
		}
	}
	r.secrets = append(r.secrets, s)
	// Longer secrets first, so that one containing another is replaced whole.
	for i := len(r.secrets) - 1; i > 0 && len(r.secrets[i]) > len(r.secrets[i-1]); i-- {
		r.secrets[i], r.secrets[i-1] = r.secrets[i-1], r.secrets[i]
	}
}

// Active reports whether there is anything to redact besides HTTP headers.
func (r *Redactor) Active() bool {
	return r != nil && (len(r.secrets) > 0 || len(r.patterns) > 0)
}

// Text redacts a plain string.
func (r *Redactor) Text(s string) string {
	if !r.Active() {
		return s
	}
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	for _, re := range r.patterns {
		s = re.ReplaceAllLiteralString(s, Redacted)
	}
	return s
}

// Strings redacts each string of a slice, returning a new slice.
func (r *Redactor) Strings(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = r.Text(s)
	}
	return out
}

// JSON redacts every string (member names included) of a JSON text and leaves
// everything else byte for byte as it was. It does not validate: text that is not
// JSON is handled as well as it can be, and an unterminated string is redacted as text.
func (r *Redactor) JSON(b []byte) []byte {
	if !r.Active() {
		return b
	}
	var out []byte // nil until something changes
	last := 0      // b[last:] not yet copied to out
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		start := i
		escaped := false
		i++
		for ; i < len(b); i++ {
			if b[i] == '\\' {
				escaped = true
				i++ // skip the escaped byte
				continue
			}
			if b[i] == '"' {
				break
			}
		}
		if i >= len(b) { // unterminated
			s := string(b[start:])
			if red := r.Text(s); red != s {
				out = append(append(out, b[last:start]...), red...)
				last = len(b)
			}
			break
		}
		lit := b[start : i+1]
		var s string
		if escaped {
			if json.Unmarshal(lit, &s) != nil {
				s = string(lit[1 : len(lit)-1])
			}
		} else {
			s = string(lit[1 : len(lit)-1])
		}
		red := r.Text(s)
		if red == s {
			continue
		}
		out = append(out, b[last:start]...)
		out = appendJSONString(out, red)
		last = i + 1
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// sensitiveHeaders are always redacted, whatever the redactor.
var sensitiveHeaders = map[string]bool{
	"authorization":       true,
	"proxy-authorization": true,
	"cookie":              true,
	"set-cookie":          true,
}

// SensitiveHeader reports whether an HTTP header's value is always redacted.
func SensitiveHeader(name string) bool { return sensitiveHeaders[strings.ToLower(name)] }

// Headers redacts HTTP header values: Authorization, Proxy-Authorization, Cookie and
// Set-Cookie entirely, the rest through Text. It returns a new map.
func (r *Redactor) Headers(h map[string][]string) map[string][]string {
	if h == nil {
		return nil
	}
	out := make(map[string][]string, len(h))
	for k, vs := range h {
		red := make([]string, len(vs))
		for i, v := range vs {
			if SensitiveHeader(k) {
				red[i] = Redacted
			} else {
				red[i] = r.Text(v)
			}
		}
		out[k] = red
	}
	return out
}

// secretName matches environment variable names whose values are credentials.
var secretName = regexp.MustCompile(`(?i)(key|token|secret|passw(or)?d|passphrase|pwd|credential|auth|cookie|session|private|signature|bearer)`)

// SecretName reports whether an environment variable's name says its value is a
// secret: API_KEY, GITHUB_TOKEN, DB_PASSWORD, CLIENT_SECRET, AUTH_HEADER and the like.
func SecretName(name string) bool { return secretName.MatchString(name) }

// MinEnvSecret is the shortest env value redacted as a secret: a shorter value (say
// "1") would blank out unrelated text everywhere and protects nothing.
const MinEnvSecret = 4

// EnvSecrets splits K=V pairs into their names, for the header, and the values of the
// ones whose names look secret, for the redactor.
func EnvSecrets(kvs []string) (names, secrets []string) {
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		names = append(names, k)
		if SecretName(k) && len(v) >= MinEnvSecret {
			secrets = append(secrets, v)
		}
	}
	return names, secrets
}

// appendJSONString appends s as a JSON string without HTML escaping.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// compactJSON returns b without insignificant whitespace, reusing b when it has no
// line breaks (the common case: a message from an NDJSON line), and reports whether b
// is valid JSON (taken on trust when valid is set and b is reused).
func compactJSON(b []byte, valid bool) ([]byte, bool) {
	if bytes.IndexByte(b, '\n') < 0 && bytes.IndexByte(b, '\r') < 0 {
		return b, valid || json.Valid(b)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b, false
	}
	return buf.Bytes(), true
}
