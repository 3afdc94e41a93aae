package main_test

import (
	"encoding/json"
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
