// Package redact is mcpscope's one rule set for secrets: which header, variable, flag
// and query names carry credentials, and how a secret value is found again when a
// server echoes it back changed (other letter case, base64, hex, URL escaping). The
// wire layer (what --trace and the TUI show of HTTP) and the recorder both use it.
package redact

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"unsafe"
)

// Redacted replaces every secret value.
const Redacted = "[redacted]"

// MinSecret is the shortest value redacted at all: a shorter one (say "1") would
// blank out unrelated text everywhere and protects nothing.
const MinSecret = 4

// MinEncoded is the shortest secret whose changed copies (any letter case, base64,
// hex, URL escaping) are redacted too; a shorter one is matched exactly only, since a
// case-insensitive 4-letter word, or 4 base64 characters, would redact ordinary text.
// Values taken from a server's command line count as secrets from this length on.
const MinEncoded = 8

// CredentialHeader reports whether an HTTP header carries a credential by its name:
// Authorization, Proxy-Authorization, Cookie, Set-Cookie, DPoP (RFC 9449's proof), and
// names such as X-Api-Key, X-Auth-Token, Private-Token, X-Client-Secret, X-Signature. Its values are redacted
// in every event and never sent to another origin.
func CredentialHeader(name string) bool {
	n := strings.ToLower(name)
	if n == "dpop" {
		// RFC 9449's proof: a signed credential of its own (not DPoP-Nonce, the
		// server's public nonce).
		return true
	}
	for _, s := range []string{"authorization", "cookie", "token", "secret", "password", "passwd", "passphrase",
		"apikey", "credential", "private", "signature", "bearer"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	for _, w := range strings.FieldsFunc(n, func(r rune) bool { return r == '-' || r == '_' }) {
		if w == "key" || w == "auth" || w == "sig" {
			return true
		}
	}
	return false
}

// secretName matches environment variable and query parameter names whose values are
// credentials.
// Compiled on first use, not at start: every command links this package (issue 23).
var secretName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(key|token|secret|passw(or)?d|passphrase|pwd|credential|auth|cookie|session|private|signature|bearer)`)
})

// SecretName reports whether an environment variable's (or a URL query parameter's)
// name says its value is a secret: API_KEY, GITHUB_TOKEN, DB_PASSWORD, CLIENT_SECRET,
// AUTH_HEADER and the like.
func SecretName(name string) bool {
	return !notSecretEnv[strings.ToUpper(name)] && secretName().MatchString(name)
}

// notSecretEnv are the shell's and the desktop's own variables whose names the
// pattern mistakes for secrets: PWD ("pwd") would mask every path under the working
// directory in a recording, a session bus address ("session") or KEYTIMEOUT ("key")
// is no credential. A config's env or a tap's whole environment may hold them.
var notSecretEnv = map[string]bool{
	"PWD": true, "OLDPWD": true, "SSH_AUTH_SOCK": true, "DBUS_SESSION_BUS_ADDRESS": true,
	"SESSION_MANAGER": true, "XDG_SESSION_ID": true, "XDG_SESSION_TYPE": true,
	"XDG_SESSION_CLASS": true, "XDG_SESSION_DESKTOP": true, "XDG_SESSION_PATH": true,
	"DESKTOP_SESSION": true, "KEYTIMEOUT": true, "GPG_AGENT_INFO": true,
}

// secretQuery are query parameter names that are secrets although SecretName does
// not say so: signatures and OAuth codes.
var secretQuery = map[string]bool{"sig": true, "code": true}

// secretWords are the words of a command-line flag name that make its value a secret
// (--api-key, --token, -password, --client-secret, --auth).
var secretWords = map[string]bool{"key": true, "apikey": true, "token": true, "secret": true, "password": true, "passwd": true,
	"pass": true, "pwd": true, "passphrase": true, "credential": true, "credentials": true, "auth": true, "bearer": true,
	"cookie": true, "sig": true, "signature": true, "pat": true}

// notSecretWords are words that make a flag's value something other than the secret
// itself: --token-file PATH, --api-key-env VAR, --auth-url URL.
var notSecretWords = map[string]bool{"file": true, "path": true, "dir": true, "env": true, "var": true, "url": true, "uri": true,
	"name": true, "type": true, "id": true, "length": true, "len": true, "size": true, "limit": true, "header": true,
	"helper": true, "cmd": true, "command": true, "mode": true, "method": true, "scheme": true, "endpoint": true}

// SecretFlag reports whether a command-line flag name (without its dashes) says its
// value is a secret: api-key, token, password, client_secret; not max-tokens,
// token-file or auth-url.
func SecretFlag(name string) bool {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	secret := false
	for _, w := range words {
		if notSecretWords[w] {
			return false
		}
		if secretWords[w] {
			secret = true
		}
	}
	return secret
}

// tokenPrefixes begin credentials whatever name they are given under: GitHub, OpenAI
// and Anthropic, Slack, GitLab, Google API, AWS access keys, Stripe, Hugging Face, npm.
var tokenPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "sk-", "xoxb-", "xoxp-", "xoxa-", "xapp-",
	"glpat-", "AIza", "AKIA", "ASIA", "sk_live_", "rk_live_", "hf_", "npm_"}

// LooksLikeToken reports whether a value is a credential by its shape alone: at least
// 16 characters, no white space, starting with a well-known token prefix (ghp_, sk-,
// xoxb-, glpat-, AKIA…).
func LooksLikeToken(v string) bool {
	if len(v) < 16 || strings.ContainsAny(v, " \t\r\n") {
		return false
	}
	for _, p := range tokenPrefixes {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}

// Compiled on first use, not at start: every command links this package (issue 23).
var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// ArgvSecrets returns the secrets in a server's command line: the values of flags
// whose names say they are secrets (--api-key X, --token=X, -password X) and of
// NAME=VALUE words whose names do (API_KEY=X, as `env` takes them), MinEncoded
// characters or longer, and any word that LooksLikeToken.
func ArgvSecrets(argv []string) []string {
	var out []string
	add := func(v string) {
		if len(v) >= MinEncoded {
			out = append(out, v)
		}
	}
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			continue
		}
		if strings.HasPrefix(a, "-") {
			name := strings.TrimLeft(a, "-")
			if n, v, ok := strings.Cut(name, "="); ok {
				if SecretFlag(n) {
					add(v)
				}
				continue
			}
			if SecretFlag(name) && i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
				add(argv[i+1])
				i++
			}
			continue
		}
		if n, v, ok := strings.Cut(a, "="); ok && envName().MatchString(n) && (SecretName(n) || LooksLikeToken(v)) {
			add(v)
		} else if LooksLikeToken(a) {
			add(a)
		}
	}
	return out
}

// URL redacts a URL's secrets: the password of its user info (the whole user info),
// and the values of query parameters whose names are secret (api_key, token, sig,
// code…), then the secrets of set (which may be nil). A value that does not parse
// as a URL goes through set only.
func URL(raw string, set *Set) string {
	u, err := url.Parse(raw)
	if err != nil || (u.User == nil && u.RawQuery == "") {
		return set.String(raw)
	}
	return URLOf(u, set)
}

// URLOf is URL for a parsed URL; u is not changed. The query keeps its order and
// escaping; a secret value becomes [redacted].
func URLOf(u *url.URL, set *Set) string {
	c := *u
	user := c.User != nil
	c.User = nil
	if c.RawQuery != "" {
		parts := strings.Split(c.RawQuery, "&")
		for i, p := range parts {
			k, _, ok := strings.Cut(p, "=")
			name, err := url.QueryUnescape(k)
			if err != nil {
				name = k
			}
			if ok && (SecretName(name) || secretQuery[strings.ToLower(name)]) {
				parts[i] = k + "=" + Redacted
			}
		}
		c.RawQuery = strings.Join(parts, "&")
	}
	out := c.String()
	if user {
		if i := strings.Index(out, "//"); i >= 0 {
			out = out[:i+2] + Redacted + "@" + out[i+2:]
		}
	}
	return set.String(out)
}

// Set finds secret values and the copies of them a server is likely to echo: the
// value itself; and for a value of MinEncoded characters or more, the value in any
// letter case, its base64 (standard and URL alphabets, with or without padding, at
// any alignment inside a longer base64 text), its hex (either case) and its URL
// escapings (query and path). The zero value and nil find nothing. A Set is not safe
// for concurrent Add; String and Bytes may run concurrently once it is built.
type Set struct {
	values  []string
	needles []needle
	// A Wu-Manber search over byte pairs: shift says how far the window (the length
	// of the shortest needle) may move when the pair at its end is what it is; at 0,
	// the needles that end their first window with that pair are tried.
	min   int
	shift []uint8 // 65536 entries; nil until the first search
	tail  map[uint16][]int32
}

type needle struct {
	pat  string // lower-cased when fold
	fold bool   // ASCII letters match in either case
}

// NewSet returns a set of the given values (those shorter than MinSecret are skipped).
func NewSet(values ...string) *Set {
	s := &Set{}
	for _, v := range values {
		s.Add(v)
	}
	return s
}

// Add adds a secret value; one shorter than MinSecret is ignored. It reports whether
// the value was added.
func (s *Set) Add(v string) bool {
	if len(v) < MinSecret {
		return false
	}
	for _, have := range s.values {
		if have == v {
			return false
		}
	}
	s.values = append(s.values, v)
	if len(v) < MinEncoded {
		s.addNeedle(v, false)
		s.build()
		return true
	}
	s.addNeedle(v, true)
	s.addNeedle(hex.EncodeToString([]byte(v)), true)
	for _, e := range []string{url.QueryEscape(v), url.PathEscape(v), strings.ReplaceAll(url.QueryEscape(v), "+", "%20")} {
		if e != v {
			s.addNeedle(e, true)
		}
	}
	// base64: inside a longer encoded text the value starts at any of three byte
	// offsets; the characters that encode only its own bytes are the same whatever
	// surrounds it, and they are what is found (the group of four characters at each
	// end that mixes in a neighbour's bits stays: at most two bytes of the value each).
	for _, skip := range []int{0, 1, 2} {
		rest := []byte(v[skip:])
		n := len(rest) / 3 * 3
		if n < 6 {
			continue
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			s.addNeedle(enc.EncodeToString(rest[:n]), false)
		}
	}
	s.build()
	return true
}

func (s *Set) addNeedle(p string, fold bool) {
	if fold {
		p = lowerASCII(p)
	}
	for _, n := range s.needles {
		if n.pat == p && n.fold == fold {
			return
		}
	}
	s.needles = append(s.needles, needle{pat: p, fold: fold})
}

// build makes the search tables.
func (s *Set) build() {
	s.min = 0
	for _, n := range s.needles {
		if s.min == 0 || len(n.pat) < s.min {
			s.min = len(n.pat)
		}
	}
	m := s.min
	if s.shift == nil {
		s.shift = make([]uint8, 1<<16)
	}
	def := uint8(min(m-1, 255))
	for i := range s.shift {
		s.shift[i] = def
	}
	s.tail = map[uint16][]int32{}
	for ni, n := range s.needles {
		for j := 0; j+1 < m; j++ {
			sh := uint8(min(m-2-j, 255))
			for _, a := range cases(n.pat[j], n.fold) {
				for _, b := range cases(n.pat[j+1], n.fold) {
					bg := uint16(a)<<8 | uint16(b)
					if sh < s.shift[bg] {
						s.shift[bg] = sh
					}
					if j == m-2 {
						s.tail[bg] = append(s.tail[bg], int32(ni))
					}
				}
			}
		}
	}
}

func cases(c byte, fold bool) []byte {
	if fold {
		if u := upperByte(c); u != c {
			return []byte{c, u}
		}
	}
	return []byte{c}
}

// Has reports whether v is one of the set's values.
func (s *Set) Has(v string) bool {
	if s == nil {
		return false
	}
	for _, have := range s.values {
		if have == v {
			return true
		}
	}
	return false
}

// With returns a new set of s's values and v; s is not changed (so that readers of
// s may go on while a session learns a new secret).
func (s *Set) With(v ...string) *Set {
	var old []string
	if s != nil {
		old = s.values
	}
	return NewSet(append(append([]string(nil), old...), v...)...)
}

// Empty reports whether the set finds nothing.
func (s *Set) Empty() bool { return s == nil || len(s.needles) == 0 }

// String returns str with every secret (and every copy of one) replaced by Redacted.
func (s *Set) String(str string) string {
	if s.Empty() {
		return str
	}
	var b []byte
	last := 0
	for start := 0; ; {
		i, end := s.next(str, start)
		if i < 0 {
			break
		}
		b = append(append(b, str[last:i]...), Redacted...)
		start, last = end, end
	}
	if b == nil {
		return str
	}
	return string(append(b, str[last:]...))
}

// Bytes is String for bytes. It returns b itself when nothing was found.
func (s *Set) Bytes(b []byte) []byte {
	if s.Empty() {
		return b
	}
	var out []byte
	last := 0
	str := unsafeString(b)
	for start := 0; ; {
		i, end := s.next(str, start)
		if i < 0 {
			break
		}
		out = append(append(out, b[last:i]...), Redacted...)
		start, last = end, end
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// next finds the leftmost match at or after from (the longest one there) and returns
// its start and end, or -1.
func (s *Set) next(str string, from int) (int, int) {
	m := s.min
	for i := from + m - 1; i < len(str); {
		bg := uint16(str[i-1])<<8 | uint16(str[i])
		if sh := s.shift[bg]; sh > 0 {
			i += int(sh)
			continue
		}
		start := i - m + 1
		best := -1
		for _, ci := range s.tail[bg] {
			n := &s.needles[ci]
			if len(str)-start < len(n.pat) || start+len(n.pat) <= best {
				continue
			}
			if n.fold {
				if !equalFoldASCII(str[start:start+len(n.pat)], n.pat) {
					continue
				}
			} else if str[start:start+len(n.pat)] != n.pat {
				continue
			}
			best = start + len(n.pat)
		}
		if best >= 0 {
			return start, best
		}
		i++
	}
	return -1, -1
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func upperByte(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// equalFoldASCII compares s with the lower-case pattern p, ASCII letters in any case.
func equalFoldASCII(s, p string) bool {
	for i := 0; i < len(p); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != p[i] {
			return false
		}
	}
	return true
}

func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
