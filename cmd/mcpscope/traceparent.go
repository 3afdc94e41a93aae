package main

import (
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"

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

// traceparentForm is version 00 of the W3C header: the only version defined.
var traceparentForm = regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$`)

// tracestateMember is one list member of W3C tracestate: key=value, the key a
// lowercase name (with an optional tenant@system form), the value printable ASCII
// without comma or equals.
var tracestateMember = regexp.MustCompile(`^[a-z0-9][a-z0-9_\-*/@]{0,255}=[\x21-\x2b\x2d-\x3c\x3e-\x7e]([\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,254}[\x21-\x2b\x2d-\x3c\x3e-\x7e])?$`)

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
	m := traceparentForm.FindStringSubmatch(tp)
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
		if mem = strings.Trim(mem, " \t"); mem != "" && !tracestateMember.MatchString(mem) {
			return fmt.Errorf("member %q is not key=value", mem)
		}
	}
	return nil
}
