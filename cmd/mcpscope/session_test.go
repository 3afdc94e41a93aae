package main_test

import (
	"strings"
	"testing"
)

// Issue 22, move 5: one builder of the session's options. --inspect of several
// servers built its client options apart from --inspect of one, and left out what the
// command answers servers: --root and --sampling declared nothing to any of them.
// Each server's first request (in the trace, under its name) must declare both, as
// it does with one server.
func TestInspectSeveralServersDeclareWhatOneDoes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, servers := range [][]string{nil, {"--server", "a=host", "--server", "b=host"}} {
		args := append([]string{"--inspect", "--trace", "--root", dir, "--sampling-reply", "hi"}, servers...)
		r := mcpscope(t, nil, args...)
		expect(t, r, 0, []string{"echo"}, nil)
		prefixes := []string{""}
		if servers != nil {
			prefixes = []string{"[a] ", "[b] "}
		}
		for _, p := range prefixes {
			first := ""
			for _, line := range strings.Split(r.stderr, "\n") {
				if strings.HasPrefix(line, p) && strings.Contains(line, " send ") && strings.Contains(line, `"method":`) {
					first = line
					break
				}
			}
			if !strings.Contains(first, `"roots":{`) || !strings.Contains(first, `"sampling":{`) {
				t.Errorf("servers %q: the first request %sdeclares no roots or no sampling: %q\nstderr:\n%s", servers, p, first, r.stderr)
			}
		}
	}
}
