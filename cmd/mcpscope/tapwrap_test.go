package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// desktopConfig is a Claude Desktop file as the app writes it, with a server and
// the app's own settings beside it.
const desktopConfig = `{
  "mcpServers": {
    "host": {
      "command": "mcpscope-host",
      "args": [
        "host"
      ],
      "env": { "API_KEY": "sk-not-a-real-key" }
    },
    "other": { "command": "node", "args": ["other.js"] }
  },
  "globalShortcut": "Alt+Space"
}
`

// TestTapWrapRefusesWithoutATerminal: no terminal to ask on and no --yes: the
// change is shown, nothing is written (no backup either), exit 2 with what to do.
func TestTapWrapRefusesWithoutATerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "claude_desktop_config.json")
	writeFile(t, file, desktopConfig)
	r := mcpscope(t, nil, "tap", "wrap", "host", "--config", file)
	expect(t, r, 2, []string{"--- " + file, `-      "command": "mcpscope-host",`, `"tap", "--name", "host", "--", "mcpscope-host", "host"`},
		[]string{"not changing " + file + ": no terminal to ask on; run again with --yes"})
	if got, _ := os.ReadFile(file); string(got) != desktopConfig {
		t.Fatalf("the file changed:\n%s", got)
	}
	if list, _ := filepath.Glob(file + ".mcpscope-backup-*"); len(list) != 0 {
		t.Fatalf("backups left: %v", list)
	}
}

// TestTapWrapYesThenUnwrap: --yes wraps the entry as the host will run it (this
// mcpscope's absolute path, the tap, the original command line after "--", --record
// made absolute), keeps the rest of the file byte for byte and a backup; a second
// wrap says "already wrapped" and changes nothing; unwrap gives the file back.
func TestTapWrapYesThenUnwrap(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "claude_desktop_config.json")
	writeFile(t, file, desktopConfig)
	cmd := exec.Command(bin, "tap", "wrap", "host", "--config", file, "--yes", "--record", "taps")
	cmd.Dir = dir
	r := runCommand(t, cmd)
	expect(t, r, 0, []string{`server "host" wrapped; the file as it was: ` + file + ".mcpscope-backup-", "mcpscope tap unwrap host"}, nil)
	got, _ := os.ReadFile(file)
	var doc struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatalf("the wrapped file is not JSON: %v\n%s", err, got)
	}
	e := doc.MCPServers["host"]
	want := []string{"tap", "--name", "host", "--record", filepath.Join(dir, "taps") + string(filepath.Separator), "--", "mcpscope-host", "host"}
	if e.Command != bin || strings.Join(e.Args, " ") != strings.Join(want, " ") || e.Env["API_KEY"] != "sk-not-a-real-key" {
		t.Fatalf("the host would run %q %q (env %v), want %q %q", e.Command, e.Args, e.Env, bin, want)
	}
	if !bytes.HasSuffix(got, []byte("    \"other\": { \"command\": \"node\", \"args\": [\"other.js\"] }\n  },\n  \"globalShortcut\": \"Alt+Space\"\n}\n")) {
		t.Fatalf("the rest of the file changed:\n%s", got)
	}
	list, _ := filepath.Glob(file + ".mcpscope-backup-*")
	if len(list) != 1 {
		t.Fatalf("backups: %v", list)
	}
	if b, _ := os.ReadFile(list[0]); string(b) != desktopConfig {
		t.Fatal("the backup is not the file as it was")
	}

	r = mcpscope(t, nil, "tap", "wrap", "host", "--config", file)
	expect(t, r, 0, []string{`server "host" is already wrapped`}, nil)
	if again, _ := os.ReadFile(file); !bytes.Equal(again, got) {
		t.Fatal("a second wrap changed the file")
	}

	r = mcpscope(t, nil, "tap", "unwrap", "host", "--config", file, "--yes")
	expect(t, r, 0, []string{`server "host" unwrapped`, "restored byte for byte"}, nil)
	if back, _ := os.ReadFile(file); string(back) != desktopConfig {
		t.Fatalf("unwrap:\n%s", back)
	}
}

// TestTapWrapBadInput: one clear message and exit 2 for each thing a user can get
// wrong.
func TestTapWrapBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp.json")
	writeFile(t, file, desktopConfig)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tap", "wrap"}, "name one configured server"},
		{[]string{"tap", "wrap", "nope", "--config", file}, `has no server "nope"`},
		{[]string{"tap", "wrap", "host", "--config", filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"tap", "wrap", "host", "--client", "zed"}, `--client "zed": use claude-desktop, claude-code, cursor, vscode`},
		{[]string{"tap", "wrap", "host", "--config", dir}, "not a regular file"},
	} {
		r := mcpscope(t, nil, tc.args...)
		expect(t, r, 2, nil, []string{tc.want})
	}
}

// TestTapWrapAsksOnATerminal: on a terminal, wrap shows the change and asks a
// question that names the host, the file and the entry; n changes nothing, y wraps.
func TestTapWrapAsksOnATerminal(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is needed (apt-get install tmux)")
	}
	bin := testutil.Mcpscope(t)
	file := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	writeFile(t, file, desktopConfig)
	socket := fmt.Sprintf("mcpscope-tapwrap-%d", time.Now().UnixNano())
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-L", socket}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", socket, "kill-server").Run() })
	wrapCmd := fmt.Sprintf("%s tap wrap host --client claude-desktop --config %s", bin, file)
	tmux("new-session", "-d", "-s", "s", "-x", "250", "-y", "50",
		fmt.Sprintf(`sh -c '%s; echo exited:$?; %s; echo exited:$?; sleep 60'`, wrapCmd, wrapCmd))
	waitFor := func(what string, n int) string {
		t.Helper()
		return testutil.Eventually(t, fmt.Sprintf("%q %d times in the terminal", what, n), func() (bool, string) {
			s := tmux("capture-pane", "-p", "-J", "-t", "s", "-S", "-200")
			return strings.Count(s, what) >= n, s
		})
	}
	question := `Wrap server "host" in Claude Desktop's ` + file + ` so that it runs through mcpscope tap? [y/N]`
	s := waitFor(question, 1)
	if !strings.Contains(s, `-      "command": "mcpscope-host",`) {
		t.Errorf("the change is not shown before the question:\n%s", s)
	}
	tmux("send-keys", "-t", "s", "n", "Enter")
	s = waitFor("exited:0", 1)
	if !strings.Contains(s, "nothing changed") {
		t.Errorf("declining does not say so:\n%s", s)
	}
	if got, _ := os.ReadFile(file); string(got) != desktopConfig {
		t.Fatal("n changed the file")
	}
	waitFor(question, 2)
	tmux("send-keys", "-t", "s", "y", "Enter")
	s = waitFor("exited:0", 2)
	if !strings.Contains(s, `server "host" wrapped`) {
		t.Errorf("y did not wrap:\n%s", s)
	}
	if got, _ := os.ReadFile(file); !strings.Contains(string(got), `"args": ["tap", "--name", "host", "--", "mcpscope-host", "host"]`) {
		t.Fatalf("the file after y:\n%s", got)
	}
}

// TestTapWrappedEntryRuns: the entry as wrap rewrote it, started as a host starts
// it (command, args and env from the file), with mcpscope call as the host: the
// server answers through the tap, and the tap records the session into --record.
// It needs the stdio tap (issue 24's slice A); until that is in this build it skips.
func TestTapWrappedEntryRuns(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	if r := mcpscope(t, nil, "tap", "--help"); !strings.Contains(r.stdout, "CMD ARGS") {
		t.Skip("this build has no stdio tap yet (mcpscope tap -- CMD ARGS...: slice A of issue 24)")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "claude_desktop_config.json")
	writeFile(t, file, `{"mcpServers": {"host": {"command": "`+bin+`", "args": ["host"], "env": {"MCPSCOPE_WRAP_TEST": "1"}}}}`)
	recDir := filepath.Join(dir, "taps")
	expect(t, mcpscope(t, nil, "tap", "wrap", "host", "--config", file, "--yes", "--record", recDir), 0, []string{"wrapped"}, nil)
	var doc struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
			Env     map[string]string
		} `json:"mcpServers"`
	}
	b, _ := os.ReadFile(file)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	e := doc.MCPServers["host"]
	// mcpscope as the host probes the era by whether the server reads server/discover
	// in time; the tap reads at once, so a loaded machine's slow answer must not be
	// taken for silence (the README says so of such hosts): a long probe timeout.
	args := []string{"call", "echo", "text=through the tap", "--probe-timeout", "2m"}
	for k, v := range e.Env {
		args = append(args, "-e", k+"="+v) // as the host sets the entry's env
	}
	args = append(append(args, "--", e.Command), e.Args...)
	r := mcpscope(t, nil, args...)
	expect(t, r, 0, []string{"through the tap"}, nil)
	testutil.Eventually(t, "a recording of the tapped call in "+recDir, func() (bool, string) {
		list, _ := filepath.Glob(filepath.Join(recDir, "*.jsonl"))
		for _, p := range list {
			if data, _ := os.ReadFile(p); bytes.Contains(data, []byte("through the tap")) {
				return true, ""
			}
		}
		return false, fmt.Sprint(list)
	})
}
