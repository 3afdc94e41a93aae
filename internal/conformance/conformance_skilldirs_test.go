package conformance_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestConformanceSkillsDirectory runs the SEP-2640 scenarios of 0.2.0-alpha.12
// (sep-2640-skills-directory, -enumeration, -manifest) against "mcpscope host
// --conformance --http" and wants every check to succeed: not only no FAILURE (which
// is all TestConformanceServer asks) but no WARNING and no SKIPPED either. The
// directory scenario SKIPs its six checks when directoryRead is not declared; the
// manifest one warns when SKILL.md's resource is not named after its frontmatter.
func TestConformanceSkillsDirectory(t *testing.T) {
	t.Parallel()
	c := conformanceSuites(t)
	url := startConformanceHost(t)
	for _, scenario := range []string{"sep-2640-skills-directory", "sep-2640-skills-enumeration", "sep-2640-skills-manifest"} {
		out := t.TempDir()
		log, _ := c.run(t, t.TempDir(), c.env(), c.suites["0.2.0-alpha.12"], "server", "--scenario", scenario, "--url", url, "--output-dir", out)
		statuses := checkStatuses(t, out)
		if len(statuses) == 0 {
			t.Errorf("%s made no checks:\n%s", scenario, tail(log, 40))
		}
		for id, st := range statuses {
			if st != "SUCCESS" {
				t.Errorf("%s: check %s is %s, want SUCCESS\n%s", scenario, id, st, tail(log, 40))
			}
		}
		if scenario == "sep-2640-skills-directory" {
			for _, id := range []string{
				"sep-2640-capability-directory-read-flag", "sep-2640-directory-read-method-registered",
				"sep-2640-directory-read-result-resources-shape", "sep-2640-directory-read-subdir-mimetype",
				"sep-2640-directory-read-invalid-params", "sep-2640-directory-read-pagination",
			} {
				if statuses[id] != "SUCCESS" {
					t.Errorf("check %s: %q, want SUCCESS", id, statuses[id])
				}
			}
		}
	}
}

// checkStatuses is the status of every check the suite wrote in the checks.json of
// the scenarios under dir, by check id.
func checkStatuses(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
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
			out[ch.ID] = ch.Status
		}
	}
	return out
}
