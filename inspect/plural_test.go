package inspect

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
)

// One of a kind is counted in the singular ("1 tool", not "1 tools") in every count
// --inspect prints, and two in the plural.
func TestInspectCountsOneInTheSingular(t *testing.T) {
	info := client.Info{Name: "s", Version: "1", ProtocolVersion: "2025-11-25", Era: "legacy", Transport: "stdio", Capabilities: json.RawMessage(`{}`)}
	one := &client.ToolList{Tools: []client.Tool{{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
	p := &Primitives{
		Resources: []client.Resource{{URI: "x://a", Name: "a"}},
		Templates: []client.ResourceTemplate{{URITemplate: "x://{a}", Name: "a"}},
		Prompts:   []client.Prompt{{Name: "p"}},
		Skills:    []client.Skill{{URI: "skill://a/SKILL.md", Name: "a"}},
	}
	var b bytes.Buffer
	if err := WriteWith(&b, FormatTable, info, one, p); err != nil {
		t.Fatal(err)
	}
	var m bytes.Buffer
	if err := WriteServers(&m, FormatMarkdown, []Section{{Name: "only", Status: "connected", Info: info, Tools: one}}); err != nil {
		t.Fatal(err)
	}
	out := b.String() + m.String()
	for _, want := range []string{"\n1 tool (hints", "\n1 resource\n", "\n1 resource template\n", "\n1 prompt (* required)\n", "\n1 skill\n", "# 1 server\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	two := &client.ToolList{Tools: append(one.Tools, client.Tool{Name: "u", InputSchema: json.RawMessage(`{"type":"object"}`)})}
	p.Resources = append(p.Resources, client.Resource{URI: "x://b", Name: "b"})
	b.Reset()
	if err := WriteWith(&b, FormatTable, info, two, p); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\n2 tools (hints", "\n2 resources\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}
