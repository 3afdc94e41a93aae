package conformance_test

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// TestOAuthConformance runs every authorization scenario of the pinned conformance
// suites (0.1.16, and 0.2.0-alpha.12 for the 2025-11-25 and 2026-07-28 revisions)
// except the extensions mcpscope does not implement (below), through ordinary
// commands: testdata/oauth-conformance.sh passes what a user would type, and
// $BROWSER is curl, which fetches the authorization URL and follows the suite's
// redirect to mcpscope's loopback listener, as a browser would.
func TestOAuthConformance(t *testing.T) {
	t.Parallel()
	c := conformanceSuites(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("curl is needed as the test's browser")
	}
	// Every auth scenario runs: workload identity federation (--oauth-grant
	// jwt-bearer --assertion-file), cross-app access / enterprise-managed
	// authorization (--oauth-grant id-jag --id-token-file --idp-token-endpoint
	// --idp-client-id), and DPoP (auth/dpop, auth/dpop-nonce, in 0.2.0 only) without
	// --dpop: the server's DPoP challenge is what asks for it.
	skip := map[string]bool{}
	bin := testutil.Mcpscope(t)
	wrap := filepath.Join(testutil.Root(), "internal", "conformance", "testdata", "oauth-conformance.sh")
	env := func(dir string) []string {
		return c.env("XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "MCPSCOPE="+bin,
			"BROWSER=curl -sfL -o /dev/null",
			// The suite's own client ID metadata document URL (it serves none; its
			// authorization server only checks the client_id is that URL).
			"CIMD_URL=https://conformance-test.local/client-metadata.json")
	}
	re := regexp.MustCompile(`(auth/[a-z0-9-]+) \[([^\]]*)\]`)
	for _, version := range []string{"0.1.16", "0.2.0-alpha.12"} {
		suite := c.suites[version]
		list, err := exec.Command(c.node, suite, "list", "--client").Output()
		if err != nil {
			t.Fatal(err)
		}
		found := re.FindAllStringSubmatch(string(list), -1)
		if len(found) < 20 {
			t.Fatalf("suite %s lists only %d auth scenarios:\n%s", version, len(found), list)
		}
		// 0.2.0 runs a scenario once per revision it applies to (2025-11-25,
		// 2026-07-28: their checks differ); the others (2025-03-26, extensions) and
		// 0.1.16 run as they are.
		type run struct{ scenario, rev string }
		var runs []run
		for _, f := range found {
			if skip[f[1]] {
				continue
			}
			n := len(runs)
			if version != "0.1.16" {
				for _, rev := range strings.Split(f[2], ",") {
					if rev == "2025-11-25" || rev == "2026-07-28" {
						runs = append(runs, run{f[1], rev})
					}
				}
			}
			if len(runs) == n {
				runs = append(runs, run{f[1], ""})
			}
		}
		for _, rn := range runs {
			sc, name := rn.scenario, version+"/"+rn.scenario
			args := []string{suite, "client", "--scenario", sc, "--command", wrap, "--timeout", "60000"}
			if rn.rev != "" {
				name += "@" + rn.rev
				args = append(args, "--spec-version", rn.rev)
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				out, err := c.run(t, dir, env(dir), args...)
				if err != nil || !strings.Contains(out, "OVERALL: PASSED") {
					t.Fatalf("scenario %s: %v\n%s", sc, err, out)
				}
			})
		}
	}
}
