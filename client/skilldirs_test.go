package client_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
)

// The host's dynamic skill: directoryRead declared, a directory read paged (the host
// answers two children a page), a subdirectory marked inode/directory, a file's URI
// refused with -32602, and the walk finding every file two levels down.
func TestHostSkillDirectories(t *testing.T) {
	t.Parallel()
	s, _ := hostSession(t, client.Options{}, "")
	if !s.HasDirectoryRead() {
		t.Fatalf("the host does not declare directoryRead: %s", s.Info().Capabilities)
	}
	root, err := s.ReadDirectory(ctx(t), "skill://release-notes")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range root.Items {
		got = append(got, fmt.Sprintf("%s dir=%v", e.URI, e.Dir))
	}
	want := "skill://release-notes/SKILL.md dir=false, skill://release-notes/scripts dir=true, skill://release-notes/templates dir=true"
	if strings.Join(got, ", ") != want || root.Pages != 2 || len(root.Problems) != 0 {
		t.Fatalf("the root = %s in %d pages (problems %v), want %s in 2", strings.Join(got, ", "), root.Pages, root.Problems, want)
	}
	if _, err := s.ReadDirectory(ctx(t), "skill://release-notes/SKILL.md"); err == nil || !strings.Contains(err.Error(), "-32602") {
		t.Errorf("a directory read of a file: %v, want -32602", err)
	}
	list, err := s.Skills(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var k client.Skill
	for _, it := range list.Items {
		if it.Dynamic {
			k = it
		}
	}
	files, problems, err := s.SkillFiles(ctx(t), k)
	if err != nil || len(problems) != 0 {
		t.Fatalf("SkillFiles: %v %v", err, problems)
	}
	got = got[:0]
	for _, f := range files {
		if !f.Unlisted {
			t.Errorf("%s is not marked unlisted", f.URI)
		}
		got = append(got, fmt.Sprintf("%s %d", f.URI, f.Size))
	}
	want = "skill://release-notes/SKILL.md 244, skill://release-notes/scripts/changes.sh 70, skill://release-notes/templates/entry.md 36, skill://release-notes/templates/examples/minor.md 59"
	if strings.Join(got, ", ") != want {
		t.Errorf("files = %s\nwant %s", strings.Join(got, ", "), want)
	}
}
