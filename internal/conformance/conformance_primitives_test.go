package conformance_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// TestConformancePrimitives runs the client scenarios about elicitation, request
// state, request metadata, standard headers and skills: 0.1.16 (the pinned suite) and
// 0.2.0-alpha.12 (interop's "conformance-next" alias). Each command is what a user
// types; a scenario that needs several requests gets a shell script of several
// commands, each given the server URL the suite appends.
func TestConformancePrimitives(t *testing.T) {
	t.Parallel()
	c := conformanceSuites(t)
	bin := testutil.Mcpscope(t)
	script := func(t *testing.T, lines ...string) string {
		path := filepath.Join(t.TempDir(), "client.sh")
		body := "#!/bin/sh\nset -e\n" + strings.Join(lines, "\n") + "\n"
		testutil.WriteExecutable(t, path, body)
		return path
	}
	cases := []struct {
		suite, scenario string
		command         func(t *testing.T) string
		// failing: the command is expected to fail (it refuses tampered content).
		failing bool
	}{
		{"0.1.16", "elicitation-sep1034-client-defaults", func(*testing.T) string {
			return bin + " call test_client_elicitation_defaults --elicit accept"
		}, false},
		{"0.2.0-alpha.12", "elicitation-sep1034-client-defaults", func(*testing.T) string {
			return bin + " call test_client_elicitation_defaults --elicit accept"
		}, false},
		{"0.2.0-alpha.12", "sep-2322-client-request-state", func(t *testing.T) string {
			var lines []string
			for _, tool := range []string{"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"} {
				lines = append(lines, bin+" call "+tool+` --elicit accept "$1" >/dev/null`)
			}
			return script(t, lines...)
		}, false},
		{"0.2.0-alpha.12", "request-metadata", func(t *testing.T) string {
			return bin + " --inspect --elicit accept --sampling --root " + t.TempDir()
		}, false},
		{"0.2.0-alpha.12", "http-standard-headers", func(t *testing.T) string {
			return script(t,
				// The scenario's server answers initialize with 2026-07-28, which a forced
				// 2025-11-25 refuses (exit 1) once the handshake, the part checked, is done.
				bin+` --inspect --protocol 2025-11-25 "$1" >/dev/null 2>&1 || true`,
				bin+` --inspect "$1" >/dev/null`,
				bin+` call my-hyphenated-tool "$1" >/dev/null`,
				bin+` read 'file:///path/to/file%20name.txt' "$1" >/dev/null`,
				bin+` prompt test_prompt "$1" >/dev/null`)
		}, false},
		{"0.2.0-alpha.12", "sep-2640-client-no-prefetch", func(*testing.T) string { return bin + " skills" }, false},
		{"0.2.0-alpha.12", "sep-2640-client-verify-digest", func(*testing.T) string { return bin + " skill skill://pdf-processing/SKILL.md" }, true},
		{"0.2.0-alpha.12", "sep-2640-client-verify-size", func(*testing.T) string { return bin + " skill skill://pdf-processing/SKILL.md" }, true},
		{"0.2.0-alpha.12", "sep-2640-client-verify-frontmatter", func(*testing.T) string { return bin + " skill skill://pdf-processing/SKILL.md" }, true},
	}
	for _, tc := range cases {
		t.Run(tc.suite+"/"+tc.scenario, func(t *testing.T) {
			t.Parallel()
			got, err := c.run(t, t.TempDir(), c.env(), c.suites[tc.suite], "client", "--scenario", tc.scenario, "--command", tc.command(t), "--timeout", "60000")
			if err != nil || !strings.Contains(got, "OVERALL: PASSED") || strings.Contains(got, "SKIPPED") {
				t.Fatalf("scenario %s (%s): %v\n%s", tc.scenario, tc.suite, err, got)
			}
			if tc.failing && !strings.Contains(got, "failed verification") {
				t.Fatalf("scenario %s: mcpscope did not say the skill failed verification:\n%s", tc.scenario, got)
			}
		})
	}
}
