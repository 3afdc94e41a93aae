package conformance_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// conformance is the official conformance suite as interop/ pins it: 0.1.16 under its
// own name and 0.2.0-alpha.12 under the alias "conformance-next", both run on the
// Node 22 that the npm package "node" installs there.
type conformance struct {
	interop string
	node    string
	suites  map[string]string // version → the suite's CLI script
}

// conformanceSuites finds the pinned suites, failing with what to run when they are
// not installed.
func conformanceSuites(t *testing.T) conformance {
	t.Helper()
	interop := filepath.Join(testutil.Root(), "interop")
	c := conformance{
		interop: interop,
		node:    filepath.Join(interop, "node_modules", "node", "bin", "node"),
		suites: map[string]string{
			"0.1.16":         filepath.Join(interop, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
			"0.2.0-alpha.12": filepath.Join(interop, "node_modules", "conformance-next", "dist", "index.js"),
		},
	}
	for _, p := range []string{c.node, c.suites["0.1.16"], c.suites["0.2.0-alpha.12"]} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s is not installed (%v); run scripts/test, or `npm ci` in interop/", p, err)
		}
	}
	return c
}

// env is the environment a scenario runs in: the suite's servers kept on 127.0.0.1 by
// the loopback preload, and Node 22 first on PATH, plus extra.
func (c conformance) env(extra ...string) []string {
	return append(append(os.Environ(), "NODE_OPTIONS=--require "+filepath.Join(c.interop, "loopback.cjs"),
		"PATH="+filepath.Dir(c.node)+string(os.PathListSeparator)+os.Getenv("PATH")), extra...)
}

// run runs the suite's CLI with args in dir and returns what it printed. The suite
// bounds each scenario itself (--timeout); a run that outlives three minutes hung.
func (c conformance) run(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	return c.runWithin(t, 3*time.Minute, dir, env, args...)
}

// runWithin is run for a run of many scenarios: one that outlives hung (a guard
// against a hang, not a judgement of speed) is killed and fails the test.
func (c conformance) runWithin(t *testing.T, hung time.Duration, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(c.node, args...)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(hung):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the conformance suite hung:\n%s", out.String())
		return "", nil
	}
}
