package conformance_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConformanceSkillsDirectory runs the SEP-2640 directoryRead scenario
// (sep-2640-skills-directory, 0.2.0-alpha.12) against "mcpscope host --conformance
// --http" and wants every one of its six checks to succeed: the suite SKIPs them all
// when directoryRead is not declared, which TestConformanceServer counts as passing.
func TestConformanceSkillsDirectory(t *testing.T) {
	t.Parallel()
	c := conformanceSuites(t)
	url := startConformanceHost(t)
	out := t.TempDir()
	log, _ := c.run(t, t.TempDir(), c.env(), c.suites["0.2.0-alpha.12"], "server", "--scenario", "sep-2640-skills-directory", "--url", url, "--output-dir", out)
	ran, failures := readServerChecks(t, out)
	if !ran["sep-2640-skills-directory"] || len(failures) > 0 {
		t.Fatalf("sep-2640-skills-directory against mcpscope host: ran=%v failures=%v\n%s", ran, failures, tail(log, 40))
	}
	for _, id := range []string{
		"sep-2640-capability-directory-read-flag", "sep-2640-directory-read-method-registered",
		"sep-2640-directory-read-result-resources-shape", "sep-2640-directory-read-subdir-mimetype",
		"sep-2640-directory-read-invalid-params", "sep-2640-directory-read-pagination",
	} {
		if st := checkStatus(t, out, id); st != "SUCCESS" {
			t.Errorf("check %s: %s, want SUCCESS\n%s", id, st, tail(log, 40))
		}
	}
	if strings.Contains(log, "SKIPPED") {
		t.Errorf("a check was skipped:\n%s", tail(log, 40))
	}
}

// checkStatus is the status the suite wrote for one check id in any scenario's
// checks.json under dir ("" when no scenario made it).
func checkStatus(t *testing.T, dir, id string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "server-*", "checks.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var checks []struct{ ID, Status string }
		if err := json.Unmarshal(b, &checks); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, ch := range checks {
			if ch.ID == id {
				return ch.Status
			}
		}
	}
	return ""
}
