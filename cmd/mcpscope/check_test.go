package main_test

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testservers/oauthserver"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// checkJSON is what `check --format json` prints.
type checkJSON struct {
	Targets []struct {
		Name   string `json:"name"`
		Checks []struct {
			Step    string   `json:"step"`
			ID      string   `json:"id"`
			Status  string   `json:"status"`
			Why     string   `json:"why"`
			Details []string `json:"details"`
		} `json:"checks"`
		Summary map[string]int `json:"summary"`
		Failed  bool           `json:"failed"`
	} `json:"targets"`
	Failed bool `json:"failed"`
}

func parseCheck(t *testing.T, r result) checkJSON {
	t.Helper()
	var out checkJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("check --format json is not JSON: %v\n%s\nstderr:\n%s", err, r.stdout, r.stderr)
	}
	return out
}

// status is the status of check id in the first target, "" when absent; why and
// details come with it for the messages.
func (c checkJSON) status(id string) (string, string) {
	for _, k := range c.Targets[0].Checks {
		if k.ID == id {
			return k.Status, k.Why + "\n  " + strings.Join(k.Details, "\n  ")
		}
	}
	return "", ""
}

// badInput builds one of the bad-input test servers and returns its argv and the
// file its requests are logged to.
func badInput(t *testing.T, name string) ([]string, string, []string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "requests.log")
	return []string{testutil.Build(t, "./internal/testservers/"+name)}, log, []string{"BADINPUT_LOG=" + log}
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// startHostHTTP runs `mcpscope host --http 127.0.0.1:0` with the extra host flags
// and returns its endpoint; the host is killed (by its PID) when the test ends.
func startHostHTTP(t *testing.T, flags ...string) string {
	t.Helper()
	cmd := exec.Command(testutil.Mcpscope(t), append([]string{"host", "--http", "127.0.0.1:0"}, flags...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stderr)
		line, _ := r.ReadString('\n')
		lines <- line
		io.Copy(io.Discard, r)
	}()
	select {
	case line := <-lines:
		_, rest, ok := strings.Cut(line, "serving ")
		if !ok {
			t.Fatalf("mcpscope host --http: first stderr line %q", line)
		}
		url, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
		return url
	case <-time.After(60 * time.Second):
		t.Fatal("mcpscope host --http printed no address")
	}
	return ""
}

// The bundled host passes every check over stdio and over HTTP in both eras: its
// default surface is spec-clean (exit 0, every check pass or skipped, none warns).
// With --faults it serves bad_output, whose structuredContent breaks its own output
// schema on purpose (a fixture for clients' output validation), and check fails
// hygiene/output-schema naming that tool and no other (exit 1). The host serving a
// tool file passes everything too.
func TestCheckBundledHost(t *testing.T) {
	t.Parallel()
	url := startHostHTTP(t)
	urlFaults := startHostHTTP(t, "--faults")
	for _, tc := range []struct {
		name   string
		args   []string
		era    string
		faults bool
	}{
		{"stdio", []string{"--", testutil.Mcpscope(t), "host"}, "2026-07-28", false},
		{"stdio-2025", []string{"--protocol", "2025-11-25", "--", testutil.Mcpscope(t), "host"}, "2025-11-25", false},
		{"http", []string{url}, "2026-07-28", false},
		{"http-2025", []string{"--protocol", "2025-11-25", url}, "2025-11-25", false},
		{"faults-stdio", []string{"--", testutil.Mcpscope(t), "host", "--faults"}, "2026-07-28", true},
		{"faults-http-2025", []string{"--protocol", "2025-11-25", urlFaults}, "2025-11-25", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := mcpscope(t, nil, append([]string{"check", "--format", "json"}, tc.args...)...)
			if want := map[bool]int{false: 0, true: 1}[tc.faults]; r.code != want {
				t.Errorf("exit %d, want %d\n%s", r.code, want, r.stdout)
			}
			c := parseCheck(t, r)
			for _, k := range c.Targets[0].Checks {
				switch {
				case k.ID == "hygiene/output-schema" && tc.faults:
					// The one fault, and only it: add honours its schema.
					var broken []string
					for _, d := range k.Details {
						if name, _, ok := strings.Cut(d, ": structuredContent breaks the output schema"); ok {
							broken = append(broken, name)
						}
					}
					if k.Status != "fail" || strings.Join(broken, ",") != "bad_output" ||
						!strings.Contains(strings.Join(k.Details, "\n"), "add: structuredContent matches") {
						t.Errorf("output-schema: %s %s %q", k.Status, k.Why, k.Details)
					}
				case k.Status != "pass" && k.Status != "skipped":
					t.Errorf("%s: %s: %s %q", k.ID, k.Status, k.Why, k.Details)
				}
			}
			if st, why := c.status("hygiene/output-schema"); !tc.faults && (st != "pass" || strings.Contains(why, "bad_output")) {
				t.Errorf("hygiene/output-schema on the default host: %s %s", st, why)
			}
			if st, why := c.status("reach/protocol"); st != "pass" || !strings.Contains(why, tc.era) {
				t.Errorf("reach/protocol: %s %s, want era %s", st, why, tc.era)
			}
			// A tool that is not read-only is never called: bump and set_counter are
			// listed as not called.
			if st, why := c.status("inputs/not-read-only"); st != "skipped" || !strings.Contains(why, "5 tools") || !strings.Contains(why, "bump, pretend_delete, random_id, set_counter, toggle_tool") {
				t.Errorf("inputs/not-read-only: %s %s", st, why)
			}
			for _, id := range []string{"inputs/add", "inputs/rich_form", "hygiene/unknown-tool", "hygiene/missing-resource", "hygiene/tool-error", "speak/tools"} {
				if st, why := c.status(id); st != "pass" {
					t.Errorf("%s: %q %s", id, st, why)
				}
			}
			if strings.Contains(tc.name, "http") {
				for _, id := range []string{"reach/http", "hygiene/origin", "hygiene/host", "hygiene/content-type", "speak/auth"} {
					if st, why := c.status(id); st != "pass" {
						t.Errorf("%s: %q %s", id, st, why)
					}
				}
			}
			if tc.era == "2026-07-28" {
				for _, id := range []string{"speak/order", "speak/cache"} {
					if st, why := c.status(id); st != "pass" {
						t.Errorf("%s: %q %s", id, st, why)
					}
				}
			}
			if tc.name == "http" {
				if st, why := c.status("hygiene/headers"); st != "pass" || !strings.Contains(why, "-32020") {
					t.Errorf("hygiene/headers: %s %s", st, why)
				}
			}
		})
	}
	t.Run("tool-file", func(t *testing.T) {
		t.Parallel()
		r := mcpscope(t, nil, "check", "--", testutil.Mcpscope(t), "host", "--tools", filepath.Join(testutil.Root(), "host", "testdata", "tools.json"))
		expect(t, r, 0, []string{"pass    greet", "0 failed"}, nil)
	})
	// As a CI step runs it: the target host, JUnit on stdout. No test case fails.
	t.Run("junit", func(t *testing.T) {
		t.Parallel()
		r := mcpscope(t, nil, "check", "--format", "junit", "host")
		if r.code != 0 {
			t.Errorf("exit %d, want 0\n%s", r.code, r.stdout)
		}
		var doc struct {
			Suites []struct {
				Tests    int `xml:"tests,attr"`
				Failures int `xml:"failures,attr"`
				Cases    []struct {
					Name    string    `xml:"name,attr"`
					Failure *struct{} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("junit is not XML: %v\n%s", err, r.stdout)
		}
		if len(doc.Suites) != 1 || doc.Suites[0].Tests < 20 || doc.Suites[0].Failures != 0 {
			t.Fatalf("junit: %+v", doc.Suites)
		}
		for _, c := range doc.Suites[0].Cases {
			if c.Failure != nil {
				t.Errorf("junit: %s failed\n%s", c.Name, r.stdout)
			}
		}
	})
}

// server-everything over HTTP accepts a request whose Host names another site,
// which DNS rebinding uses to reach a server on this machine: check fails it.
func TestCheckEverythingHTTPFailsRebinding(t *testing.T) {
	t.Parallel()
	srv := testutil.EverythingHTTP(t, "streamableHttp")
	r := mcpscope(t, nil, "check", "--format", "json", "http://"+srv.Addr+"/mcp")
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	c := parseCheck(t, r)
	if st, why := c.status("hygiene/host"); st != "fail" || !strings.Contains(why, "DNS rebinding") || !strings.Contains(why, "accepted (HTTP 200)") {
		t.Errorf("hygiene/host: %s %s", st, why)
	}
	if st, why := c.status("reach/protocol"); st != "pass" || !strings.Contains(why, "2025-11-25") {
		t.Errorf("reach/protocol: %s %s", st, why)
	}
	// Its sessions: a made-up one is refused (400 where the spec says 404).
	if st, why := c.status("hygiene/session"); st == "fail" || st == "" || st == "skipped" {
		t.Errorf("hygiene/session: %s %s", st, why)
	}
}

// A server that accepts invalid arguments: each negative case is caught as
// accepted, and its tool that is not read-only is never called.
func TestCheckLenientServer(t *testing.T) {
	t.Parallel()
	argv, log, env := badInput(t, "lenient")
	r := mcpscope(t, env, append([]string{"check", "--"}, argv...)...)
	expect(t, r, 1, []string{
		"fail    lookup                     4 of 4 invalid cases accepted",
		`required "id" left out: accepted  {}`,
		`"id" given a string (it is integer): accepted  {"id":"not a number"}`,
		`"mode" given mcpscope-not-in-enum, outside its enum: accepted`,
		"skipped not-read-only",
	}, nil)
	if l := readLog(t, log); strings.Contains(l, "tools/call erase") || !strings.Contains(l, "tools/call lookup") {
		t.Errorf("the server was sent:\n%s", l)
	}

	// Named with --include, erase gets its cases too.
	argv, log, env = badInput(t, "lenient")
	r = mcpscope(t, env, append([]string{"check", "--include", "erase", "--"}, argv...)...)
	expect(t, r, 1, []string{"fail    erase"}, nil)
	if l := readLog(t, log); !strings.Contains(l, "tools/call erase") {
		t.Errorf("--include erase: the server was sent:\n%s", l)
	}
}

// A server that crashes on a wrong type: the case is reported as a failure naming it,
// with the server's panic, the server is started again, and the other cases run.
func TestCheckFragileServer(t *testing.T) {
	t.Parallel()
	argv, log, env := badInput(t, "fragile")
	r := mcpscope(t, env, append([]string{"check", "--"}, argv...)...)
	expect(t, r, 1, []string{
		"fail    lookup                     the server ended on 1 of 4 cases",
		`"id" given a string (it is integer): the server ended: the server closed the connection (exited with code 2); started again, the run goes on`,
		"stderr: panic: interface conversion",
		`"mode" given mcpscope-not-in-enum, outside its enum: refused with isError`,
		`required "id" left out: refused with isError`,
	}, nil)
	l := readLog(t, log)
	if n := strings.Count(l, "initialize"); n < 2 {
		t.Errorf("the server was started %d time(s), want a new start after the crash:\n%s", n, l)
	}

	// --record holds the whole run: both sessions, the case that crashed it.
	argv, _, env = badInput(t, "fragile")
	rec := filepath.Join(t.TempDir(), "check.jsonl")
	expect(t, mcpscope(t, env, append([]string{"check", "--record", rec, "--"}, argv...)...), 1, nil, nil)
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "initialize"); n < 2 || !strings.Contains(string(b), "not a number") {
		t.Errorf("the recording holds %d initialize and the crashing case %v:\n%s", n, strings.Contains(string(b), "not a number"), b)
	}
	if strings.Contains(l, "tools/call erase") {
		t.Errorf("erase (not read-only) was called:\n%s", l)
	}
}

// A server that stops answering on a case: the case fails after --call-timeout, the
// server is started again, and the other cases run.
func TestCheckStuckServer(t *testing.T) {
	t.Parallel()
	argv, log, env := badInput(t, "stuck")
	r := mcpscope(t, env, append([]string{"check", "--call-timeout", "5s", "--"}, argv...)...)
	expect(t, r, 1, []string{
		"fail    lookup                     the server ended on 1 of 4 cases",
		`"id" given a string (it is integer): no answer within 5s; started again, the run goes on`,
		`"mode" given mcpscope-not-in-enum, outside its enum: refused with isError`,
	}, nil)
	if n := strings.Count(readLog(t, log), "initialize"); n < 2 {
		t.Errorf("the server was started %d time(s), want a new start after the hang", n)
	}
}

// What a command prints on stdout before it speaks is a warning with the lines; an
// https URL whose certificate this machine does not trust fails reach/tls, and the
// checks after it are skipped, saying so.
func TestCheckReachWarnsAndFails(t *testing.T) {
	t.Parallel()
	r := mcpscope(t, nil, "check", "--format", "json", "--", "sh", "-c", "echo starting up; exec \"$0\" host", testutil.Mcpscope(t))
	c := parseCheck(t, r)
	if st, why := c.status("reach/start"); st != "warn" || !strings.Contains(why, "printed 1 line on stdout") || !strings.Contains(why, "stdout: starting up") {
		t.Errorf("reach/start: %s %s", st, why)
	}

	srv := httptest.NewTLSServer(http.NotFoundHandler()) // 127.0.0.1, a certificate no one trusts
	t.Cleanup(srv.Close)
	r = mcpscope(t, nil, "check", "--format", "json", srv.URL+"/mcp")
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	c = parseCheck(t, r)
	for id, want := range map[string]string{
		"reach/tcp":      "pass",
		"reach/tls":      "fail",
		"reach/http":     "skipped",
		"reach/protocol": "skipped",
		"speak/tools":    "skipped",
		"inputs/tools":   "skipped",
	} {
		if st, why := c.status(id); st != want {
			t.Errorf("%s: %s %s, want %s", id, st, why, want)
		}
	}
	if _, why := c.status("reach/tls"); !strings.Contains(why, "unknown authority") {
		t.Errorf("reach/tls: %s", why)
	}
	if _, why := c.status("speak/tools"); !strings.Contains(why, "not run: reach/tls failed") {
		t.Errorf("speak/tools: %s", why)
	}
}

// A server's stderr at start is counted in full and shown by its ends: a server that
// prints 100 lines and serves says 100 and shows the last 5 after "95 before" (it said
// 50, the lines a check keeps, and "45 before"); one that prints 100 and exits fails
// with the reason alone as the check's why (not the reason and every kept line on one
// line) and the lines as details, its first ones included (a cause is printed first).
func TestCheckCountsAServersStderr(t *testing.T) {
	t.Parallel()
	lines := `i=1; while [ $i -le 100 ]; do echo "line $i" >&2; i=$((i+1)); done; `
	r := mcpscope(t, nil, "check", "--", "sh", "-c", lines+`exec "$0" host`, testutil.Mcpscope(t))
	expect(t, r, 0, []string{
		"started and answered; 0 stdout lines before speaking, 100 stderr lines\n            - stderr: … 95 lines before\n            - stderr: line 96\n",
	}, nil)

	r = mcpscope(t, nil, "check", "--", "sh", "-c", lines+"exit 3")
	expect(t, r, 1, []string{
		"the server closed the connection before completing the handshake (server exited with code 3)\n            - stderr: line 1\n",
		"            - stderr: … 75 more lines …\n            - stderr: line 81\n",
	}, nil)
	if strings.Contains(r.stdout, "last stderr lines") {
		t.Errorf("the failure's why still carries the stderr lines:\n%s", r.stdout)
	}
}

// --dry-run sends no tools/call at all, and lists what it would send.
func TestCheckDryRunSendsNothing(t *testing.T) {
	t.Parallel()
	argv, log, env := badInput(t, "lenient")
	r := mcpscope(t, env, append([]string{"check", "--dry-run", "--all-tools", "--"}, argv...)...)
	expect(t, r, 0, []string{
		"--dry-run: 4 cases not sent",
		`would send tools/call lookup {"id":"not a number"}`,
		`would send tools/call erase {}`,
		"would send tools/call mcpscope-check-no-such-tool",
	}, nil)
	l := readLog(t, log)
	if strings.Contains(l, "tools/call") || !strings.Contains(l, "tools/list") {
		t.Errorf("--dry-run: the server was sent:\n%s", l)
	}
}

// JSON and JUnit hold the same checks, one JUnit test case per check, failures and
// skips counted as the JSON says.
func TestCheckJSONAndJUnit(t *testing.T) {
	t.Parallel()
	argv, _, env := badInput(t, "fragile")
	c := parseCheck(t, mcpscope(t, env, append([]string{"check", "--format", "json", "--"}, argv...)...))
	if len(c.Targets) != 1 || !c.Failed || !c.Targets[0].Failed {
		t.Fatalf("targets %d, failed %v", len(c.Targets), c.Failed)
	}
	argv, _, env = badInput(t, "fragile")
	r := mcpscope(t, env, append([]string{"check", "--format", "junit", "--"}, argv...)...)
	if r.code != 1 {
		t.Errorf("junit: exit %d, want 1", r.code)
	}
	var doc struct {
		Suites []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Skipped  int `xml:"skipped,attr"`
			Cases    []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("junit is not XML: %v\n%s", err, r.stdout)
	}
	checks := c.Targets[0].Checks
	s := doc.Suites[0]
	if len(doc.Suites) != 1 || s.Tests != len(checks) || len(s.Cases) != len(checks) {
		t.Fatalf("junit: %d suites, %d tests, %d cases; json has %d checks", len(doc.Suites), s.Tests, len(s.Cases), len(checks))
	}
	if s.Failures != c.Targets[0].Summary["fail"] || s.Skipped != c.Targets[0].Summary["skipped"] {
		t.Errorf("junit: %d failures, %d skipped; json summary %v", s.Failures, s.Skipped, c.Targets[0].Summary)
	}
	for i, k := range checks {
		jc := s.Cases[i]
		if jc.Name != k.ID || (jc.Failure != nil) != (k.Status == "fail") || (jc.Skipped != nil) != (k.Status == "skipped") {
			t.Errorf("case %d: junit %s failure=%v skipped=%v; json %s %s", i, jc.Name, jc.Failure != nil, jc.Skipped != nil, k.ID, k.Status)
		}
	}
}

// Several targets, each its own section; a warning fails the run only with
// --fail-on warn (server-everything over stdio answers an unknown tool as isError).
func TestCheckSeveralTargetsAndFailOnWarn(t *testing.T) {
	t.Parallel()
	url := startHostHTTP(t, "--faults") // fails hygiene/output-schema (bad_output)
	every := testutil.Everything(t)
	r := mcpscope(t, nil, append([]string{"check", "--format", "json", "--"}, every...)...)
	c := parseCheck(t, r)
	if r.code != 0 || c.Targets[0].Summary["warn"] == 0 || c.Targets[0].Summary["fail"] != 0 {
		t.Fatalf("exit %d, summary %v, want warnings and no failure", r.code, c.Targets[0].Summary)
	}
	if st, why := c.status("hygiene/unknown-tool"); st != "warn" {
		t.Errorf("hygiene/unknown-tool: %s %s", st, why)
	}
	expect(t, mcpscope(t, nil, append([]string{"check", "--fail-on", "warn", "--"}, every...)...), 1, []string{"warn    unknown-tool"}, nil)

	r = mcpscope(t, nil, append([]string{"check", url, "--"}, every...)...)
	// One run, two sections; the exit code is the worst of them: the host's failure.
	expect(t, r, 1, []string{"check server (" + url + ")", "check node (", "server-everything/dist/index.js stdio)", "origin", "DNS rebinding", "fail    output-schema"}, nil)
	if strings.Count(r.stdout, "\ncheck ")+1 != 2 || strings.Count(r.stdout, " passed, ") != 2 {
		t.Errorf("want two sections:\n%s", r.stdout)
	}
}

// Each target of one run is named as every other command names it (a configured
// NAME by its name, host as host, a URL by its host name), and no two alike: a CI log and
// a JUnit report tell which server failed. All were "server" before, and a word that
// is neither a configured name nor a command was refused as a --server never given.
func TestCheckNamesEachTarget(t *testing.T) {
	t.Parallel()
	r := mcpscope(t, nil, "check", "--dry-run", "--format", "junit", "host", "host")
	expect(t, r, 0, []string{`<testsuite name="mcpscope check host" `, `<testsuite name="mcpscope check host-2" `}, nil)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcp.json")
	os.WriteFile(cfg, []byte(`{"mcpServers":{"gh":{"command":"/bin/false"}}}`), 0o644)
	expect(t, mcpscope(t, nil, "check", "--config", cfg, "gh"), 1, []string{"check gh (/bin/false"}, nil)
	r = mcpscope(t, nil, "check", "--config", cfg, "nosuch")
	expect(t, r, 2, nil, []string{`"nosuch": no configured server is named "nosuch" and no command is; configured servers: gh`})
	if strings.Contains(r.stderr, "--server") {
		t.Errorf("a positional refused as a --server:\n%s", r.stderr)
	}
}

// A failure's reason is its first line and the rest of the message stays, as
// details a CI log shows line by line: what a configured entry needs (--input ID=...),
// the stderr of a server that died at tools/list. The reach check kept the first line
// alone ("... needs:", then nothing); the tools check joined all of them with ↵.
func TestCheckKeepsTheWholeReason(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(cfg, []byte(`{"servers":{"remote":{"type":"http","url":"http://127.0.0.1:9/mcp","headers":{"Authorization":"Bearer ${input:tok}"}}}}`), 0o644)
	r := mcpscope(t, nil, "check", "--config", cfg, "remote")
	expect(t, r, 1, []string{`fail    start                      server "remote" (` + cfg + `:1) needs:`, "\n            - ${input:tok} (give it with --input tok=VALUE)\n"}, nil)

	r = fake(t, "crash-list", "check")
	expect(t, r, 1, []string{"fail    tools                      tools/list failed: the server closed the connection (server exited with code 3)\n",
		"\n            - stderr: panic: assignment to entry in nil map\n", "\n            - stderr: goroutine 1 [running]: main.listTools()\n"}, nil)
	if strings.Contains(r.stdout, "↵") {
		t.Errorf("a reason's lines joined with ↵:\n%s", r.stdout)
	}
}

func TestCheckUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check"}, "name what to check"},
		{[]string{"check", "--format", "sarif", "host"}, `--format "sarif": use text, json, junit`},
		{[]string{"check", "--fail-on", "error", "host"}, `--fail-on "error": use fail or warn`},
	} {
		expect(t, mcpscope(t, nil, tc.args...), 2, nil, []string{tc.want})
	}
	expect(t, mcpscope(t, nil, "check", "--help"), 0, []string{"--dry-run", "--include", "--all-tools", "Exit codes: 0 no check failed"}, nil)
}

// A server that wants a login this run has not got fails reach/connect (with the
// command to log in), and speak/auth still says what a host would find: the protected
// resource metadata and the authorization server's.
func TestCheckOAuthServerWithoutLogin(t *testing.T) {
	t.Parallel()
	srv := oauthserver.Start(t, oauthserver.Knobs{})
	env, _ := oauthEnv(t)
	r := mcpscope(t, env, "check", "--format", "json", srv.URL)
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	c := parseCheck(t, r)
	if st, why := c.status("reach/connect"); st != "fail" || !strings.Contains(why, "auth login") {
		t.Errorf("reach/connect: %s %s", st, why)
	}
	if st, why := c.status("speak/auth"); st != "pass" || !strings.Contains(why, "protected resource and authorization server metadata found") || !strings.Contains(why, "authorization_servers "+srv.Issuer) {
		t.Errorf("speak/auth: %s %s", st, why)
	}
	if st, why := c.status("speak/tools"); st != "skipped" || !strings.Contains(why, "reach/connect failed") {
		t.Errorf("speak/tools: %s %s", st, why)
	}
	ids := []string{}
	for _, k := range c.Targets[0].Checks {
		ids = append(ids, k.ID)
	}
	if i := strings.Index(strings.Join(ids, " "), "speak/handshake speak/auth speak/tools"); i < 0 {
		t.Errorf("checks out of order: %v", ids)
	}
}
