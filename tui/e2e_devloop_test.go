package tui

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// Issue 13: a secret given with -e (a stdio server) or --bearer (HTTP) never reaches
// the lasting history, not even when the server echoes it back, while the call
// itself is kept: the built binary in tmux, its state directory a temporary one,
// grepped byte for byte.
func TestEndToEndHistoryKeepsNoSecrets(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	const envSecret, bearer = "env-sekrit-5a4b3c2d1e", "tok-bearer-0f9e8d7c6b"

	// The bundled host over HTTP, for --bearer.
	host := exec.Command(bin, "host", "--http", "127.0.0.1:0")
	stderr, _ := host.StderrPipe()
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		host.Process.Signal(syscall.SIGTERM)
		host.Wait()
	}()
	lines := bufio.NewScanner(stderr)
	url := ""
	for lines.Scan() {
		if m := regexp.MustCompile(`(http://127\.0\.0\.1:\d+/mcp)`).FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
			break
		}
	}
	if url == "" {
		t.Fatal("the host never said where it listens")
	}
	go func() {
		for lines.Scan() {
		}
	}()

	for _, run := range []struct{ name, args, secret string }{
		{"env", fmt.Sprintf("-e API_TOKEN=%s -- %s host", envSecret, bin), envSecret},
		{"bearer", fmt.Sprintf("--bearer %s %s", bearer, url), bearer},
	} {
		t.Run(run.name, func(t *testing.T) {
			state := t.TempDir()
			x := newTmux(t, 120, 40, fmt.Sprintf("sh -c 'XDG_STATE_HOME=%s %s %s; echo mcpscope-exited:$?; sleep 30'", state, bin, run.args))
			x.waitFor("connected")
			x.openTool("echo")
			x.typeText("my key is " + run.secret)
			x.keys("Enter")
			x.keys("6")
			// The call has answered once its History row says ok.
			done := regexp.MustCompile(`ok\s+echo\s+\{"text"`)
			x.waitUntil("the call's ok row in History", done.MatchString)
			x.keys("q")
			x.waitFor("mcpscope-exited:0")
			var files []string
			filepath.Walk(state, func(p string, info os.FileInfo, err error) error {
				if err == nil && !info.IsDir() {
					files = append(files, p)
				}
				return nil
			})
			if len(files) == 0 {
				t.Fatalf("no history file under %s", state)
			}
			kept := false
			for _, f := range files {
				b, _ := os.ReadFile(f)
				if bytes.Contains(b, []byte(run.secret)) {
					t.Errorf("%s holds the secret:\n%s", f, b)
				}
				kept = kept || bytes.Contains(b, []byte(`"tool":"echo"`)) && bytes.Contains(b, []byte("my key is"))
			}
			if !kept {
				t.Errorf("the call is not in the history (%v)", files)
			}
		})
	}
}

// mcpscope --watch in a real terminal: an edit of the served tool file restarts the
// server (the screen says so) and the new description shows; the Changes view lists
// the edit; a broken edit shows the failure, and the next good one recovers.
func TestEndToEndWatch(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	os.WriteFile(tools, []byte(devToolsFile("first version", schemaV1)), 0o644)
	x := newTmux(t, 120, 40, fmt.Sprintf("sh -c '%s --watch --watch-debounce 100ms -- %s host --tools %s; echo mcpscope-exited:$?; sleep 30'", bin, bin, tools))
	x.waitFor("connected")
	x.waitFor("first version")
	os.WriteFile(tools, []byte(devToolsFile("second version", schemaV2)), 0o644)
	x.waitFor("second version")
	x.keys("C")
	x.waitFor("tool greet changed")
	x.waitFor("compatible")
	os.WriteFile(tools, []byte(`{"tools": [`), 0o644)
	x.keys("1")
	x.waitFor("Could not connect")
	os.WriteFile(tools, []byte(devToolsFile("third version", schemaV2)), 0o644)
	x.waitFor("third version")
	// 1 left the keyboard in the list (its hint says how to reach the form), so q
	// quits.
	x.waitFor("tab or enter to fill in the arguments")
	x.keys("q")
	x.waitFor("mcpscope-exited:0")
}
