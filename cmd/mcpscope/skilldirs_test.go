package main_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSkillDynamicFilesFromDirectoryRead: the bundled host lists release-notes as
// "dynamic" and declares directoryRead; `mcpscope skill` walks its directories
// (resources/directory/read, two levels deep, pages of two) and reads every file,
// saying each is unchecked because no listing gave a digest.
func TestSkillDynamicFilesFromDirectoryRead(t *testing.T) {
	t.Parallel()
	expect(t, mcpscope(t, nil, "skill", "release-notes"), 0, []string{
		"# Release notes",
		"skill://release-notes/SKILL.md",
		"skill://release-notes/scripts/changes.sh           70    dynamic, found by resources/directory/read: unchecked",
		"skill://release-notes/templates/entry.md           36    dynamic, found by resources/directory/read: unchecked",
		"skill://release-notes/templates/examples/minor.md  59    dynamic, found by resources/directory/read: unchecked",
	}, nil)
	r := mcpscope(t, nil, "skill", "release-notes", "--format", "json")
	expect(t, r, 0, nil, nil)
	var out struct {
		Files []struct {
			URI      string `json:"uri"`
			Text     string `json:"text"`
			Verified bool   `json:"verified"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	got := map[string]string{}
	for _, f := range out.Files {
		if f.Verified {
			t.Errorf("%s is marked verified; a dynamic skill's files have no digest", f.URI)
		}
		got[f.URI] = f.Text
	}
	if len(out.Files) != 4 || got["skill://release-notes/templates/examples/minor.md"] != "## 1.4.0\n\n- The list view keeps its place on refresh (ana)\n" {
		t.Errorf("files = %+v, want SKILL.md and the three files under it, read", out.Files)
	}
}

// A dynamic skill whose directories list a file of another skill and themselves
// again: the walk reads neither, names both, and reads what is inside the skill.
func TestSkillDynamicWalkStaysInTheSkill(t *testing.T) {
	t.Parallel()
	r := fake(t, "skill-dirs", "skill", "wander")
	expect(t, r, 0, []string{"skill://wander/sub/ok.md  3     dynamic, found by resources/directory/read: unchecked"}, []string{
		`skill://wander lists "skill://other/secret.txt", which is outside the skill's directory; not followed`,
		`skill://wander/sub lists the directory "skill://wander/sub" again; not followed`,
	})
	if strings.Contains(r.stdout, "secret") {
		t.Errorf("a file outside the skill was read or listed:\n%s", r.stdout)
	}
	// In JSON the walk's problems are the document's.
	r = fake(t, "skill-dirs", "skill", "wander", "--format", "json")
	expect(t, r, 0, []string{`"problems": [`, `outside the skill's directory; not followed`}, nil)
}
