package config

import (
	"fmt"
	"strings"
	"unicode"
)

// MaxNameLen bounds a server's name.
const MaxNameLen = 64

// NameRule is the one rule for a server's name, said with every refusal. A name is
// shown in front of each tool (server/tool), inside mcp__server__tool (so "__" would
// make the parts ambiguous), in headers, file names and recordings (so nothing a
// terminal interprets, and not ".." or "."), and may come from a .mcp.json that
// mcpscope reads from the working directory without asking.
const NameRule = "a server name is 1 to 64 letters, digits, '-', '_' and '.', not only dots, without \"..\" and without \"__\" (which separates the parts of mcp__server__tool)"

// CheckName says what is wrong with a server name, ending with NameRule; nil when the
// name may be used. It is the one check of a name: config entries, --server NAME=…,
// :add NAME and the workbench all use it. The name is quoted with %q, so a control
// character or a bidi override in it is shown escaped, never interpreted.
func CheckName(name string) error {
	why := ""
	switch {
	case name == "":
		why = "a server needs a name (NAME=TARGET)"
	case len(name) > MaxNameLen:
		return fmt.Errorf("server name %q is longer than %d bytes; %s", name[:MaxNameLen]+"…", MaxNameLen, NameRule)
	case strings.Contains(name, "/"):
		why = "has a \"/\", which separates the server from the tool (server/tool)"
	case strings.Trim(name, ".") == "":
		why = "is only dots"
	case strings.Contains(name, ".."):
		why = "has \"..\""
	case strings.Contains(name, "__"):
		why = "has \"__\""
	}
	for _, r := range name {
		if why != "" {
			break
		}
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.':
		case unicode.IsSpace(r):
			why = "has white space; use - or _ instead"
		case unicode.IsControl(r) || !unicode.IsPrint(r) || unicode.Is(unicode.Bidi_Control, r):
			why = fmt.Sprintf("has a control or unprintable character (%U)", r)
		default:
			why = fmt.Sprintf("has %q", r)
		}
	}
	if why == "" {
		return nil
	}
	if name == "" {
		return fmt.Errorf("%s; %s", why, NameRule)
	}
	return fmt.Errorf("server name %q %s; %s", name, why, NameRule)
}
