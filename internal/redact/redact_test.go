package redact

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
)

func TestSetFindsEncodedCopies(t *testing.T) {
	const secret = "sk-Live_4f9a/8b7c+6d5e?x=1"
	s := NewSet(secret)
	copies := map[string]string{
		"exact":            secret,
		"upper":            strings.ToUpper(secret),
		"lower":            strings.ToLower(secret),
		"hex":              hex.EncodeToString([]byte(secret)),
		"HEX":              strings.ToUpper(hex.EncodeToString([]byte(secret))),
		"query-escaped":    url.QueryEscape(secret),
		"path-escaped":     url.PathEscape(secret),
		"base64":           base64.StdEncoding.EncodeToString([]byte(secret)),
		"base64-raw":       base64.RawStdEncoding.EncodeToString([]byte(secret)),
		"base64url":        base64.URLEncoding.EncodeToString([]byte(secret)),
		"base64url-raw":    base64.RawURLEncoding.EncodeToString([]byte(secret)),
		"basic-auth":       base64.StdEncoding.EncodeToString([]byte("user:" + secret)),
		"base64-offset-1":  base64.StdEncoding.EncodeToString([]byte("x" + secret + "y")),
		"base64-offset-2":  base64.RawURLEncoding.EncodeToString([]byte("xy" + secret)),
		"json-in-base64":   base64.StdEncoding.EncodeToString([]byte(`{"token":"` + secret + `"}`)),
		"hex-upper-inside": "0x" + strings.ToUpper(hex.EncodeToString([]byte(secret))) + "00",
	}
	for name, c := range copies {
		text := "before " + c + " after"
		got := s.String(text)
		if !strings.Contains(got, Redacted) || strings.Contains(got, c) {
			t.Errorf("%s: %q → %q", name, text, got)
		}
		if !strings.HasPrefix(got, "before ") || !strings.HasSuffix(got, " after") {
			t.Errorf("%s: redacted too much: %q", name, got)
		}
		if b := s.Bytes([]byte(text)); string(b) != got {
			t.Errorf("%s: Bytes %q, String %q", name, b, got)
		}
	}
	// Base64 alignment: whatever precedes it, at most 2 characters at either end of
	// the secret's encoding survive.
	for pre := 0; pre < 3; pre++ {
		enc := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("z", pre) + secret))
		got := s.String(enc)
		if left := len(strings.ReplaceAll(got, Redacted, "")); left > 8 {
			t.Errorf("offset %d: %q → %q (%d characters left)", pre, enc, got, left)
		}
	}
}

func TestSetLeavesShortValuesAndOtherText(t *testing.T) {
	s := NewSet("ab", "abcd", "hunter2x")
	if got := s.String("ab abcd ABCD"); got != "ab [redacted] ABCD" {
		t.Errorf("short secret: %q (exact only below MinEncoded)", got)
	}
	if got := s.String("HUNTER2X and 68756e7465723278"); got != "[redacted] and [redacted]" {
		t.Errorf("long secret: %q", got)
	}
	text := "nothing secret here at all"
	if got := s.String(text); got != text {
		t.Errorf("%q → %q", text, got)
	}
	var nilSet *Set
	if nilSet.String(text) != text || !nilSet.Empty() {
		t.Error("a nil set redacts")
	}
}

func TestCredentialHeader(t *testing.T) {
	for _, h := range []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "X-Auth-Token",
		"Private-Token", "X-Client-Secret", "Api-Key", "X-Amz-Security-Token", "X-Signature", "Key", "X-Access-Key", "X-Auth", "DPoP", "Dpop"} {
		if !CredentialHeader(h) {
			t.Errorf("%s is a credential header", h)
		}
	}
	for _, h := range []string{"Content-Type", "Accept", "Mcp-Session-Id", "Mcp-Protocol-Version", "User-Agent", "X-Tenant", "Keep-Alive", "WWW-Authenticate", "Authentication-Info", "DPoP-Nonce"} {
		if CredentialHeader(h) {
			t.Errorf("%s is not a credential header", h)
		}
	}
}

func TestArgvSecrets(t *testing.T) {
	argv := []string{"node", "server.js", "--api-key", "key-0123456789", "--token=tok-abcdefgh", "-password", "pw-12345678",
		"--max-tokens", "100000000", "--token-file", "/run/secrets/token", "--auth-url", "https://auth.example/x",
		"--client_secret", "short", "GITHUB_TOKEN=ghp_0123456789", "PATH=/usr/bin:/bin", "--verbose", "--key", "--other",
		"sk-proj-abcdef0123456789", "GH=github_pat_11AAAAAAA0123456789", "sk-short"}
	got := ArgvSecrets(argv)
	want := []string{"key-0123456789", "tok-abcdefgh", "pw-12345678", "ghp_0123456789", "sk-proj-abcdef0123456789", "github_pat_11AAAAAAA0123456789"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("ArgvSecrets = %q, want %q", got, want)
	}
}

func TestURL(t *testing.T) {
	set := NewSet("tok-path-secret")
	for in, want := range map[string]string{
		"http://h/mcp?api_key=abc123&x=1":        "http://h/mcp?api_key=[redacted]&x=1",
		"http://u:pw@h/mcp":                      "http://[redacted]@h/mcp",
		"http://h/mcp/tok-path-secret?sig=zz":    "http://h/mcp/[redacted]?sig=[redacted]",
		"http://h/mcp?code=1&state=2&Token=abcd": "http://h/mcp?code=[redacted]&state=2&Token=[redacted]",
		"http://h/mcp?api%5Fkey=abc&q=a%20b":     "http://h/mcp?api%5Fkey=[redacted]&q=a%20b",
		"http://h/mcp":                           "http://h/mcp",
	} {
		if got := URL(in, set); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkSetString is the cost of looking for one bearer token's copies in a
// megabyte of ordinary text, against strings.Contains for the exact value alone.
func BenchmarkSetString(b *testing.B) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog 0123456789. ", 1<<20/56)
	const secret = "tok-bearer-9f8e7d6c5b"
	b.Run("set", func(b *testing.B) {
		s := NewSet(secret)
		b.SetBytes(int64(len(text)))
		for i := 0; i < b.N; i++ {
			s.String(text)
		}
	})
	b.Run("exact-contains", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for i := 0; i < b.N; i++ {
			if strings.Contains(text, secret) {
				b.Fatal("found")
			}
		}
	})
}

// The shell's and the desktop's own variables are no secrets, though the pattern
// matches their names: a recording made with PWD taken for one masked every path
// under the working directory. The secrets around them still are.
func TestSecretNameSparesTheShellsOwnVariables(t *testing.T) {
	for _, name := range []string{"PWD", "OLDPWD", "DBUS_SESSION_BUS_ADDRESS", "KEYTIMEOUT", "XDG_SESSION_TYPE", "SSH_AUTH_SOCK", "pwd"} {
		if SecretName(name) {
			t.Errorf("%s is taken for a secret", name)
		}
	}
	for _, name := range []string{"API_KEY", "GITHUB_TOKEN", "DB_PASSWORD", "SESSION_TOKEN", "DB_PWD", "SESSION_SECRET", "api_key"} {
		if !SecretName(name) {
			t.Errorf("%s is not taken for a secret", name)
		}
	}
}
