package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

var corpus = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e10`, `-1.25E-3`, `true`, `false`, `null`,
	`{"a":1,"b":[1,2,{"c":"d"}],"e":{}}`, ` [ 1 , 2 ] `, `"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00"`,
	`"\ud800"`, `"héllo wörld, long enough to take the eight-byte path"`, "\"\xff\xfe invalid utf8 here ok\"",
	// invalid
	`{`, `[1,]`, `{"a":}`, `{"a" 1}`, `01`, `1.`, `1e`, `-`, `tru`, `nul`, `"abc`, "\"a\tb\"", `"\x"`, `"\u12"`,
	`{"a":1}}`, `[1 2]`, `{1:2}`, `,`, ``, `  `, `{"a":1,}`, `"\`, `[`, `]`,
	"\"0123456789abcdef0123456789abcdef\x01\"",
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range corpus {
		got := Valid([]byte(s)) == nil
		if want := json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", s, got, want)
		}
	}
}

func TestStringAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range corpus {
		var want string
		if s == "null" || json.Unmarshal([]byte(s), &want) != nil {
			continue
		}
		for _, shared := range []bool{false, true} {
			got, ok := decodeString([]byte(s), shared)
			if !ok || got != want {
				t.Errorf("String(%q) = %q, %v; want %q", s, got, ok, want)
			}
		}
	}
}

func TestDepth(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	if err := Valid([]byte(deep)); !IsDepth(err) {
		t.Errorf("%d levels: %v", MaxDepth+1, err)
	}
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if err := Valid([]byte(ok)); err != nil {
		t.Errorf("%d levels: %v", MaxDepth, err)
	}
	if err := Valid([]byte(strings.Repeat("[", 1000000))); !IsDepth(err) {
		t.Errorf("a million [: %v", err)
	}
}

func TestMembers(t *testing.T) {
	var keys []string
	err := Members([]byte(` {"a" : 1, "b\u0063":[1,{"x":2}], "d":"e"} `), func(k, v []byte) bool {
		keys = append(keys, string(k)+"="+string(v))
		return true
	})
	if err != nil || strings.Join(keys, " ") != `a=1 b\u0063=[1,{"x":2}] d="e"` {
		t.Errorf("%v %q", err, keys)
	}
	if !KeyIs([]byte(`b\u0063`), "bc") {
		t.Error("escaped key")
	}
	var elems []string
	_ = Elements([]byte(`[1, "a" ,{}]`), func(v []byte) bool { elems = append(elems, string(v)); return true })
	if strings.Join(elems, "|") != `1|"a"|{}` {
		t.Errorf("%q", elems)
	}
}

func FuzzValid(f *testing.F) {
	for _, s := range corpus {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Valid([]byte(s)) == nil, json.Valid([]byte(s)); got != want && !IsDepth(Valid([]byte(s))) {
			t.Fatalf("Valid(%q) = %v, encoding/json %v", s, got, want)
		}
		var want string
		if strings.TrimSpace(s) != "null" && json.Unmarshal([]byte(s), &want) == nil {
			if got, ok := String([]byte(strings.TrimSpace(s))); !ok || got != want {
				t.Fatalf("String(%q) = %q, want %q", s, got, want)
			}
		}
	})
}

func BenchmarkValidBigString(b *testing.B) {
	data := []byte(`{"text":"` + strings.Repeat("0123456789abcdef", 1<<20) + `"}`)
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if err := Valid(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidEscapedString: 16 MiB of 64-byte lines, each ending in \n (the
// shape of a text resource). Each escape used to search the rest of the input for
// the closing quote again, which made a 5 MB read take 19 s.
func BenchmarkValidEscapedString(b *testing.B) {
	data := []byte(`{"text":"` + strings.Repeat(`line of a big text resource, 64 bytes with its escape......\n`, 1<<18) + `"}`)
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if err := Valid(data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestTrustedWalksAgree(t *testing.T) {
	for _, s := range corpus {
		d := []byte(s)
		if Valid(d) != nil {
			continue
		}
		i := skipWS(d, 0)
		if end, _ := Skip(d, i); SkipTrusted(d, i) != end {
			t.Errorf("SkipTrusted(%q) = %d, want %d", s, SkipTrusted(d, i), end)
		}
		var a, b []string
		_ = Members(d, func(k, v []byte) bool { a = append(a, string(k)+"="+string(v)); return true })
		MembersTrusted(d, func(k, v []byte) bool { b = append(b, string(k)+"="+string(v)); return true })
		if strings.Join(a, "|") != strings.Join(b, "|") {
			t.Errorf("MembersTrusted(%q) = %q, want %q", s, b, a)
		}
		if got, ok := SharedStringTrusted(d[i:SkipTrusted(d, i)]); d[i] == '"' {
			want, _ := String(d[i:SkipTrusted(d, i)])
			if !ok || got != want {
				t.Errorf("SharedStringTrusted(%q) = %q", s, got)
			}
		}
	}
}
