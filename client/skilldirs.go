package client

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Skill directories (SEP-2640's directoryRead): a server that declares
// extensions["io.modelcontextprotocol/skills"].directoryRead: true answers
// resources/directory/read {uri, cursor?} with the direct children of a directory
// inside a skill ({resources: [...], nextCursor?}, paged like resources/list); a
// child that is itself a directory has mimeType inode/directory. It is how a client
// enumerates the files of a skill listed as "dynamic".

// DirectoryMIME marks a directory child that is itself a directory.
const DirectoryMIME = "inode/directory"

// Bounds of a dynamic skill's walk: a server decides what its directories say, so
// the walk stops rather than following a listing that never ends. The spec asks
// servers to stay under 512 files a skill.
const (
	maxSkillWalkFiles = 1024
	maxSkillWalkDirs  = 256
)

// DirEntry is one child of resources/directory/read.
type DirEntry struct {
	URI      string
	Name     string
	MIMEType string
	Size     int64 // -1: not given
	Dir      bool  // mimeType inode/directory
	Problems []string
}

func decodeDirEntry(raw json.RawMessage) (DirEntry, bool) {
	f, ok := newFields(raw, "")
	if !ok {
		return DirEntry{}, false
	}
	e := DirEntry{URI: f.str("uri"), Name: f.str("name"), MIMEType: f.str("mimeType"), Size: -1}
	if n := f.int64p("size"); n != nil {
		e.Size = *n
	}
	if e.URI == "" {
		f.problems = append(f.problems, "uri is missing")
	}
	e.Dir = e.MIMEType == DirectoryMIME
	e.Problems = f.problems
	return e, true
}

// HasDirectoryRead reports whether the server declared directoryRead: true in its
// skills extension settings.
func (s *Session) HasDirectoryRead() bool {
	raw, ok := s.Capability("extensions", SkillsExtension, "directoryRead")
	return ok && strings.TrimSpace(string(raw)) == "true"
}

// ReadDirectory lists every page of resources/directory/read for one directory.
func (s *Session) ReadDirectory(ctx context.Context, uri string) (*List[DirEntry], error) {
	page := func(cursor string) (json.RawMessage, error) {
		params := map[string]any{"uri": uri}
		if cursor != "" {
			params["cursor"] = cursor
		}
		return s.request(ctx, "resources/directory/read", params)
	}
	return listPages("resources/directory/read", "resources", page, decodeDirEntry,
		func(e DirEntry) []string { return e.Problems }, func(e DirEntry) string { return e.URI })
}

// SkillFiles enumerates the files of a skill listed as "dynamic" by walking its
// directories with resources/directory/read, SKILL.md included, each an Unlisted
// SkillFile. A child outside the skill's directory is named in problems and neither
// listed nor followed (what is read of a skill stays inside it); so is a directory
// seen twice. No file is read.
func (s *Session) SkillFiles(ctx context.Context, k Skill) (files []SkillFile, problems []string, err error) {
	root := strings.TrimSuffix(k.URI, "/SKILL.md")
	if root == k.URI {
		return nil, nil, fmt.Errorf("skill %q is not …/SKILL.md, so it has no directory to read", k.URI)
	}
	queue, seen := []string{root}, map[string]bool{root: true}
	for len(queue) > 0 {
		if len(seen) > maxSkillWalkDirs || len(files) >= maxSkillWalkFiles {
			problems = append(problems, fmt.Sprintf("stopped after %d directories and %d files: the skill is bigger than a skill should be (512 files)", len(seen), len(files)))
			break
		}
		dir := queue[0]
		queue = queue[1:]
		list, err := s.ReadDirectory(ctx, dir)
		if err != nil {
			return files, problems, fmt.Errorf("resources/directory/read %s: %w", dir, err)
		}
		problems = append(problems, list.Problems...)
		for _, e := range list.Items {
			switch {
			case e.URI == "":
				continue
			case !strings.HasPrefix(e.URI, root+"/"):
				problems = append(problems, fmt.Sprintf("%s lists %q, which is outside the skill's directory; not followed", dir, e.URI))
			case e.Dir && seen[e.URI]:
				problems = append(problems, fmt.Sprintf("%s lists the directory %q again; not followed", dir, e.URI))
			case e.Dir:
				seen[e.URI] = true
				queue = append(queue, e.URI)
			default:
				files = append(files, SkillFile{URI: e.URI, Size: e.Size, Unlisted: true})
			}
		}
	}
	return files, problems, nil
}
