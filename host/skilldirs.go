package host

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Skill directories (SEP-2640's directoryRead): resources/directory/read lists the
// direct children of a directory inside a skill, so that a client can enumerate
// the files of a skill listed as "dynamic". The host declares directoryRead: true
// and answers it for every skill's directories, dynamic or not.

// releaseNotesSkill is the demo's dynamic skill: skills/list gives "dynamic"
// instead of its files, which are two directories deep so that a client has to
// descend (a subdirectory is a child with mimeType inode/directory).
var releaseNotesSkill = demoSkill{name: "release-notes", description: "Writes release notes from a changelog", dynamic: true, files: []skillFile{
	{path: "SKILL.md", mime: "text/markdown", text: "---\nname: release-notes\ndescription: Writes release notes from a changelog\n---\n\n# Release notes\n\nFill `templates/entry.md` for each change; `templates/examples/` has one written out.\nRun `scripts/changes.sh` for the changes since the last tag.\n"},
	{path: "scripts/changes.sh", mime: "text/x-shellscript", text: "#!/bin/sh\ngit log --oneline \"$(git describe --tags --abbrev=0)\"..HEAD\n"},
	{path: "templates/entry.md", mime: "text/markdown", text: "## {version}\n\n- {change} ({author})\n"},
	{path: "templates/examples/minor.md", mime: "text/markdown", text: "## 1.4.0\n\n- The list view keeps its place on refresh (ana)\n"},
}}

// directoryMIME marks a child that is itself a directory.
const directoryMIME = "inode/directory"

// dirPage is how many children one resources/directory/read answers: small, so that
// a client's cursor handling is exercised by the demo's own skills (the spec's
// pagination is resources/list's).
const dirPage = 2

type dirChild struct {
	URI      string `json:"uri"`
	Name     string `json:"name"`
	MIMEType string `json:"mimeType"`
	Size     *int64 `json:"size,omitempty"`
}

type dirReadParams struct {
	mcp.ParamsBase
	URI    string `json:"uri"`
	Cursor string `json:"cursor,omitempty"`
}

type dirReadResult struct {
	mcp.ResultBase
	resultTypeField
	Resources  []dirChild `json:"resources"`
	NextCursor string     `json:"nextCursor,omitempty"`
}

// skillDirectories maps every directory of every demo skill (skill://NAME and
// skill://NAME/SUB…, no trailing slash) to its direct children, sorted by URI.
func skillDirectories() map[string][]dirChild {
	dirs := map[string][]dirChild{}
	seen := map[string]bool{}
	add := func(dir string, c dirChild) {
		if !seen[c.URI] {
			seen[c.URI] = true
			dirs[dir] = append(dirs[dir], c)
		}
	}
	for _, k := range demoSkills {
		root := "skill://" + k.name
		if _, ok := dirs[root]; !ok {
			dirs[root] = []dirChild{} // a skill's root is a directory, whatever it holds
		}
		for _, f := range k.files {
			segs := strings.Split(f.path, "/")
			dir := root
			for _, sub := range segs[:len(segs)-1] {
				add(dir, dirChild{URI: dir + "/" + sub, Name: sub, MIMEType: directoryMIME})
				dir += "/" + sub
			}
			size := int64(len(f.text))
			add(dir, dirChild{URI: skillURI(k.name, f.path), Name: segs[len(segs)-1], MIMEType: f.mime, Size: &size})
		}
	}
	for _, cs := range dirs {
		sort.Slice(cs, func(i, j int) bool { return cs[i].URI < cs[j].URI })
	}
	return dirs
}

func (h *Host) addSkillDirectories() {
	dirs := skillDirectories()
	_ = mcp.AddReceivingCustomMethod(h.server, "resources/directory/read", func(_ context.Context, _ *mcp.ServerSession, p *dirReadParams) (*dirReadResult, error) {
		if p == nil {
			p = &dirReadParams{}
		}
		children, ok := dirs[p.URI]
		if !ok {
			// The spec's answer for a URI that is not a directory (a file, or nothing).
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%q is not a directory of any skill this server serves", p.URI)}
		}
		start := 0
		if p.Cursor != "" {
			n, err := strconv.Atoi(p.Cursor)
			if err != nil || n < 0 || n > len(children) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("cursor %q is not one this server gave", p.Cursor)}
			}
			start = n
		}
		end := min(start+dirPage, len(children))
		r := &dirReadResult{Resources: append([]dirChild{}, children[start:end]...)}
		if end < len(children) {
			r.NextCursor = strconv.Itoa(end)
		}
		return r, nil
	})
}
