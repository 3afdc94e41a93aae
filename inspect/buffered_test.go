package inspect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
)

// countingWriter counts the writes that would each be a write(2) on an unbuffered
// stdout.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes++
	return c.Buffer.Write(p)
}

// A report goes out in one write, not one per cell (issue 23: a 20-tool --inspect
// table was 176 write(2)s on stdout), and all of it goes out.
func TestReportIsOneWrite(t *testing.T) {
	var tools []client.Tool
	for i := range 20 {
		tools = append(tools, client.Tool{Name: fmt.Sprintf("tool%02d", i), Description: "a tool",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)})
	}
	info := client.Info{Name: "s", Version: "1", ProtocolVersion: "2025-11-25", Era: "legacy", Transport: "http"}
	p := &Primitives{Resources: []client.Resource{{URI: "mem://hello", Name: "hello"}}, Prompts: []client.Prompt{{Name: "greet"}}, Problems: []string{"the last line"}}
	for _, format := range []string{FormatTable, FormatMarkdown, FormatJSON} {
		var w countingWriter
		if err := WriteWith(&w, format, info, &client.ToolList{Tools: tools}, p); err != nil {
			t.Fatal(err)
		}
		if w.writes != 1 {
			t.Errorf("%s: the report took %d writes, want 1", format, w.writes)
		}
		for _, want := range []string{"tool00", "tool19", "greet", "the last line"} {
			if !strings.Contains(w.String(), want) {
				t.Errorf("%s: the report lacks %q:\n%s", format, want, w.String())
			}
		}
	}
	var w countingWriter
	if err := WriteServers(&w, FormatTable, []Section{{Name: "a", Info: info, Tools: &client.ToolList{Tools: tools}}, {Name: "b", Info: info, Tools: &client.ToolList{Tools: tools}}}); err != nil {
		t.Fatal(err)
	}
	if w.writes != 1 || strings.Count(w.String(), "tool19") != 2 {
		t.Errorf("several servers: %d writes, want 1, and both tables:\n%s", w.writes, w.String())
	}
}
