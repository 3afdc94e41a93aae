package workbench

import (
	"fmt"
	"strings"

	"github.com/mcpscope/mcpscope/config"
)

// MaxNameLen bounds a server's name.
const MaxNameLen = config.MaxNameLen

// ValidateName says what is wrong with a server name: config.CheckName, the one rule
// for every name (config entries, --server, :add, recordings' servers).
func ValidateName(name string) error { return config.CheckName(name) }

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
