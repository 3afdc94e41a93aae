package oauth

import (
	"encoding/base64"
	"strings"
	"testing"
)

// DecodeClaims reads what a token says without trusting it: a JWT's claims (aud a
// string or a list, scp as Entra sends it), anything else as opaque; what is wrong
// for the server is a note; every string is cut and made safe for a terminal.
func TestDecodeClaims(t *testing.T) {
	enc := base64.RawURLEncoding
	jwt := func(payload string) string {
		return enc.EncodeToString([]byte(`{"alg":"RS256","typ":"at+jwt"}`)) + "." + enc.EncodeToString([]byte(payload)) + ".c2lnbmF0dXJl"
	}
	long := strings.Repeat("x", 5000)
	for _, tc := range []struct {
		name, token string
		want        []string // in Text()
		notes       int
	}{
		{"opaque", "at-ABCDEF", []string{"opaque token"}, 0},
		{"five parts (JWE)", "a.b.c.d.e", []string{"opaque token"}, 0},
		{"not JSON", "YQ.Yg.Yw", []string{"opaque token"}, 0},
		{"aud string", jwt(`{"iss":"https://as","aud":"https://rs/mcp","sub":"u","exp":4102444800,"iat":1700000000,"scope":"a b","client_id":"c1"}`),
			[]string{"signature not verified", "iss https://as", "aud https://rs/mcp", "sub u", "scope a b", "client_id c1", "exp 2100-01-01T00:00:00Z", "iat 2023-11-14"}, 0},
		{"aud list, scp", jwt(`{"iss":"https://as","aud":["https://other","https://rs/mcp"],"scp":["r","w"]}`), []string{"aud https://other https://rs/mcp", "scope r w"}, 0},
		{"another audience, issuer, expired", jwt(`{"iss":"https://evil","aud":"https://other","exp":1}`), []string{"aud https://other"}, 3},
		{"escapes and size", jwt(`{"iss":"https://as","aud":"https://rs/mcp","sub":"a\u001b]52;c;eA==\u0007b` + long + `"}`), []string{"sub a␛]52;c;eA==␇b"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DecodeClaims(tc.token, "https://as", "https://rs/mcp")
			text := c.Text()
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("Text() lacks %q: %s", w, text)
				}
			}
			if len(c.Notes) != tc.notes {
				t.Errorf("notes %q, want %d", c.Notes, tc.notes)
			}
			if strings.ContainsAny(text, "\x1b\x07") || len(text) > 2000 || strings.Contains(text, "c2lnbmF0dXJl") {
				t.Errorf("Text() is unsafe, too long or shows the signature: %q", text)
			}
		})
	}
}
