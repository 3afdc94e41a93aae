package conformance_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// TestConformance runs the client scenarios of the official conformance suite (npm
// @modelcontextprotocol/conformance, pinned in interop/, on the Node 22 that the npm
// package "node" installs there) against the ordinary commands. The suite starts its
// own servers; the loopback preload keeps them on 127.0.0.1. Nothing in mcpscope
// knows the suite: the commands are the ones a user types.
func TestConformance(t *testing.T) {
	t.Parallel()
	c := conformanceSuites(t)
	bin := testutil.Mcpscope(t)
	cases := []struct{ scenario, command string }{
		{"initialize", bin + " --inspect"},
		{"tools_call", bin + ` call add_numbers --args '{"a":1,"b":2}'`},
		{"sse-retry", bin + " call test_reconnection"},
	}
	for _, tc := range cases {
		t.Run(tc.scenario, func(t *testing.T) {
			t.Parallel()
			out, err := c.run(t, t.TempDir(), c.env(), c.suites["0.1.16"], "client", "--scenario", tc.scenario, "--command", tc.command, "--timeout", "30000")
			if err != nil || !strings.Contains(out, "OVERALL: PASSED") {
				t.Fatalf("scenario %s: %v\n%s", tc.scenario, err, out)
			}
		})
	}
}

// TestLoopbackBindsBeforeListenReturns: the conformance suite reads a server's port
// right after listen() and starts mcpscope at once. The loopback preload must have
// bound the port by then, or a client that starts fast (on a loaded machine, before
// the suite's next tick) is refused: TestConformance/tools_call failed that way. The
// script blocks its own event loop in spawnSync while a child connects.
func TestLoopbackBindsBeforeListenReturns(t *testing.T) {
	t.Parallel()
	interop := filepath.Join(testutil.Root(), "interop")
	node := filepath.Join(interop, "node_modules", "node", "bin", "node")
	script := `
const net = require('net');
const { spawnSync } = require('child_process');
const s = net.createServer((c) => c.end('ok'));
s.listen(0);
const port = s.address().port;
const r = spawnSync(process.execPath, ['-e', "require('net').connect(" + port + ", '127.0.0.1').on('connect', () => process.exit(0)).on('error', (e) => { console.error(e.message); process.exit(1); })"], { env: { ...process.env, NODE_OPTIONS: '' }, encoding: 'utf8' });
console.log(r.status === 0 ? 'connected' : 'refused: ' + r.stderr.trim());
s.close();
`
	cmd := exec.Command(node, "--require", filepath.Join(interop, "loopback.cjs"), "-e", script)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "connected") {
		t.Fatalf("a client started right after listen(0) was not let in: %v\n%s", err, out)
	}
}
