package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
)

// Span is where one member of a config file is, in the file's own bytes: its value is
// data[Start:End]. Locate and Members find spans with the parser Load uses (comments
// and trailing commas blanked in a copy, every offset kept), so that a writer (tap
// wrap, package tap/wrap) changes exactly the entry that `mcpscope servers` lists
// under the name, and not a look-alike the parser would not read.
type Span struct {
	Key        string
	Start, End int
	// In names the map the entry is in: "mcpServers", "servers", "mcp.servers" or
	// "projects.DIR.mcpServers" (~/.claude.json's servers of one project).
	In string
}

// Locate finds every entry named name in a config file's bytes, in the places Load
// reads servers from (the project map of ~/.claude.json only for the working
// directory, as Load). A file that is not a JSON object (after its comments) is an
// error; a file without the name gives no span.
func Locate(data []byte, name string) ([]Span, error) {
	clean := stripJSONC(data)
	top, err := members(clean, 0)
	if err != nil {
		return nil, errors.New("the file is not a JSON object")
	}
	var out []Span
	find := func(m member, in string) {
		servers, err := members(m.value, m.offset)
		if err != nil {
			return
		}
		for _, s := range servers {
			if s.key == name {
				out = append(out, Span{Key: s.key, Start: s.offset, End: s.offset + len(s.value), In: in})
			}
		}
	}
	for _, m := range top {
		switch m.key {
		case "mcpServers", "servers":
			find(m, m.key)
		case "mcp":
			inner, _ := members(m.value, m.offset)
			for _, im := range inner {
				if im.key == "servers" {
					find(im, "mcp.servers")
				}
			}
		case "projects":
			cwd, _ := os.Getwd()
			projects, _ := members(m.value, m.offset)
			for _, pm := range projects {
				if filepath.Clean(pm.key) != cwd {
					continue
				}
				inner, _ := members(pm.value, pm.offset)
				for _, im := range inner {
					if im.key == "mcpServers" {
						find(im, "projects."+pm.key+".mcpServers")
					}
				}
			}
		}
	}
	return out, nil
}

// Members lists the members of the object whose value is data[s.Start:s.End] (an
// entry Locate found), each with its value's span in data, in file order.
func Members(data []byte, s Span) ([]Span, error) {
	if s.Start < 0 || s.End > len(data) || s.Start > s.End {
		return nil, errors.New("span outside the file")
	}
	clean := stripJSONC(data[s.Start:s.End])
	ms, err := members(clean, s.Start)
	if err != nil {
		return nil, err
	}
	out := make([]Span, len(ms))
	for i, m := range ms {
		out[i] = Span{Key: m.key, Start: m.offset, End: m.offset + len(m.value), In: s.Key}
	}
	return out, nil
}

// Parse reads a config file's bytes as Load reads the file at loc.Path: a writer
// checks with it that what it is about to write still reads as it meant.
func Parse(ctx context.Context, data []byte, loc Location) ([]Entry, error) {
	return parse(ctx, data, loc)
}
