package main_test

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testservers/oauthserver"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// A 403 insufficient_scope without a terminal follows the documented rule: exit 1
// with the command that logs in with the scope; with --login it steps up without
// asking (the user opted in), and the call answers.
func TestOAuthStepUpNonInteractive(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{StepUpScope: "admin:write"})
	env, _ := oauthEnv(t)
	r := mcpscope(t, env, "auth", "login", "--redirect-port", "0", srv.URL)
	expect(t, r, 0, []string{"logged in to " + srv.URL}, nil)
	r = mcpscope(t, env, "call", "admin", "--redirect-port", "0", srv.URL)
	expect(t, r, 1, nil, []string{"needs a token with more scope (mcp:read admin:write)", "mcpscope auth login --scope 'mcp:read offline_access admin:write' " + srv.URL})
	r = mcpscope(t, env, "call", "admin", "--login", "--redirect-port", "0", srv.URL)
	expect(t, r, 0, []string{"admin done with admin:write"}, nil)
}

// On a terminal a step-up asks first: n leaves the request refused (exit 1, saying
// so), y logs in again for the scope and the call answers.
func TestOAuthStepUpAsksOnATerminal(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is needed (apt-get install tmux)")
	}
	srv := oauthserver.Start(t, oauthserver.Knobs{StepUpScope: "admin:write"})
	env, _ := oauthEnv(t)
	r := mcpscope(t, env, "auth", "login", "--redirect-port", "0", srv.URL)
	expect(t, r, 0, []string{"logged in to " + srv.URL}, nil)
	bin := testutil.Mcpscope(t)
	socket := fmt.Sprintf("mcpscope-stepup-%d", time.Now().UnixNano())
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-L", socket}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", socket, "kill-server").Run() })
	cmd := fmt.Sprintf(`sh -c '%s BROWSER="curl -sfL -o /dev/null" %s call admin --redirect-port 0 %s; echo exited:$?; %s BROWSER="curl -sfL -o /dev/null" %s call admin --redirect-port 0 %s; echo exited:$?; sleep 30'`,
		env[0], bin, srv.URL, env[0], bin, srv.URL)
	tmux("new-session", "-d", "-s", "s", "-x", "200", "-y", "50", cmd)
	waitFor := func(what string, n int) string {
		t.Helper()
		return testutil.Eventually(t, fmt.Sprintf("%q %d times in the terminal", what, n), func() (bool, string) {
			s := tmux("capture-pane", "-p", "-J", "-t", "s", "-S", "-100")
			return strings.Count(s, what) >= n, s
		})
	}
	waitFor("asks for more scope (mcp:read admin:write) than the token has (mcp:read offline_access). Log in again to ask for it? [y/N]", 1)
	tmux("send-keys", "-t", "s", "n", "Enter")
	s := waitFor("exited:1", 1)
	if !strings.Contains(s, "the step-up was declined") {
		t.Errorf("declining does not say so:\n%s", s)
	}
	waitFor("[y/N]", 2)
	tmux("send-keys", "-t", "s", "y", "Enter")
	s = waitFor("exited:0", 1)
	if !strings.Contains(s, "admin done with admin:write") {
		t.Errorf("the call after the step-up:\n%s", s)
	}
}

// The jwt-bearer grant's flags: each misuse gets one message and the usage exit code.
func TestOAuthJWTBearerUsage(t *testing.T) {
	t.Parallel()
	env, _ := oauthEnv(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--oauth-grant", "jwt-bearer"}, "needs the workload's JWT: --assertion-file FILE or --assertion-env VAR"},
		{[]string{"--assertion-env", "MCPSCOPE_NO_SUCH_VAR_5e1"}, "--assertion-env MCPSCOPE_NO_SUCH_VAR_5e1: the variable is not set or empty"},
		{[]string{"--assertion-file", "/nonexistent/jwt"}, "--assertion-file: stat /nonexistent/jwt: no such file or directory"}, // read through internal/readfile, which looks before it opens
		{[]string{"--assertion-env", "HOME"}, "--assertion-file and --assertion-env are for --oauth-grant jwt-bearer"},
	} {
		r := mcpscope(t, env, append([]string{"call", "x"}, append(tc.args, "http://127.0.0.1:9/mcp")...)...)
		expect(t, r, 2, nil, []string{tc.want})
	}
}
