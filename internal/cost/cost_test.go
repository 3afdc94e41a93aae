package cost

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpscope/mcpscope/client"
)

// labTools are the tools of the saved --inspect file of server-everything.
func labTools(t testing.TB) []client.Tool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "surface", "testdata", "everything.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Tools []json.RawMessage }
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var out []client.Tool
	for _, r := range doc.Tools {
		var tl struct {
			Name, Description string
			InputSchema       json.RawMessage
		}
		if err := json.Unmarshal(r, &tl); err != nil {
			t.Fatal(err)
		}
		out = append(out, client.Tool{Name: tl.Name, Description: tl.Description, InputSchema: tl.InputSchema})
	}
	return out
}

// TestOfToolCountsWhatAHostSends: a tool's bytes are {"name","description",
// "input_schema"} as compact JSON, no HTML escaping (a host's encoder), split into the
// description's JSON string and the schema; bytes alone never count tokens.
func TestOfToolCountsWhatAHostSends(t *testing.T) {
	tl := client.Tool{Name: "a<b", Description: "x & y", InputSchema: json.RawMessage("{ \"type\" : \"object\" }")}
	c := OfTool(tl, false)
	want := `{"name":"a<b","description":"x & y","input_schema":{"type":"object"}}`
	if c.Bytes != len(want) || c.Description != len(`"x & y"`) || c.Schema != len(`{"type":"object"}`) || c.Tokens != 0 {
		t.Errorf("%+v, want %d bytes (%s)", c, len(want), want)
	}
	if c := OfTool(tl, true); c.Tokens != Tokens(want) || c.Tokens == 0 {
		t.Errorf("tokens %d, want %d", c.Tokens, Tokens(want))
	}
}

// BenchmarkBytesOfALabSurface is what --inspect and the workbench pay for the bytes
// of server-everything's tools (no tokenizer).
func BenchmarkBytesOfALabSurface(b *testing.B) {
	tools := labTools(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range tools {
			OfTool(t, false)
		}
	}
}

// BenchmarkTokensOfALabSurface is the same with o200k_base tokens, the tokenizer
// already loaded.
func BenchmarkTokensOfALabSurface(b *testing.B) {
	tools := labTools(b)
	Tokens("warm")
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range tools {
			OfTool(t, true)
		}
	}
}
