package workbench

import (
	"fmt"
	"strings"
	"unicode"
)

// MaxNameLen bounds a server's name.
const MaxNameLen = 64

// ValidateName says what is wrong with a server name: it is shown in front of every
// tool (server/tool) and inside mcp__server__tool, so it holds no "/", no white space
// and no control character.
func ValidateName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("a server needs a name (NAME=TARGET)")
	case strings.Contains(name, "/"):
		return fmt.Errorf("server name %q has a \"/\", which separates the server from the tool (server/tool); pick a name without one", name)
	case len(name) > MaxNameLen:
		return fmt.Errorf("server name %q is longer than %d bytes", name[:MaxNameLen]+"…", MaxNameLen)
	}
	for _, r := range name {
		switch {
		case unicode.IsSpace(r):
			return fmt.Errorf("server name %q has white space; use - or _ instead", name)
		case unicode.IsControl(r) || r == unicode.ReplacementChar || !unicode.IsPrint(r):
			return fmt.Errorf("server name %q has a control or unprintable character", name)
		}
	}
	return nil
}

// ToolID is a tool's identity in a session of several servers.
type ToolID struct {
	Server string
	Tool   string
}

// String is the form mcpscope shows: server/tool (a tool name cannot hold "/").
func (id ToolID) String() string { return id.Server + "/" + id.Tool }

// Qualified is the form Claude Code and agent hosts use: mcp__server__tool.
func (id ToolID) Qualified() string { return "mcp__" + id.Server + "__" + id.Tool }

// ParseToolID reads server/tool or mcp__server__tool. servers are the names in the
// session: with them, a server name that itself holds "__" is found in the mcp__ form
// (the longest one that fits wins); without a match the first "__" separates.
func ParseToolID(s string, servers []string) (ToolID, error) {
	if rest, ok := strings.CutPrefix(s, "mcp__"); ok {
		best := ""
		for _, name := range servers {
			if len(name) > len(best) && strings.HasPrefix(rest, name+"__") && len(rest) > len(name)+2 {
				best = name
			}
		}
		if best != "" {
			return ToolID{Server: best, Tool: rest[len(best)+2:]}, nil
		}
		server, tool, ok := strings.Cut(rest, "__")
		if !ok || server == "" || tool == "" {
			return ToolID{}, fmt.Errorf("%q: give mcp__SERVER__TOOL", s)
		}
		return ToolID{Server: server, Tool: tool}, nil
	}
	server, tool, ok := strings.Cut(s, "/")
	if !ok {
		return ToolID{}, fmt.Errorf("%q names no server: give SERVER/TOOL (or mcp__SERVER__TOOL)", s)
	}
	if server == "" || tool == "" {
		return ToolID{}, fmt.Errorf("%q: give SERVER/TOOL", s)
	}
	return ToolID{Server: server, Tool: tool}, nil
}
