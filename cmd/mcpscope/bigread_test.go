package main_test

import (
	"strings"
	"testing"
)

// A 20 MiB text resource (numbered lines, each escaped \n on the wire) reads whole
// within the default timeout. It used to time out: the scan of the answer searched for
// the string's closing quote again after every escape, quadratic in the text.
func TestReadBigTextResource(t *testing.T) {
	t.Parallel()
	r := mcpscope(t, nil, "read", "mcpscope://demo/big/20")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr: %s", r.code, r.stderr)
	}
	if len(r.stdout) < 20<<20 || !strings.HasPrefix(r.stdout, "line 000000000 ") || !strings.Contains(r.stdout, "line 000327679 ") {
		t.Fatalf("read %d bytes, starting %q", len(r.stdout), r.stdout[:min(80, len(r.stdout))])
	}
}
