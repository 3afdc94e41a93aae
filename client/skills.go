package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// SkillsExtension is the skills extension's identifier (SEP-2640).
const SkillsExtension = "io.modelcontextprotocol/skills"

// Skill is one entry of skills/list: the skill's SKILL.md URI, its frontmatter, and
// its files (or Dynamic when the server lists them as "dynamic").
type Skill struct {
	URI         string
	Name        string // the path segment before SKILL.md
	Frontmatter json.RawMessage
	Files       []SkillFile
	Dynamic     bool
	Raw         json.RawMessage
	Problems    []string
}

// SkillFile is one file of a skill as the listing gave it, or, for a skill listed as
// "dynamic", as resources/directory/read enumerated it (Unlisted: no digest, and a
// size that is only the directory's word, so there is nothing to check it against).
type SkillFile struct {
	URI      string `json:"uri"`
	Digest   string `json:"digest"`
	Size     int64  `json:"size"`
	Unlisted bool   `json:"-"`
}

// Description is frontmatter.description.
func (k Skill) Description() string {
	var fm struct {
		Description string `json:"description"`
	}
	_ = json.Unmarshal(k.Frontmatter, &fm)
	return fm.Description
}

// Compiled on first use, not at start: every command links this package (issue 23).
var skillName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`) })
var digestForm = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sha256:[0-9a-f]{64}$`) })

func decodeSkill(raw json.RawMessage) (Skill, bool) {
	f, ok := newFields(raw, "")
	if !ok {
		return Skill{Raw: raw}, false
	}
	k := Skill{Raw: raw}
	k.URI = f.str("uri")
	k.Frontmatter = f.raw("frontmatter")
	if !strings.HasPrefix(k.URI, "skill://") || !strings.HasSuffix(k.URI, "/SKILL.md") {
		f.problems = append(f.problems, fmt.Sprintf("uri %q is not skill://…/SKILL.md", k.URI))
	}
	if segs := strings.Split(strings.TrimSuffix(k.URI, "/SKILL.md"), "/"); len(segs) > 0 {
		k.Name = segs[len(segs)-1]
	}
	if k.Name != "" && (len(k.Name) > 64 || !skillName().MatchString(k.Name)) {
		f.problems = append(f.problems, fmt.Sprintf("skill name %q is not 1-64 lowercase letters, digits and single hyphens", k.Name))
	}
	var fm map[string]json.RawMessage
	if err := json.Unmarshal(k.Frontmatter, &fm); err != nil || fm == nil {
		f.problems = append(f.problems, fmt.Sprintf("frontmatter is %s, not an object", jsonKind(k.Frontmatter)))
	} else {
		var name string
		if json.Unmarshal(fm["name"], &name) != nil || name == "" {
			f.problems = append(f.problems, "frontmatter.name is missing")
		} else if name != k.Name {
			f.problems = append(f.problems, fmt.Sprintf("frontmatter.name %q differs from the name in the URI, %q", name, k.Name))
		}
		if _, ok := fm["description"]; !ok {
			f.problems = append(f.problems, "frontmatter.description is missing")
		}
	}
	res := f.raw("resources")
	switch jsonKind(res) {
	case "a string":
		var s string
		_ = json.Unmarshal(res, &s)
		if s == "dynamic" {
			k.Dynamic = true
		} else {
			f.problems = append(f.problems, fmt.Sprintf("resources is %q, neither \"dynamic\" nor an array", s))
		}
	case "an array":
		var items []json.RawMessage
		_ = json.Unmarshal(res, &items)
		dir := strings.TrimSuffix(k.URI, "SKILL.md")
		for i, it := range items {
			rf, ok := newFields(it, fmt.Sprintf("resources[%d].", i))
			if !ok {
				f.problems = append(f.problems, fmt.Sprintf("resources[%d] is not an object", i))
				continue
			}
			sf := SkillFile{URI: rf.str("uri"), Digest: rf.str("digest")}
			if n := rf.int64p("size"); n != nil {
				sf.Size = *n
			} else {
				sf.Size = -1
				rf.problems = append(rf.problems, fmt.Sprintf("resources[%d].size is missing", i))
			}
			if !digestForm().MatchString(sf.Digest) {
				rf.problems = append(rf.problems, fmt.Sprintf("resources[%d].digest %q is not sha256: and 64 lowercase hex characters", i, sf.Digest))
			}
			if !strings.HasPrefix(sf.URI, dir) {
				rf.problems = append(rf.problems, fmt.Sprintf("resources[%d].uri %q is outside the skill's directory", i, sf.URI))
			}
			f.problems = append(f.problems, rf.problems...)
			k.Files = append(k.Files, sf)
		}
	default:
		f.problems = append(f.problems, fmt.Sprintf("resources is %s, neither \"dynamic\" nor an array", jsonKind(res)))
	}
	k.Problems = f.problems
	return k, true
}

// HasSkills reports whether the server declared the skills extension.
func (s *Session) HasSkills() bool {
	_, ok := s.Capability("extensions", SkillsExtension)
	return ok
}

// Skills lists every page of skills/list. No skill file is read.
func (s *Session) Skills(ctx context.Context) (*List[Skill], error) {
	return listPages("skills/list", "skills", s.pager(ctx, "skills/list"), decodeSkill,
		func(k Skill) []string { return k.Problems }, func(k Skill) string { return k.URI })
}

// GetSkill asks skills/get for one entry.
func (s *Session) GetSkill(ctx context.Context, uri string) (*Skill, error) {
	result, err := s.request(ctx, "skills/get", map[string]string{"uri": uri})
	if err != nil {
		return nil, err
	}
	var r map[string]json.RawMessage
	if json.Unmarshal(result, &r) != nil || r["skill"] == nil {
		return nil, fmt.Errorf("the skills/get result has no skill object: %s", abbreviate(result, 80))
	}
	k, ok := decodeSkill(r["skill"])
	if !ok {
		return nil, fmt.Errorf("the skills/get result's skill is not an object")
	}
	return &k, nil
}

// SkillFileContent is one skill file read and checked.
type SkillFileContent struct {
	File SkillFile
	Text string // the file's content (text, or the decoded blob)
	Data []byte
}

// VerifyError says a skill file failed its check; its content must not be used.
type VerifyError struct {
	URI    string
	Reason string
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("skill file %s failed verification: %s; its content was not used", e.URI, e.Reason)
}

// LoadedSkill is a skill whose SKILL.md was read and verified.
type LoadedSkill struct {
	Skill    Skill
	SkillMD  SkillFileContent
	Files    []SkillFileContent // the other files, each verified
	Problems []string
}

// LoadSkill reads the skill's SKILL.md, checks its size and digest against the entry
// and its frontmatter against the entry's, and only then reads the other files, each
// checked the same way. The first failed check stops loading with a *VerifyError.
func (s *Session) LoadSkill(ctx context.Context, k Skill) (*LoadedSkill, error) {
	ls := &LoadedSkill{Skill: k}
	md, err := s.OpenSkill(ctx, k)
	if err != nil {
		return nil, err
	}
	ls.SkillMD = md
	files := k.Files
	if k.Dynamic && s.HasDirectoryRead() {
		if files, ls.Problems, err = s.SkillFiles(ctx, k); err != nil {
			return ls, err
		}
	}
	for i := range files {
		f := files[i]
		if f.URI == k.URI {
			continue
		}
		c, err := s.ReadSkillFile(ctx, f)
		if err != nil {
			return ls, err
		}
		ls.Files = append(ls.Files, c)
	}
	return ls, nil
}

// OpenSkill reads only the skill's SKILL.md and checks its size and digest against
// the entry, and its frontmatter against the entry's; a failed check is a
// *VerifyError. No other file is read.
func (s *Session) OpenSkill(ctx context.Context, k Skill) (SkillFileContent, error) {
	var mdEntry *SkillFile
	for i := range k.Files {
		if k.Files[i].URI == k.URI {
			mdEntry = &k.Files[i]
		}
	}
	if mdEntry == nil && !k.Dynamic {
		return SkillFileContent{}, &VerifyError{URI: k.URI, Reason: "the listing has no digest for SKILL.md itself"}
	}
	md, err := s.readSkillFile(ctx, k.URI, mdEntry)
	if err != nil {
		return SkillFileContent{}, err
	}
	if err := compareFrontmatter(k, md.Data); err != nil {
		return SkillFileContent{}, err
	}
	return md, nil
}

// ReadSkillFile reads one file the listing named (resources/read at its skill://
// URI) and checks it against the size and digest the listing gave; a failed check
// is a *VerifyError and no content is returned.
func (s *Session) ReadSkillFile(ctx context.Context, f SkillFile) (SkillFileContent, error) {
	return s.readSkillFile(ctx, f.URI, &f)
}

func (s *Session) readSkillFile(ctx context.Context, uri string, entry *SkillFile) (SkillFileContent, error) {
	r, err := s.Read(ctx, uri)
	if err != nil {
		return SkillFileContent{}, err
	}
	if len(r.Contents) != 1 {
		return SkillFileContent{}, &VerifyError{URI: uri, Reason: fmt.Sprintf("the read returned %d contents, not one", len(r.Contents))}
	}
	c := r.Contents[0]
	var data []byte
	switch {
	case c.HasText:
		data = []byte(c.Text)
	case c.HasBlob:
		b, err := base64.StdEncoding.DecodeString(c.Blob)
		if err != nil {
			return SkillFileContent{}, &VerifyError{URI: uri, Reason: "the blob is not valid base64"}
		}
		data = b
	default:
		return SkillFileContent{}, &VerifyError{URI: uri, Reason: "the read returned neither text nor blob"}
	}
	out := SkillFileContent{Text: string(data), Data: data}
	if entry == nil {
		out.File = SkillFile{URI: uri, Size: int64(len(data))}
		return out, nil
	}
	out.File = *entry
	if entry.Unlisted {
		// A dynamic skill's file: the listing gave no digest or size to check.
		out.File.Size = int64(len(data))
		return out, nil
	}
	if int64(len(data)) != entry.Size {
		return SkillFileContent{}, &VerifyError{URI: uri, Reason: fmt.Sprintf("it is %d bytes, the listing says %d", len(data), entry.Size)}
	}
	sum := sha256.Sum256(data)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != entry.Digest {
		return SkillFileContent{}, &VerifyError{URI: uri, Reason: fmt.Sprintf("its digest is %s, the listing says %s", got, entry.Digest)}
	}
	return out, nil
}

// compareFrontmatter parses SKILL.md's YAML frontmatter (the flat key: value form
// skills use) and compares it field by field with the listing's.
func compareFrontmatter(k Skill, md []byte) error {
	parsed, err := parseFrontmatter(md)
	if err != nil {
		return &VerifyError{URI: k.URI, Reason: err.Error()}
	}
	var listed map[string]json.RawMessage
	if json.Unmarshal(k.Frontmatter, &listed) != nil {
		return &VerifyError{URI: k.URI, Reason: "the listing's frontmatter is not an object"}
	}
	keys := map[string]bool{}
	for key := range listed {
		keys[key] = true
	}
	for key := range parsed {
		keys[key] = true
	}
	names := make([]string, 0, len(keys))
	for key := range keys {
		names = append(names, key)
	}
	sort.Strings(names)
	for _, key := range names {
		lv, inListing := listed[key]
		pv, inFile := parsed[key]
		switch {
		case !inListing:
			return &VerifyError{URI: k.URI, Reason: fmt.Sprintf("its frontmatter has %q, which the listing does not", key)}
		case !inFile:
			return &VerifyError{URI: k.URI, Reason: fmt.Sprintf("its frontmatter lacks %q, which the listing has", key)}
		}
		if !frontmatterEqual(lv, pv) {
			return &VerifyError{URI: k.URI, Reason: fmt.Sprintf("frontmatter %q is %q in the file but %s in the listing", key, pv, abbreviate(lv, 80))}
		}
	}
	return nil
}

func frontmatterEqual(listed json.RawMessage, parsed string) bool {
	var s string
	if json.Unmarshal(listed, &s) == nil {
		return s == parsed
	}
	switch jsonKind(listed) {
	case "a number", "a boolean", "null":
		if jsonKind(listed) == "a number" {
			a, e1 := strconv.ParseFloat(string(bytes.TrimSpace(listed)), 64)
			b, e2 := strconv.ParseFloat(parsed, 64)
			return e1 == nil && e2 == nil && a == b
		}
		return string(bytes.TrimSpace(listed)) == parsed
	}
	// A nested value: compare the block as JSON when the file wrote it so.
	var a, b any
	if json.Unmarshal(listed, &a) != nil || json.Unmarshal([]byte(parsed), &b) != nil {
		return false
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// parseFrontmatter reads the block between the leading "---" lines: key: value pairs,
// values plain or quoted. Anything else (nesting, block scalars) is kept as the raw
// text of its lines, so that it compares unequal unless the listing matches it.
func parseFrontmatter(md []byte) (map[string]string, error) {
	text := strings.ReplaceAll(string(md), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return nil, fmt.Errorf("SKILL.md does not start with a --- frontmatter block")
	}
	body, _, ok := strings.Cut(text[4:], "\n---")
	if !ok {
		return nil, fmt.Errorf("SKILL.md's frontmatter block is not closed with ---")
	}
	out := map[string]string{}
	last := ""
	for _, line := range strings.Split(body, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if last == "" {
				return nil, fmt.Errorf("SKILL.md's frontmatter starts with an indented line")
			}
			out[last] = strings.TrimSpace(out[last] + "\n" + line)
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("SKILL.md's frontmatter line %q is not key: value", line)
		}
		key = strings.TrimSpace(key)
		val = strings.TrimSpace(val)
		if len(val) >= 2 && (val[0] == '"' && val[len(val)-1] == '"') {
			if uq, err := strconv.Unquote(val); err == nil {
				val = uq
			}
		} else if len(val) >= 2 && val[0] == '\'' && val[len(val)-1] == '\'' {
			val = strings.ReplaceAll(val[1:len(val)-1], "''", "'")
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("SKILL.md's frontmatter has %q twice", key)
		}
		out[key] = val
		last = key
	}
	return out, nil
}
