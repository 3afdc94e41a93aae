package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/tap/live"
)

// publishTap publishes a tap from this process, as the tap command does, with a
// recording whose header names the host.
func publishTap(t *testing.T, name string, argv []string) *live.Publisher {
	t.Helper()
	rec := filepath.Join(t.TempDir(), name+".jsonl")
	header := `{"mcpscope":"recording","version":1,"started":"2026-12-05T10:00:00Z","target":{"transport":"stdio","argv":["server"]},"client":{"name":"claude-ai","version":"0.9.1"}}` + "\n"
	if err := os.WriteFile(rec, []byte(header), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := live.Publish(live.Info{Name: name, Argv: argv, Recording: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if _, err := p.Write([]byte(header)); err != nil {
		t.Fatal(err)
	}
	return p
}

// mcpscope taps lists a live tap (its pid, its host) and a finished one (its
// recording), as a table and as JSON; attach names what is wrong when it cannot
// attach, with its exit code.
func TestTapsListsLiveAndFinished(t *testing.T) {
	env := []string{"XDG_RUNTIME_DIR=" + t.TempDir()}
	t.Setenv("XDG_RUNTIME_DIR", strings.TrimPrefix(env[0], "XDG_RUNTIME_DIR="))
	expect(t, mcpscope(t, env, "taps"), 0, []string{"No taps."}, nil)
	expect(t, mcpscope(t, env, "attach"), 1, nil, []string{"no tap is live: start one with mcpscope tap -- CMD"})

	publishTap(t, "weather", []string{"node", "weather.js"})
	done := publishTap(t, "files", []string{"npx", "server-filesystem", "/tmp"})
	if err := done.Close(); err != nil {
		t.Fatal(err)
	}
	r := mcpscope(t, env, "taps")
	expect(t, r, 0, []string{"NAME", "STATE", "HOST", "TARGET", "RECORDING", "weather", "live (pid ", "claude-ai 0.9.1", "node weather.js",
		"files", "finished", "npx server-filesystem /tmp", "files.jsonl"}, nil)

	r = mcpscope(t, env, "taps", "--format", "json")
	var doc struct {
		Taps []struct {
			Name      string `json:"name"`
			Live      bool   `json:"live"`
			PID       int    `json:"pid"`
			Recording string `json:"recording"`
			Client    *struct{ Name string }
		} `json:"taps"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Taps) != 2 {
		t.Fatalf("taps --format json: %v\n%s", err, r.stdout)
	}
	for _, tp := range doc.Taps {
		switch tp.Name {
		case "weather":
			if !tp.Live || tp.PID != os.Getpid() || tp.Client == nil || tp.Client.Name != "claude-ai" {
				t.Errorf("the live tap in JSON: %+v", tp)
			}
		case "files":
			if tp.Live || !strings.HasSuffix(tp.Recording, "files.jsonl") {
				t.Errorf("the finished tap in JSON: %+v", tp)
			}
		}
	}

	expect(t, mcpscope(t, env, "attach", "nosuch"), 1, nil, []string{`no tap named "nosuch" (taps: `, "weather", "files"})
	expect(t, mcpscope(t, env, "taps", "--format", "yaml"), 2, nil, []string{`--format "yaml": use table or json`})
	expect(t, mcpscope(t, env, "attach", "a", "b"), 2, nil, []string{"attach takes at most one tap NAME"})
	// Found, but a script has no terminal for the workbench.
	expect(t, mcpscope(t, env, "attach", "weather"), 2, nil, []string{"the workbench needs a terminal"})
	// Two live taps and no name: the list, and what to do.
	publishTap(t, "other", []string{"server2"})
	expect(t, mcpscope(t, env, "attach"), 2, nil, []string{"weather", "other", "2 taps are live: name one (mcpscope attach NAME)"})
}

// A host starts its servers with an environment of its own: the TypeScript SDK's
// stdio client passes only HOME, LOGNAME, PATH, SHELL, TERM and USER. A tap in such a
// host's config has no XDG_RUNTIME_DIR, while the shell the user runs mcpscope taps in
// has one: taps and attach must find it all the same. They said "No taps." before.
func TestTapsFindsATapStartedWithoutTheRuntimeDir(t *testing.T) {
	home, run := t.TempDir(), t.TempDir()
	hostEnv := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	tapCmd := exec.Command(testutil.Mcpscope(t), "tap", "--name", "hosttap", "--record", filepath.Join(t.TempDir(), "t.jsonl"), "--", "cat")
	tapCmd.Env = hostEnv
	stdin, err := tapCmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var tapErr syncBuffer
	tapCmd.Stderr = &tapErr
	if err := tapCmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- tapCmd.Wait() }()
	t.Cleanup(func() {
		stdin.Close() // the host closing the server's stdin ends the tap
		select {
		case <-done:
		case <-time.After(time.Minute):
			tapCmd.Process.Kill()
			<-done
			t.Errorf("the tap did not end when its stdin closed; stderr:\n%s", tapErr.String())
		}
	})
	testutil.WaitFile(t, filepath.Join(home, ".local", "state", "mcpscope", "taps-run", "hosttap.json"), `"socket"`)

	shell := func(args ...string) result {
		cmd := exec.Command(testutil.Mcpscope(t), args...)
		cmd.Env = append(hostEnv, "XDG_RUNTIME_DIR="+run)
		return runCommand(t, cmd)
	}
	expect(t, shell("taps"), 0, []string{"hosttap", "live (pid ", "cat"}, nil)
	// Found: only the terminal the workbench needs is missing.
	expect(t, shell("attach", "hosttap"), 2, nil, []string{"the workbench needs a terminal"})
}
