package conformance_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// TestConformanceServer runs every server scenario of both pinned conformance suites
// (--suite all: the active ones, the pending ones, the 2026-07-28 ones and the
// extensions) against one "mcpscope host --conformance --http", each suite once, and
// fails with each failing scenario's check id and message. A scenario the suite lists
// but did not run (skipped) fails too.
func TestConformanceServer(t *testing.T) {
	t.Parallel()
	c := conformanceSuites(t)
	url := startConformanceHost(t)
	for _, version := range []string{"0.1.16", "0.2.0-alpha.12"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			script := c.suites[version]
			listed := serverScenarios(t, c, script)
			out := t.TempDir()
			// The suite's own exit code says whether anything failed; the checks it
			// wrote say what, and are read below either way.
			log, _ := c.runWithin(t, 15*time.Minute, t.TempDir(), c.env(), script, "server", "--suite", "all", "--url", url, "--output-dir", out)
			ran, failures := readServerChecks(t, out)
			var problems []string
			for _, s := range listed {
				if !ran[s] {
					problems = append(problems, fmt.Sprintf("%s: listed by the suite but not run (skipped)", s))
				}
			}
			names := make([]string, 0, len(failures))
			for s := range failures {
				names = append(names, s)
			}
			sort.Strings(names)
			for _, s := range names {
				problems = append(problems, s+":\n    "+strings.Join(failures[s], "\n    "))
			}
			if len(listed) == 0 {
				problems = append(problems, "the suite listed no server scenarios")
			}
			if len(problems) > 0 {
				t.Errorf("conformance %s, server scenarios against mcpscope host --conformance (%d listed, %d failing):\n%s\n\nsuite output (tail):\n%s",
					version, len(listed), len(failures), strings.Join(problems, "\n"), tail(log, 40))
			}
		})
	}
}

// serverScenarios is the suite's list of server scenarios (conformance list).
func serverScenarios(t *testing.T, c conformance, script string) []string {
	t.Helper()
	out, err := c.run(t, t.TempDir(), c.env(), script, "list")
	if err != nil {
		t.Fatalf("conformance list: %v\n%s", err, out)
	}
	var names []string
	in := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "Server scenarios"):
			in = true
		case strings.TrimSpace(line) == "" || !strings.HasPrefix(line, " "):
			in = false
		case in:
			name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "- "), " ")
			names = append(names, name)
		}
	}
	return names
}

// readServerChecks reads the checks.json the suite wrote for each scenario
// (DIR/server-SCENARIO-TIMESTAMP/checks.json): which scenarios ran, and for each one
// that failed, its failed checks as "id: errorMessage".
func readServerChecks(t *testing.T, dir string) (ran map[string]bool, failures map[string][]string) {
	t.Helper()
	ran, failures = map[string]bool{}, map[string][]string{}
	files, _ := filepath.Glob(filepath.Join(dir, "server-*", "checks.json"))
	for _, f := range files {
		base := filepath.Base(filepath.Dir(f))
		name := strings.TrimPrefix(base, "server-")
		if loc := stamp.FindStringIndex(name); loc != nil {
			name = name[:loc[0]]
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var checks []struct {
			ID, Status, ErrorMessage string
		}
		if err := json.Unmarshal(b, &checks); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		ran[name] = true
		if len(checks) == 0 {
			failures[name] = append(failures[name], "(the scenario made no checks)")
		}
		for _, ch := range checks {
			if ch.Status == "FAILURE" {
				failures[name] = append(failures[name], ch.ID+": "+ch.ErrorMessage)
			}
		}
	}
	return ran, failures
}

// stamp is the timestamp the suite appends to a scenario's directory name.
var stamp = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// startConformanceHost starts "mcpscope host --conformance --http 127.0.0.1:0" and
// returns its URL; the test's cleanup stops it.
func startConformanceHost(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(testutil.Mcpscope(t), "host", "--conformance", "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stderr)
		line, _ := r.ReadString('\n')
		lines <- line
		io.Copy(io.Discard, r) // keep the pipe drained until the host exits
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			<-done
		}
	})
	var line string
	select {
	case line = <-lines:
	case <-time.After(time.Minute):
		t.Fatal("mcpscope host --conformance --http printed no address")
	}
	_, rest, ok := strings.Cut(line, "serving ")
	url, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("the host's first line names no URL: %q", line)
	}
	return url
}
