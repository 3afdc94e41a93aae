package main_test

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// junitFailures reads the failures count of the one test suite of a JUnit report.
func junitFailures(t *testing.T, out string) int {
	t.Helper()
	var suites struct {
		Suites []struct {
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(out), &suites); err != nil || len(suites.Suites) != 1 {
		t.Fatalf("not a JUnit report of one suite (%v):\n%s", err, out)
	}
	s := suites.Suites[0]
	n := 0
	for _, c := range s.Cases {
		if c.Failure != nil {
			n++
		}
	}
	if n != s.Failures {
		t.Fatalf("failures=%d but %d test cases fail:\n%s", s.Failures, n, out)
	}
	return s.Failures
}

// Issue 20 item C: `diff --format junit --fail-on any` exited 1 while the report said
// failures="0" (only breaking changes failed in it). The report and the exit code
// agree for every --fail-on.
func TestDiffJUnitAgreesWithFailOn(t *testing.T) {
	dir := t.TempDir()
	bin := testutil.Mcpscope(t)
	v1 := toolFile(t, dir, "v1.json", schemaV1)
	opt := toolFile(t, dir, "opt.json", schemaOptional)
	brk := toolFile(t, dir, "brk.json", schemaBreaking)
	saved := filepath.Join(dir, "tools.json")
	r := mcpscope(t, nil, "--inspect", "--format", "json", "--", bin, "host", "--tools", v1)
	if r.code != 0 {
		t.Fatalf("inspect: %d %s", r.code, r.stderr)
	}
	if err := os.WriteFile(saved, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		failOn, tools string
		code          int
	}{
		{"any", opt, 1}, {"any", brk, 1}, {"any", v1, 0},
		{"breaking", opt, 0}, {"breaking", brk, 1},
		{"none", opt, 0}, {"none", brk, 0},
	} {
		r := mcpscope(t, nil, "diff", "--format", "junit", "--fail-on", tc.failOn, saved, "--", bin, "host", "--tools", tc.tools)
		failures := junitFailures(t, r.stdout)
		if r.code != tc.code || (failures > 0) != (r.code == 1) {
			t.Errorf("--fail-on %s against %s: exit %d (want %d) with failures=%d in the report\n%s%s", tc.failOn, filepath.Base(tc.tools), r.code, tc.code, failures, r.stdout, r.stderr)
		}
	}
}

// Issue 20 item B: two --inspect --format json files were compared on their tools
// only: a prompt, a resource and every template removed printed "no changes
// (compared: tools)" and exited 0. Every kind the file holds is compared, and a saved
// file still equals the live server it was saved from.
func TestDiffInspectFilesCompareEveryKind(t *testing.T) {
	dir := t.TempDir()
	bin := testutil.Mcpscope(t)
	r := mcpscope(t, nil, "--inspect", "--format", "json", "--", bin, "host")
	if r.code != 0 {
		t.Fatalf("inspect: %d %s", r.code, r.stderr)
	}
	a := filepath.Join(dir, "a.json")
	if err := os.WriteFile(a, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	first := func(kind, key string) string {
		items, _ := doc[kind].([]any)
		if len(items) < 2 {
			t.Fatalf("the host's %s: %v", kind, doc[kind])
		}
		doc[kind] = items[1:]
		return items[0].(map[string]any)[key].(string)
	}
	prompt, resource := first("prompts", "name"), first("resources", "uri")
	var templates []string
	for _, it := range doc["resourceTemplates"].([]any) {
		templates = append(templates, it.(map[string]any)["uriTemplate"].(string))
	}
	doc["resourceTemplates"] = []any{}
	b := filepath.Join(dir, "b.json")
	out, _ := json.MarshalIndent(doc, "", "  ")
	if err := os.WriteFile(b, out, 0o644); err != nil {
		t.Fatal(err)
	}

	r = mcpscope(t, nil, "diff", "--no-diff", a, b)
	want := append([]string{"compared: tools, resources, templates, prompts", "prompt " + prompt + " removed", "resource " + resource + " removed"}, templates...)
	for _, w := range want {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("the diff lacks %q", w)
		}
	}
	if r.code != 1 || t.Failed() {
		t.Fatalf("exit %d, want 1 (removals break clients)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	// The saved file against the live server it came from: nothing changed, in any kind.
	r = mcpscope(t, nil, "diff", a, "--", bin, "host")
	if r.code != 0 || !strings.Contains(r.stdout, "no changes (compared: tools, resources, templates, prompts)") {
		t.Fatalf("saved vs live: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}
