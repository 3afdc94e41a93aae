package tui

import "testing"

// A dynamic skill in the Skills view: listed with no files and nothing read; enter
// reads its SKILL.md and finds its files in its directories (resources/directory/read,
// two levels deep), listed under it; enter on one reads it, shown as unchecked since
// no listing gave its digest.
func TestSkillsViewDynamicSkillDirectory(t *testing.T) {
	t.Parallel()
	h := ready(t, 160, 40)
	h.press(":")
	h.typeText("skills")
	h.press("enter")
	h.until("the skills", screenHas(h, "release-notes", "Writes release notes from a changelog"))
	h.press("g", "down", "down") // hello-world, colour-names, release-notes
	h.until("the dynamic skill's detail", screenHas(h, "dynamic: the server lists none; enter reads SKILL.md and finds them"))
	h.until("the traffic so far", h.caughtUp)
	if n := sentWith(h.m, "resources/directory/read"); n != 0 {
		t.Fatalf("%d directory reads before the skill was opened", n)
	}
	h.press("enter")
	h.until("SKILL.md and the files found", screenHas(h, "# Release notes", "▾ release-notes",
		"scripts/changes.sh", "templates/entry.md", "templates/examples/minor.md"))
	h.until("the traffic so far", h.caughtUp)
	if n := sentWith(h.m, "resources/directory/read", "skill://release-notes/templates/examples"); n != 1 {
		t.Errorf("the nested directory was read %d times, want 1", n)
	}
	if n := sentWith(h.m, "resources/read"); n != 1 {
		t.Errorf("opening the skill sent %d resources/read, want 1 (SKILL.md)", n)
	}
	h.press("down", "down", "down", "enter") // changes.sh, entry.md, minor.md
	h.until("the nested file", screenHas(h, "skill://release-notes/templates/examples/minor.md",
		"The list view keeps its place on refresh", "(dynamic: no digest to check)"))
}
