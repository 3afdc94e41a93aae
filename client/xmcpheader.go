package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// invalidParamHeaders says why a tool's x-mcp-header markings are invalid, or ""
// when they are valid or absent (mcp-wire §4.5). A 2026-07-28 HTTP client must drop
// such a tool: it could not send the Mcp-Param-* headers the server requires.
func invalidParamHeaders(inputSchema json.RawMessage) string {
	if !bytes.Contains(inputSchema, []byte("x-mcp-header")) {
		return ""
	}
	var root any
	dec := json.NewDecoder(bytes.NewReader(inputSchema))
	dec.UseNumber()
	if dec.Decode(&root) != nil {
		return ""
	}
	seen := map[string]string{}
	return walkParamHeaders(root, false, "", seen)
}

// dataKeywords hold values, not schemas.
var dataKeywords = map[string]bool{"const": true, "enum": true, "default": true, "examples": true}

func walkParamHeaders(node any, reachable bool, path string, seen map[string]string) string {
	switch n := node.(type) {
	case []any:
		for i, v := range n {
			if why := walkParamHeaders(v, false, fmt.Sprintf("%s[%d]", path, i), seen); why != "" {
				return why
			}
		}
	case map[string]any:
		if v, ok := n["x-mcp-header"]; ok {
			where := path
			if where == "" {
				where = "the schema's root"
			} else {
				where = "property " + strings.TrimPrefix(where, ".")
			}
			if !reachable {
				return fmt.Sprintf("x-mcp-header on %s, which is not reached through properties alone", where)
			}
			name, isString := v.(string)
			switch {
			case !isString || name == "":
				return fmt.Sprintf("x-mcp-header on %s is not a non-empty string", where)
			case !isToken(name):
				return fmt.Sprintf("x-mcp-header %q on %s is not an HTTP token", name, where)
			}
			if other, dup := seen[strings.ToLower(name)]; dup {
				return fmt.Sprintf("x-mcp-header %q on %s repeats the one on %s", name, where, other)
			}
			seen[strings.ToLower(name)] = where
			switch t, _ := n["type"].(string); t {
			case "string", "integer", "boolean":
			default:
				return fmt.Sprintf("x-mcp-header %q on %s, whose type is %v; only string, integer and boolean properties may carry it", name, where, n["type"])
			}
		}
		for k, v := range n {
			switch {
			case k == "x-mcp-header" || dataKeywords[k]:
			case k == "properties":
				props, _ := v.(map[string]any)
				for name, child := range props {
					if why := walkParamHeaders(child, true, path+"."+name, seen); why != "" {
						return why
					}
				}
			default:
				if why := walkParamHeaders(v, false, path+"/"+k, seen); why != "" {
					return why
				}
			}
		}
	}
	return ""
}

func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return s != ""
}
