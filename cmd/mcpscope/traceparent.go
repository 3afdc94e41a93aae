package main

import (
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/client"
)

// traceFlags are --traceparent and --tracestate: the W3C trace context (SEP-414)
// every request of the session carries in params._meta, so that what a server does
// for mcpscope's requests lands in the user's trace.
type traceFlags struct {
	parent string
	state  string
}

func (t *traceFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.parent, "traceparent", "", "W3C traceparent sent in every request's _meta (00-TRACEID-SPANID-FLAGS), or \"new\" for a fresh one")
	fs.StringVar(&t.state, "tracestate", "", "W3C tracestate sent beside --traceparent (vendor=value,...)")
}

// traceparentForm is version 00 of the W3C header: the only version defined. It is
// compiled on first use: every command links this package, and only --traceparent
// needs it.
var traceparentForm = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$`)
})

// tracestateMember says whether mem is one list member of W3C tracestate: key=value,
// the key a lowercase name (with an optional tenant@system form) of at most 256
// characters, the value 1 to 256 characters of printable ASCII without comma or
// equals that neither starts nor ends with a space. A hand check, not a regexp: the
// spec's counted repetitions ({0,255}, {0,254}) compile into a program of thousands
// of instructions, which cost every command about 3 ms of start-up when it was a
// package-level regexp.
func tracestateMember(mem string) bool {
	key, val, ok := strings.Cut(mem, "=")
	if !ok || len(key) == 0 || len(key) > 256 || len(val) == 0 || len(val) > 256 {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		lowerOrDigit := 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
		if !lowerOrDigit && (i == 0 || !strings.ContainsRune("_-*/@", rune(c))) {
			return false
		}
	}
	for i := 0; i < len(val); i++ {
		if c := val[i]; c < 0x20 || c > 0x7e || c == ',' || c == '=' {
			return false
		}
	}
	return val[0] != ' ' && val[len(val)-1] != ' '
}

// apply validates the flags into opts. "new" makes one trace for the whole run (a
// random trace id and parent id, sampled) and names it on stderr, so that the user
// can find it in their tracing backend; every request carries the same value, the
// span of this mcpscope run.
func (t *traceFlags) apply(opts *client.Options, stderr io.Writer) error {
	if t.parent == "" {
		if t.state != "" {
			return usageErr("--tracestate needs --traceparent: a tracestate belongs to a trace (give --traceparent VALUE, or --traceparent new)")
		}
		return nil
	}
	tp := strings.TrimSpace(t.parent)
	if tp == "new" {
		var b [24]byte
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		tp = "00-" + hex.EncodeToString(b[:16]) + "-" + hex.EncodeToString(b[16:]) + "-01"
		fmt.Fprintf(stderr, "mcpscope: traceparent %s\n", tp)
	}
	if err := checkTraceparent(tp); err != nil {
		return usageErr("--traceparent %q: %v; give 00-<32 hex>-<16 hex>-<2 hex> (lowercase), or \"new\"", t.parent, err)
	}
	if t.state != "" {
		if err := checkTracestate(t.state); err != nil {
			return usageErr("--tracestate %q: %v; give vendor=value members separated by commas", t.state, err)
		}
	}
	opts.TraceParent, opts.TraceState = tp, t.state
	return nil
}

func checkTraceparent(tp string) error {
	m := traceparentForm().FindStringSubmatch(tp)
	switch {
	case m == nil:
		return fmt.Errorf("not a version-00 W3C traceparent")
	case m[1] == strings.Repeat("0", 32):
		return fmt.Errorf("the trace id is all zeros, which W3C forbids")
	case m[2] == strings.Repeat("0", 16):
		return fmt.Errorf("the parent id is all zeros, which W3C forbids")
	}
	return nil
}

func checkTracestate(s string) error {
	if len(s) > 512 {
		return fmt.Errorf("it is %d characters, more than the 512 W3C lets a tracestate carry", len(s))
	}
	members := strings.Split(s, ",")
	if len(members) > 32 {
		return fmt.Errorf("it has %d members, more than W3C's 32", len(members))
	}
	for _, mem := range members {
		if mem = strings.Trim(mem, " \t"); mem != "" && !tracestateMember(mem) {
			return fmt.Errorf("member %q is not key=value", mem)
		}
	}
	return nil
}
