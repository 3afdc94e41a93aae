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

// toolFile writes a bundled-host tool file with one tool "greet" whose input schema
// is given.
func toolFile(t *testing.T, dir, name, schema string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	body := `{"tools":[{"name":"greet","description":"says hello","inputSchema":` + schema +
		`,"annotations":{"readOnlyHint":true},"run":["/bin/echo","hi"]}]}`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const (
	schemaV1       = `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`
	schemaOptional = `{"type":"object","properties":{"name":{"type":"string"},"loud":{"type":"boolean"}},"required":["name"]}`
	schemaBreaking = `{"type":"object","properties":{"name":{"type":"string"},"lang":{"type":"string"}},"required":["name","lang"]}`
)

func TestDiffCLI(t *testing.T) {
	dir := t.TempDir()
	bin := testutil.Mcpscope(t)
	v1 := toolFile(t, dir, "v1.json", schemaV1)
	opt := toolFile(t, dir, "opt.json", schemaOptional)
	brk := toolFile(t, dir, "brk.json", schemaBreaking)

	// A saved --inspect file of v1, and a recording of each version.
	saved := filepath.Join(dir, "tools.json")
	r := mcpscope(t, nil, "--inspect", "--format", "json", "--", bin, "host", "--tools", v1)
	if r.code != 0 {
		t.Fatalf("inspect: %d %s", r.code, r.stderr)
	}
	if err := os.WriteFile(saved, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	recV1, recBrk := filepath.Join(dir, "v1.jsonl"), filepath.Join(dir, "brk.jsonl")
	for _, x := range [][2]string{{recV1, v1}, {recBrk, brk}} {
		if r := mcpscope(t, nil, "--inspect", "--record", x[0], "--", bin, "host", "--tools", x[1]); r.code != 0 {
			t.Fatalf("record: %d %s", r.code, r.stderr)
		}
	}

	live := func(file string) []string { return []string{"--", bin, "host", "--tools", file} }
	cases := []struct {
		name string
		args []string
		code int
		want []string // in stdout
	}{
		{"saved vs live, unchanged", append([]string{"diff", saved}, live(v1)...), 0, []string{"no changes"}},
		{"saved vs live, optional parameter", append([]string{"diff", saved}, live(opt)...), 0,
			[]string{`new optional parameter "loud"`, "[compatible]", "0 breaking, 1 compatible"}},
		{"saved vs live, required parameter", append([]string{"diff", saved}, live(brk)...), 1,
			[]string{`! new required parameter "lang"`, "[BREAKING]", `+      "lang": {`}},
		{"two recordings", []string{"diff", recV1, recBrk}, 1, []string{`new required parameter "lang"`}},
		{"recording vs live", append([]string{"diff", recV1}, live(v1)...), 0, []string{"no changes"}},
		{"recording vs saved", []string{"diff", recBrk, saved}, 1, []string{`parameter "lang" was removed`}},
		{"fail-on none", append([]string{"diff", "--fail-on", "none", saved}, live(brk)...), 0, []string{"BREAKING"}},
		{"fail-on any", append([]string{"diff", "--fail-on", "any", saved}, live(opt)...), 1, []string{"compatible"}},
		{"fail-on any, unchanged", append([]string{"diff", "--fail-on", "any", saved}, live(v1)...), 0, nil},
		{"bad fail-on", []string{"diff", "--fail-on", "sometimes", saved, recV1}, 2, nil},
		{"bad format", []string{"diff", "--format", "yaml", saved, recV1}, 2, nil},
		{"one side only", []string{"diff", saved}, 2, nil},
		{"missing file", []string{"diff", saved, filepath.Join(dir, "nope.json")}, 2, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := mcpscope(t, nil, tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
			if tc.code == 2 && !strings.Contains(r.stderr, "mcpscope: ") {
				t.Errorf("no message: %q", r.stderr)
			}
		})
	}

	t.Run("json and junit", func(t *testing.T) {
		r := mcpscope(t, nil, append([]string{"diff", "--format", "json", saved}, live(brk)...)...)
		var doc struct {
			Breaking int `json:"breaking"`
			Entries  []struct {
				Name    string `json:"name"`
				Changes []struct {
					Kind     string `json:"kind"`
					Breaking bool   `json:"breaking"`
				} `json:"changes"`
			} `json:"entries"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || r.code != 1 || doc.Breaking != 1 || doc.Entries[0].Changes[0].Kind != "param-added-required" {
			t.Fatalf("json: %d %v %+v\n%s", r.code, err, doc, r.stdout)
		}
		r = mcpscope(t, nil, append([]string{"diff", "--format", "junit", saved}, live(brk)...)...)
		var suites struct {
			Suites []struct {
				Failures int `xml:"failures,attr"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal([]byte(r.stdout), &suites); err != nil || len(suites.Suites) != 1 || suites.Suites[0].Failures != 1 {
			t.Fatalf("junit: %v %+v\n%s", err, suites, r.stdout)
		}
	})

	t.Run("two things without tools", func(t *testing.T) {
		empty := filepath.Join(dir, "empty.json")
		os.WriteFile(empty, []byte(`{"hello":"world"}`), 0o644)
		r := mcpscope(t, nil, "diff", empty, saved)
		if r.code != 2 || !strings.Contains(r.stderr, "no tool surface") {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	})
}

func TestReplayOnly(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "calls.jsonl")
	bin := testutil.Mcpscope(t)
	if r := mcpscope(t, nil, "call", "echo", "text=hi", "--record", rec, "--", bin, "host"); r.code != 0 {
		t.Fatalf("record: %d %s", r.code, r.stderr)
	}
	r := mcpscope(t, nil, "replay", rec, "--only", "echo", "--format", "json")
	if r.code != 0 || !strings.Contains(r.stdout, `"replayed": 1`) || !strings.Contains(r.stdout, "not named by --only") {
		t.Fatalf("--only echo: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := mcpscope(t, nil, "replay", rec, "--only", "nope"); r.code != 2 || !strings.Contains(r.stderr, "the recording has: ") {
		t.Fatalf("--only nope: %d %s", r.code, r.stderr)
	}
}
