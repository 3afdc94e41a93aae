package main

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// The hand check of a tracestate member accepts exactly what the W3C grammar's
// regexp does (the regexp it replaced, kept here as the reference): the edges of
// both lengths, the key's first character, spaces inside and at the ends of the value,
// and a few thousand random members built from the characters that matter.
func TestTracestateMemberIsTheW3CGrammar(t *testing.T) {
	t.Parallel()
	ref := regexp.MustCompile(`^[a-z0-9][a-z0-9_\-*/@]{0,255}=[\x21-\x2b\x2d-\x3c\x3e-\x7e]([\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,254}[\x21-\x2b\x2d-\x3c\x3e-\x7e])?$`)
	cases := []string{
		"a=b", "congo=t61rcWkgMzE", "rojo=00f067aa0ba902b7", "tenant@system=v", "0k=v", "k-_*/@=v",
		"=v", "k=", "k", "_k=v", "@k=v", "K=v", "k=v=w", "k=v,w", "k= v", "k=v ", "k=a b", "k=\x7f", "k=é",
		"k\t=v", "k=v\n", strings.Repeat("k", 256) + "=v", strings.Repeat("k", 257) + "=v",
		"k=" + strings.Repeat("v", 256), "k=" + strings.Repeat("v", 257), "k=v" + strings.Repeat(" ", 254) + "v",
	}
	r := rand.New(rand.NewPCG(23, 5))
	alphabet := "az09_-*/@=, ~!\tAZ\x7f"
	for range 5000 {
		n := r.IntN(12)
		if r.IntN(8) == 0 {
			n = 250 + r.IntN(270)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		if r.IntN(2) == 0 && n > 2 { // most members worth testing have one '=' early
			b[r.IntN(n)] = '='
		}
		cases = append(cases, string(b))
	}
	accepted := 0
	for _, c := range cases {
		if got, want := tracestateMember(c), ref.MatchString(c); got != want {
			t.Errorf("tracestateMember(%q) = %v, the W3C grammar says %v", c, got, want)
		} else if got {
			accepted++
		}
	}
	if accepted < 20 { // the random members must reach both answers, or they test nothing
		t.Errorf("only %d of %d members were accepted", accepted, len(cases))
	}
}
