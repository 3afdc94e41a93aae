package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpscope/mcpscope/internal/redact"
)

// Redactor replaces secrets by [redacted] before anything reaches a file: literal
// values (a bearer token, env values that look like keys, secrets in the server's
// command line) with the copies of them a server is likely to echo (the rules of
// package internal/redact: any letter case, base64, hex, URL escaping, for values of
// redact.MinEncoded characters or more), and regular expressions (--redact). Inside
// JSON it works on decoded string values, so an escaped secret is found too and the
// JSON stays valid. The zero value and nil redact nothing (but credential HTTP
// headers are always redacted).
type Redactor struct {
	set      redact.Set
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

// AddSecret adds a literal value to redact (one shorter than redact.MinSecret is
// ignored).
func (r *Redactor) AddSecret(s string) { r.set.Add(s) }

// Active reports whether there is anything to redact besides HTTP headers.
func (r *Redactor) Active() bool {
	return r != nil && (!r.set.Empty() || len(r.patterns) > 0)
}

// Text redacts a plain string.
func (r *Redactor) Text(s string) string {
	if !r.Active() {
		return s
	}
	s = r.set.String(s)
	for _, re := range r.patterns {
		s = re.ReplaceAllLiteralString(s, Redacted)
	}
	return s
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
		} else if len(lit) > 2 {
			// A view of the bytes, not a copy: a 100 MiB result's one string was
			// copied whole to be looked at, which put a recording with secrets to
			// redact (a tap's, whose environment has some) at 3x the payload. s
			// is only read; what is kept is red when it differs.
			s = unsafe.String(&lit[1], len(lit)-2)
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

// SensitiveHeader reports whether an HTTP header's value is always redacted:
// Authorization, Proxy-Authorization, Cookie, Set-Cookie and names that say they
// carry a credential (redact.CredentialHeader).
func SensitiveHeader(name string) bool { return redact.CredentialHeader(name) }

// URL redacts a URL: its user info, the values of query parameters with secret
// names (api_key, token, sig…), then everything Text redacts.
func (r *Redactor) URL(u string) string {
	if u == "" {
		return ""
	}
	return r.Text(redact.URL(u, nil))
}

// Argv redacts a server's command line: the secrets Text knows, the values of flags
// such as --api-key X and --token=X and of NAME=VALUE words with secret names (see
// redact.ArgvSecrets; AddArgv adds those to the secrets), and URL query secrets.
func (r *Redactor) Argv(argv []string) []string {
	if argv == nil {
		return nil
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		if strings.Contains(a, "://") {
			a = redact.URL(a, nil)
		}
		out[i] = r.Text(a)
	}
	return out
}

// AddArgv adds the secrets of a server's command line (redact.ArgvSecrets), so that
// they are redacted wherever the server echoes them.
func (r *Redactor) AddArgv(argv []string) {
	for _, s := range redact.ArgvSecrets(argv) {
		r.AddSecret(s)
	}
}

// Headers redacts HTTP header values: credential headers (SensitiveHeader) entirely,
// the rest through Text. It returns a new map.
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

// SecretName reports whether an environment variable's name says its value is a
// secret: API_KEY, GITHUB_TOKEN, DB_PASSWORD, CLIENT_SECRET, AUTH_HEADER and the like.
func SecretName(name string) bool { return redact.SecretName(name) }

// MinEnvSecret is the shortest env value redacted as a secret: a shorter value (say
// "1") would blank out unrelated text everywhere and protects nothing.
const MinEnvSecret = redact.MinSecret

// EnvSecrets splits K=V pairs into their names, for the header, and the values of the
// ones whose names look secret (or whose values look like tokens: ghp_…, sk-…), for
// the redactor.
func EnvSecrets(kvs []string) (names, secrets []string) {
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		names = append(names, k)
		if (SecretName(k) || redact.LooksLikeToken(v)) && len(v) >= MinEnvSecret {
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
