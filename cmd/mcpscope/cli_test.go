package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// Every command's --help (and -help, -h, and mcpscope help CMD) prints its usage and
// every flag on stdout and exits 0; before, most said "flag: help requested", exit 2.
func TestEveryCommandHasHelp(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"Usage:", "--timeout-cap", "--input", "mcpscope help CMD"}},
		{[]string{"-help"}, []string{"Usage:"}},
		{[]string{"-h"}, []string{"Usage:"}},
		{[]string{"call", "--help"}, []string{"mcpscope call TOOL", "--args", "--save-dir", "--timeout-cap", "--input", "--protocol", "--record"}},
		{[]string{"call", "-help"}, []string{"mcpscope call TOOL"}},
		{[]string{"call", "-h"}, []string{"mcpscope call TOOL"}},
		{[]string{"inspect", "--help"}, []string{"mcpscope --inspect", "--format", "--timeout-cap", "--input"}},
		{[]string{"--inspect", "--help"}, []string{"mcpscope --inspect", "--format"}},
		{[]string{"open", "--help"}, []string{"mcpscope open", "--theme"}},
		{[]string{"replay", "--help"}, []string{"mcpscope replay FILE", "--ignore"}},
		{[]string{"serve", "--help"}, []string{"mcpscope serve FILE"}},
		{[]string{"servers", "--help"}, []string{"mcpscope servers", "--config", "--format"}},
		{[]string{"host", "--help"}, []string{"mcpscope host", "--tools"}},
		{[]string{"--trace", "--help"}, []string{"mcpscope [flags]", "--theme", "--no-confirm"}},
		{[]string{"help", "call"}, []string{"mcpscope call TOOL", "--args"}},
		{[]string{"help", "inspect"}, []string{"mcpscope --inspect"}},
		{[]string{"help", "servers"}, []string{"mcpscope servers"}},
		{[]string{"help", "host"}, []string{"mcpscope host"}},
	}
	for _, tc := range cases {
		r := mcpscope(t, nil, tc.args...)
		expect(t, r, 0, tc.want, nil)
		if strings.Contains(r.stderr, "help requested") {
			t.Errorf("%v: %s", tc.args, r.stderr)
		}
	}
}

// Global flags before the command (they said "the workbench needs a terminal").
func TestGlobalFlagsBeforeTheCommand(t *testing.T) {
	t.Parallel()
	r := mcpscope(t, nil, "--trace", "call", "echo", "text=hi")
	expect(t, r, 0, []string{"hi"}, []string{"tools/call"})
	r = mcpscope(t, nil, "--format", "json", "--timeout", "30s", "call", "echo", "text=hi")
	expect(t, r, 0, []string{`"content"`}, nil)
	// "--" still ends the flags: a program whose arguments look like a command.
	r = mcpscope(t, nil, "--inspect", "--", testutil.Mcpscope(t), "host")
	expect(t, r, 0, []string{"mcpscope-host"}, nil)
}

// A mistyped command is refused with the closest command, exit 2, even when it is a
// program on $PATH (see TestABareWordIsNeverAProgram); -- always runs a program.
func TestUnknownCommandSuggests(t *testing.T) {
	t.Parallel()
	for _, word := range []string{"inpsect", "cal", "replya", "sever"} {
		r := mcpscope(t, nil, word)
		expect(t, r, 2, nil, []string{"unknown command", "did you mean"})
		if strings.Contains(r.stderr, "needs a terminal") {
			t.Errorf("%s: %s", word, r.stderr)
		}
	}
	expect(t, mcpscope(t, nil, "inpsect", "--format", "json"), 2, nil, []string{`unknown command "inpsect" (did you mean inspect?); to run a program: mcpscope -- inpsect`})
	expect(t, mcpscope(t, nil, "help", "inpsect"), 2, nil, []string{"did you mean inspect?"})
	// A program of a command-like name, given with --: it runs (and fails to start).
	r := mcpscope(t, nil, "--inspect", "--", "inpsect")
	if r.code == 2 || strings.Contains(r.stderr, "unknown command") {
		t.Errorf("-- inpsect was taken as a command: %d %s", r.code, r.stderr)
	}
	// A bare word on $PATH is no longer a program: it is refused as a mistyped command.
	dir := t.TempDir()
	prog := filepath.Join(dir, "hots")
	testutil.WriteExecutable(t, prog, "#!/bin/sh\nexit 0\n")
	r = mcpscope(t, []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")}, "hots")
	expect(t, r, 2, nil, []string{`unknown command "hots" (did you mean host?)`})
}

// call --format table was accepted silently.
func TestCallRefusesTableFormat(t *testing.T) {
	t.Parallel()
	expect(t, mcpscope(t, nil, "call", "echo", "text=hi", "--format", "table"), 2, nil, []string{`--format "table"`, "text or json"})
}

// --inspect --format json always has "problems" (it was dropped when empty) and
// "deprecated". The bundled host declares logging, which 2026-07-28 deprecated
// (SEP-2577): its one problem, named with the revision.
func TestInspectJSONHasProblems(t *testing.T) {
	t.Parallel()
	r := mcpscope(t, nil, "--inspect", "--format", "json")
	expect(t, r, 0, []string{`"problems": [`}, nil)
	var m struct {
		Problems   []string `json:"problems"`
		Deprecated []struct {
			Feature, Since, Ref string
		} `json:"deprecated"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
		t.Fatal(err)
	}
	want := "deprecated: logging: the server declares the logging capability; deprecated by 2026-07-28 (SEP-2577)"
	if len(m.Problems) != 1 || m.Problems[0] != want {
		t.Errorf("problems = %q; want [%q]", m.Problems, want)
	}
	if len(m.Deprecated) != 1 || m.Deprecated[0].Feature != "logging" || m.Deprecated[0].Since != "2026-07-28" || m.Deprecated[0].Ref != "SEP-2577" {
		t.Errorf("deprecated = %+v", m.Deprecated)
	}
}

// replay --format json prints camelCase members and [] for empty lists (it printed Go
// field names and null).
func TestReplayJSONIsCamelCase(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "r.jsonl")
	expect(t, mcpscope(t, nil, "call", "echo", "text=hi", "--record", file), 0, nil, nil)
	r := mcpscope(t, nil, "replay", file, "--format", "json")
	expect(t, r, 0, []string{`"replayed": 2`, `"failures": []`, `"liveVersion": "2026-07-28"`}, nil)
	for _, bad := range []string{"Replayed", "Failures", "null"} {
		if strings.Contains(r.stdout, bad) {
			t.Errorf("replay JSON has %q:\n%s", bad, r.stdout)
		}
	}
}

// A recording of the bundled host names it `mcpscope host`, not the binary's path,
// and replays with the running binary wherever it is.
func TestRecordingNamesTheBundledHost(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "r.jsonl")
	expect(t, mcpscope(t, nil, "call", "echo", "text=hi", "--record", file), 0, nil, nil)
	rec := load(t, file)
	if got := strings.Join(rec.Header.Target.Argv, " "); got != "mcpscope host" {
		t.Errorf("recorded argv %q, want \"mcpscope host\"", got)
	}
	// Replay from a copy of the binary elsewhere, with no mcpscope on $PATH.
	// A hard link, not a written copy: while this test held the copy open for writing,
	// a parallel test's fork could inherit that descriptor, and exec then fails with
	// "text file busy" (ETXTBSY).
	bin := filepath.Join(t.TempDir(), "mcpscope-copy")
	if err := os.Link(testutil.Mcpscope(t), bin); err != nil {
		t.Fatalf("linking the binary elsewhere: %v", err)
	}
	cmd := exec.Command(bin, "replay", file)
	cmd.Env = append(os.Environ(), "PATH=/usr/bin:/bin")
	expect(t, runCommand(t, cmd), 0, []string{"all 2 exchanges equal"}, nil)
}

// --protocol is a force: used, or a failure naming what the server offered (it fell
// back silently); and the framing is still detected with it.
func TestProtocolIsAForce(t *testing.T) {
	t.Parallel()
	expect(t, fake(t, "content-length", "--inspect", "--protocol", "2026-07-28"), 1, nil,
		[]string{"does not speak protocol 2026-07-28", "offered 2024-11-05"})
	// Content-Length is found with a forced version (the probe was skipped: a 30 s hang).
	expect(t, fake(t, "content-length", "--inspect", "--protocol", "2024-11-05"), 0, []string{"2024-11-05 (legacy era) over stdio, content-length framing"}, nil)
	bin := testutil.Mcpscope(t)
	expect(t, mcpscope(t, nil, "--inspect", "--protocol", "2026-07-28", "--", bin, "host", "--framing", "content-length"), 0,
		[]string{"2026-07-28 (modern era) over stdio, content-length framing"}, nil)
}

// The bundled host in Content-Length mode exits on the NDJSON try; auto framing now
// restarts it with Content-Length ("got a bare JSON line" before).
func TestInspectContentLengthHostInAutoFraming(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	r := mcpscope(t, nil, "--inspect", "--", bin, "host", "--framing", "content-length")
	expect(t, r, 0, []string{"content-length framing", "pretend_delete"}, nil)
}
