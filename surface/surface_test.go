package surface

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
)

// The testdata files are `mcpscope --inspect --format json` of real servers:
// everything.json: node interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio
// ts-v2.json: interop/ts-server.mjs (the TypeScript SDK v2 server) over HTTP.
// fastmcp.json: node interop/fastmcp-notes.mjs (npm fastmcp 4.20.16).
func load(t testing.TB, name string) *Surface {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := FromInspect(data, name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// edit returns a copy of s whose tool name was changed by f (on its wire JSON); f
// returning nil removes the tool.
func edit(t testing.TB, s *Surface, name string, f func(m map[string]any) map[string]any) *Surface {
	t.Helper()
	var items []json.RawMessage
	found := false
	for _, tool := range s.Tools {
		if tool.Name != name {
			items = append(items, tool.Raw)
			continue
		}
		found = true
		var m map[string]any
		if err := json.Unmarshal(tool.Raw, &m); err != nil {
			t.Fatal(err)
		}
		if m = f(m); m != nil {
			b, _ := json.Marshal(m)
			items = append(items, b)
		}
	}
	if !found {
		t.Fatalf("no tool %q in %s", name, s.Label)
	}
	arr, _ := json.Marshal(items)
	ts, _ := client.DecodeTools(arr)
	out := *s
	out.Tools = ts
	out.Label = s.Label + " (edited)"
	return &out
}

func addTool(t testing.TB, s *Surface, raw string) *Surface {
	t.Helper()
	ts, problems := client.DecodeTools(json.RawMessage("[" + raw + "]"))
	if len(problems) > 0 || len(ts) != 1 {
		t.Fatalf("bad tool %s: %v", raw, problems)
	}
	out := *s
	out.Tools = append(append([]client.Tool{}, s.Tools...), ts[0])
	return &out
}

func obj(m map[string]any, path ...string) map[string]any {
	for _, p := range path {
		m = m[p].(map[string]any)
	}
	return m
}

func TestCompareKinds(t *testing.T) {
	every := load(t, "everything.json")
	ts := load(t, "ts-v2.json")
	fm := load(t, "fastmcp.json")
	tsClosed := edit(t, ts, "add", func(m map[string]any) map[string]any {
		obj(m, "inputSchema")["additionalProperties"] = false
		return m
	})
	cases := []struct {
		name     string
		old      *Surface
		new      func() *Surface
		tool     string // the entry's name
		kind     string // a change of this kind must be there
		breaking bool   // its classification
		status   string
	}{
		{"tool removed", every, func() *Surface { return edit(t, every, "get-sum", func(map[string]any) map[string]any { return nil }) },
			"get-sum", "tool-removed", true, Removed},
		{"tool renamed", every, func() *Surface {
			return edit(t, every, "get-sum", func(m map[string]any) map[string]any { m["name"] = "add-numbers"; return m })
		}, "add-numbers", "tool-renamed", true, Renamed},
		{"tool added", ts, func() *Surface {
			return addTool(t, ts, `{"name":"multiply","inputSchema":{"type":"object","properties":{"a":{"type":"number"}}}}`)
		}, "multiply", "tool-added", false, Added},
		{"new required parameter", every, func() *Surface {
			return edit(t, every, "get-sum", func(m map[string]any) map[string]any {
				s := obj(m, "inputSchema")
				obj(s, "properties")["c"] = map[string]any{"type": "number"}
				s["required"] = []any{"a", "b", "c"}
				return m
			})
		}, "get-sum", "param-added-required", true, Changed},
		{"new optional parameter", ts, func() *Surface {
			return edit(t, ts, "echo", func(m map[string]any) map[string]any {
				obj(m, "inputSchema", "properties")["loud"] = map[string]any{"type": "boolean"}
				return m
			})
		}, "echo", "param-added", false, Changed},
		{"parameter removed", every, func() *Surface {
			return edit(t, every, "trigger-long-running-operation", func(m map[string]any) map[string]any {
				delete(obj(m, "inputSchema", "properties"), "steps")
				return m
			})
		}, "trigger-long-running-operation", "param-removed", true, Changed},
		{"parameter made required", every, func() *Surface {
			return edit(t, every, "get-resource-links", func(m map[string]any) map[string]any {
				obj(m, "inputSchema")["required"] = []any{"count"}
				return m
			})
		}, "get-resource-links", "param-made-required", true, Changed},
		{"parameter made optional", every, func() *Surface {
			return edit(t, every, "echo", func(m map[string]any) map[string]any {
				delete(obj(m, "inputSchema"), "required")
				return m
			})
		}, "echo", "param-made-optional", false, Changed},
		{"type narrowed number to integer", every, func() *Surface {
			return edit(t, every, "get-sum", func(m map[string]any) map[string]any {
				obj(m, "inputSchema", "properties", "a")["type"] = "integer"
				return m
			})
		}, "get-sum", "type-narrowed", true, Changed},
		{"type widened to a union", ts, func() *Surface {
			return edit(t, edit(t, ts, "echo", func(m map[string]any) map[string]any {
				obj(m, "inputSchema", "properties", "text")["type"] = []any{"string", "null"}
				return m
			}), "echo", func(m map[string]any) map[string]any { return m })
		}, "echo", "type-widened", false, Changed},
		{"type changed", every, func() *Surface {
			return edit(t, every, "echo", func(m map[string]any) map[string]any {
				obj(m, "inputSchema", "properties", "message")["type"] = "object"
				return m
			})
		}, "echo", "type-changed", true, Changed},
		{"type widened", every, func() *Surface {
			return edit(t, every, "get-sum", func(m map[string]any) map[string]any {
				obj(m, "inputSchema", "properties", "a")["type"] = []any{"number", "string"}
				return m
			})
		}, "get-sum", "type-widened", false, Changed},
		{"enum value removed", every, func() *Surface {
			return edit(t, every, "get-structured-content", func(m map[string]any) map[string]any {
				obj(m, "inputSchema", "properties", "location")["enum"] = []any{"New York", "Chicago"}
				return m
			})
		}, "get-structured-content", "enum-value-removed", true, Changed},
		{"enum value added", every, func() *Surface {
			return edit(t, every, "get-annotated-message", func(m map[string]any) map[string]any {
				obj(m, "inputSchema", "properties", "messageType")["enum"] = []any{"error", "success", "debug", "info"}
				return m
			})
		}, "get-annotated-message", "enum-value-added", false, Changed},
		{"enum added", ts, func() *Surface {
			return edit(t, ts, "echo", func(m map[string]any) map[string]any {
				obj(m, "inputSchema", "properties", "text")["enum"] = []any{"a", "b"}
				return m
			})
		}, "echo", "enum-added", true, Changed},
		{"additionalProperties closed", every, func() *Surface {
			return edit(t, every, "get-sum", func(m map[string]any) map[string]any {
				obj(m, "inputSchema")["additionalProperties"] = false
				return m
			})
		}, "get-sum", "additional-properties-closed", true, Changed},
		{"additionalProperties opened", tsClosed, func() *Surface { return ts }, "add", "additional-properties-opened", false, Changed},
		{"maximum tightened", ts, func() *Surface {
			return edit(t, ts, "slow", func(m map[string]any) map[string]any {
				obj(m, "inputSchema", "properties", "steps")["maximum"] = 10
				return m
			})
		}, "slow", "constraint-tightened", true, Changed},
		{"minimum loosened", every, func() *Surface {
			return edit(t, every, "get-resource-links", func(m map[string]any) map[string]any {
				obj(m, "inputSchema", "properties", "count")["minimum"] = 0
				return m
			})
		}, "get-resource-links", "constraint-loosened", false, Changed},
		{"output property removed", every, func() *Surface {
			return edit(t, every, "get-structured-content", func(m map[string]any) map[string]any {
				delete(obj(m, "outputSchema", "properties"), "conditions")
				return m
			})
		}, "get-structured-content", "output-property-removed", true, Changed},
		{"output property type changed", ts, func() *Surface {
			return edit(t, ts, "add", func(m map[string]any) map[string]any {
				obj(m, "outputSchema", "properties", "sum")["type"] = "string"
				return m
			})
		}, "add", "type-changed", true, Changed},
		{"output property widened", ts, func() *Surface {
			return edit(t, ts, "add", func(m map[string]any) map[string]any {
				obj(m, "outputSchema", "properties", "sum")["type"] = []any{"number", "null"}
				return m
			})
		}, "add", "type-widened", true, Changed},
		{"output property added", ts, func() *Surface {
			return edit(t, ts, "add", func(m map[string]any) map[string]any {
				obj(m, "outputSchema", "properties")["carry"] = map[string]any{"type": "boolean"}
				return m
			})
		}, "add", "output-property-added", false, Changed},
		{"output schema removed", ts, func() *Surface {
			return edit(t, ts, "add", func(m map[string]any) map[string]any { delete(m, "outputSchema"); return m })
		}, "add", "output-schema-removed", true, Changed},
		{"output schema added", ts, func() *Surface {
			return edit(t, ts, "echo", func(m map[string]any) map[string]any {
				m["outputSchema"] = map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}
				return m
			})
		}, "echo", "output-schema-added", false, Changed},
		{"readOnly true→false", every, func() *Surface {
			return edit(t, every, "echo", func(m map[string]any) map[string]any {
				obj(m, "annotations")["readOnlyHint"] = false
				return m
			})
		}, "echo", "hint-changed", true, Changed},
		{"destructive false→true", every, func() *Surface {
			return edit(t, every, "gzip-file-as-resource", func(m map[string]any) map[string]any {
				obj(m, "annotations")["destructiveHint"] = true
				return m
			})
		}, "gzip-file-as-resource", "hint-changed", true, Changed},
		{"destructive false→absent (spec default true)", every, func() *Surface {
			return edit(t, every, "gzip-file-as-resource", func(m map[string]any) map[string]any {
				delete(obj(m, "annotations"), "destructiveHint")
				return m
			})
		}, "gzip-file-as-resource", "hint-changed", true, Changed},
		{"idempotent true→false", every, func() *Surface {
			return edit(t, every, "get-sum", func(m map[string]any) map[string]any {
				obj(m, "annotations")["idempotentHint"] = false
				return m
			})
		}, "get-sum", "hint-changed", true, Changed},
		{"readOnly false→true is compatible", every, func() *Surface {
			return edit(t, every, "toggle-simulated-logging", func(m map[string]any) map[string]any {
				obj(m, "annotations")["readOnlyHint"] = true
				return m
			})
		}, "toggle-simulated-logging", "hint-changed", false, Changed},
		{"readOnly set true from absent", ts, func() *Surface {
			return edit(t, ts, "add", func(m map[string]any) map[string]any {
				m["annotations"] = map[string]any{"readOnlyHint": true}
				return m
			})
		}, "add", "hint-changed", false, Changed},
		{"description only", every, func() *Surface {
			return edit(t, every, "echo", func(m map[string]any) map[string]any {
				m["description"] = "Echoes back the input, politely"
				return m
			})
		}, "echo", "description-changed", false, Changed},
		{"parameter description only", every, func() *Surface {
			return edit(t, every, "get-sum", func(m map[string]any) map[string]any {
				obj(m, "inputSchema", "properties", "a")["description"] = "The first addend"
				return m
			})
		}, "get-sum", "description-changed", false, Changed},
		{"fastmcp: additionalProperties opened", fm, func() *Surface {
			return edit(t, fm, "lookup_weather", func(m map[string]any) map[string]any {
				delete(obj(m, "inputSchema"), "additionalProperties")
				return m
			})
		}, "lookup_weather", "additional-properties-opened", false, Changed},
		{"fastmcp: id narrowed to integer", fm, func() *Surface {
			return edit(t, fm, "delete_note", func(m map[string]any) map[string]any {
				obj(m, "inputSchema", "properties", "id")["type"] = "integer"
				return m
			})
		}, "delete_note", "type-narrowed", true, Changed},
		{"fastmcp: destructive hint dropped (default still destructive)", fm, func() *Surface {
			return edit(t, fm, "delete_note", func(m map[string]any) map[string]any {
				delete(obj(m, "annotations"), "destructiveHint")
				m["description"] = "Deletes a note"
				return m
			})
		}, "delete_note", "description-changed", false, Changed},
		{"fastmcp: readOnly dropped (default false)", fm, func() *Surface {
			return edit(t, fm, "lookup_weather", func(m map[string]any) map[string]any {
				delete(m, "annotations")
				return m
			})
		}, "lookup_weather", "hint-changed", true, Changed},
		{"fastmcp: new optional parameter on a closed schema", fm, func() *Surface {
			return edit(t, fm, "echo_any", func(m map[string]any) map[string]any {
				obj(m, "inputSchema", "properties")["text"] = map[string]any{"type": "string"}
				return m
			})
		}, "echo_any", "param-added", false, Changed},
		{"title only", ts, func() *Surface {
			return edit(t, ts, "echo", func(m map[string]any) map[string]any { m["title"] = "Echo back"; return m })
		}, "echo", "title-changed", false, Changed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Compare(tc.old, tc.new())
			e := r.Find(ObjTool, tc.tool)
			if e == nil {
				t.Fatalf("no entry for %q; report: %+v", tc.tool, r.Entries)
			}
			if len(r.Entries) != 1 {
				t.Errorf("want one entry, got %d: %+v", len(r.Entries), r.Entries)
			}
			if e.Status != tc.status {
				t.Errorf("status %q, want %q", e.Status, tc.status)
			}
			var found *Change
			for i := range e.Changes {
				if e.Changes[i].Kind == tc.kind {
					found = &e.Changes[i]
				}
			}
			if found == nil {
				t.Fatalf("no %s change; changes: %+v", tc.kind, e.Changes)
			}
			if found.Breaking != tc.breaking {
				t.Errorf("%s: breaking=%v, want %v (%s)", tc.kind, found.Breaking, tc.breaking, found.Message)
			}
			if r.HasBreaking() != tc.breaking {
				t.Errorf("report breaking=%v, want %v: %+v", r.HasBreaking(), tc.breaking, e.Changes)
			}
			if e.Diff == "" {
				t.Error("no diff")
			}
			var buf bytes.Buffer
			if err := Write(&buf, FormatText, r, true); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), found.Message) {
				t.Errorf("text output lacks %q:\n%s", found.Message, buf.String())
			}
		})
	}
}

func TestUnchangedIsEmpty(t *testing.T) {
	for _, f := range []string{"everything.json", "ts-v2.json", "fastmcp.json"} {
		a, b := load(t, f), load(t, f)
		if r := Compare(a, b); !r.Empty() || r.HasBreaking() {
			t.Errorf("%s against itself: %+v", f, r.Entries)
		}
	}
}

func TestDiffIsReadable(t *testing.T) {
	every := load(t, "everything.json")
	r := Compare(every, edit(t, every, "get-sum", func(m map[string]any) map[string]any {
		obj(m, "inputSchema", "properties", "a")["type"] = "integer"
		return m
	}))
	d := r.Entries[0].Diff
	for _, want := range []string{"--- a/get-sum", "+++ b/get-sum", `-        "type": "number"`, `+        "type": "integer"`} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
}

func TestPromptsAndResources(t *testing.T) {
	mk := func(prompts, resources string) *Surface {
		s := &Surface{HasPrompts: true, HasResources: true, HasTemplates: true}
		var ps, rs []json.RawMessage
		_ = json.Unmarshal([]byte(prompts), &ps)
		_ = json.Unmarshal([]byte(resources), &rs)
		s.Prompts = keyed(ps, "name")
		s.Resources = keyed(rs, "uri")
		return s
	}
	old := mk(`[{"name":"simple-prompt"},{"name":"args-prompt","arguments":[{"name":"city","required":true},{"name":"state"}]}]`,
		`[{"uri":"demo://resource/static/document/architecture.md","name":"architecture.md"},{"uri":"demo://a","name":"a"}]`)
	new := mk(`[{"name":"args-prompt","arguments":[{"name":"city","required":true},{"name":"zip","required":true}]},{"name":"new-prompt"}]`,
		`[{"uri":"demo://resource/static/document/architecture.md","name":"architecture.md","description":"the design"},{"uri":"demo://b"}]`)
	r := Compare(old, new)
	want := map[string]bool{ // object/name/kind → breaking
		"prompt/simple-prompt/prompt-removed":                                          true,
		"prompt/args-prompt/param-removed":                                             true,
		"prompt/args-prompt/param-added-required":                                      true,
		"prompt/new-prompt/prompt-added":                                               false,
		"resource/demo://a/resource-removed":                                           true,
		"resource/demo://b/resource-added":                                             false,
		"resource/demo://resource/static/document/architecture.md/description-changed": false,
	}
	got := map[string]bool{}
	for _, e := range r.Entries {
		for _, c := range e.Changes {
			got[e.Object+"/"+e.Name+"/"+c.Kind] = c.Breaking
		}
	}
	for k, b := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("missing %s; got %v", k, got)
		} else if g != b {
			t.Errorf("%s breaking=%v, want %v", k, g, b)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d changes, want %d: %v", len(got), len(want), got)
	}
}

func TestFormats(t *testing.T) {
	every := load(t, "everything.json")
	r := Compare(every, edit(t, every, "echo", func(m map[string]any) map[string]any {
		m["description"] = "evil \x1b]0;title\x07 | text"
		delete(obj(m, "inputSchema", "properties"), "message")
		return m
	}))
	for _, f := range []string{FormatText, FormatMarkdown, FormatJSON, FormatJUnit} {
		var buf bytes.Buffer
		if err := Write(&buf, f, r, true); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if strings.Contains(out, "\x1b") && f != FormatJSON {
			t.Errorf("%s: a raw escape reached the output", f)
		}
		switch f {
		case FormatJSON:
			var doc struct {
				Breaking int     `json:"breaking"`
				Entries  []Entry `json:"entries"`
			}
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil || doc.Breaking != 1 || len(doc.Entries) != 1 {
				t.Errorf("json: %v %+v", err, doc)
			}
		case FormatJUnit:
			var suites junitSuites
			if err := xml.Unmarshal(buf.Bytes(), &suites); err != nil {
				t.Fatalf("junit is not XML: %v\n%s", err, out)
			}
			if suites.Suites[0].Failures != 1 {
				t.Errorf("junit failures %d", suites.Suites[0].Failures)
			}
		case FormatMarkdown:
			if !strings.Contains(out, "**breaking**") || !strings.Contains(out, "```diff") {
				t.Errorf("markdown:\n%s", out)
			}
		}
	}
}

func TestFromInspectRejects(t *testing.T) {
	tooDeep := `{"formatVersion":1,"tools":[{"name":"x","inputSchema":` + strings.Repeat(`[`, 1200) + strings.Repeat(`]`, 1200) + `}]}`
	for _, in := range []string{`{}`, `[]`, `{"formatVersion":1}`, `not json`, `{"formatVersion":99,"tools":[]}`, `{"formatVersion":1,"tools":{}}`, tooDeep} {
		if _, err := FromInspect([]byte(in), "x.json"); err == nil {
			t.Errorf("%s: accepted", in)
		}
	}
}

// TestFromInspectWalkAgreesWithDecoding: reading an --inspect file by walking it gives
// the tools that decoding it with encoding/json and rebuilding each wire object does,
// on the real servers' files and on odd ones (escapes, HTML characters, a tool that
// is not an object, hints set and unset, a schema nested past jsonscan's depth limit).
func TestFromInspectWalkAgreesWithDecoding(t *testing.T) {
	deep := strings.Repeat(`{"type":"object","properties":{"x":`, 450) + `{}` + strings.Repeat(`}}`, 450)
	odd := `{"formatVersion":1,"server":{"name":"odd","version":"1"},"tools":[
	  {"name":"a\u00e9\"b","title":"<T&>","description":"line\nnext \\ <b>","annotations":{"readOnly":{"value":true,"set":true},"destructive":{"value":true,"set":false},"openWorld":{"value":false,"set":true}},
	   "inputSchema":{ "type" : "object", "properties" : { "q" : { "type":"string", "description":"a \" quote" } } },
	   "outputSchema":{"type":"object"}},
	  7,
	  {"name":"deep","inputSchema":` + deep + `},
	  {"name":"bare","annotations":{}}
	]}`
	cases := map[string][]byte{"odd": []byte(odd)}
	for _, f := range []string{"everything.json", "ts-v2.json", "fastmcp.json"} {
		data, err := os.ReadFile("testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		cases[f] = data
	}
	for name, data := range cases {
		got, err := FromInspect(data, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := decodedInspect(t, data)
		if len(want) == 0 || len(got.Tools) != len(want) {
			t.Fatalf("%s: %d tools, want %d", name, len(got.Tools), len(want))
		}
		for i := range want {
			g, w := got.Tools[i], want[i]
			if g.Name != w.Name || g.Title != w.Title || g.Description != w.Description || g.Annotations.Hints() != w.Annotations.Hints() || g.Annotations.Present != w.Annotations.Present ||
				!sameJSON(g.InputSchema, w.InputSchema) || !sameJSON(g.OutputSchema, w.OutputSchema) {
				t.Errorf("%s: tool %d:\n got %+v\nwant %+v", name, i, g, w)
			}
		}
		if name == "odd" && (len(got.Problems) != 1 || !strings.Contains(got.Problems[0], "not an object")) {
			t.Errorf("odd: problems %q, want one about the tool that is not an object", got.Problems)
		}
	}
	if s, err := FromInspect([]byte(`{"formatVersion":1,"tools":null}`), "none.json"); err != nil || len(s.Tools) != 0 || !s.HasTools {
		t.Errorf("a server without tools: %v %+v", err, s)
	}
}

// decodedInspect reads an --inspect document the plain way: decoded, each tool's wire
// object rebuilt with encoding/json.
func decodedInspect(t *testing.T, data []byte) []client.Tool {
	var doc struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var wire []json.RawMessage
	for _, raw := range doc.Tools {
		var tj struct {
			Name, Title, Description  string
			Annotations               map[string]struct{ Value, Set bool }
			InputSchema, OutputSchema json.RawMessage
		}
		if json.Unmarshal(raw, &tj) != nil {
			continue
		}
		m := map[string]any{"name": tj.Name}
		if tj.Title != "" {
			m["title"] = tj.Title
		}
		if tj.Description != "" {
			m["description"] = tj.Description
		}
		if tj.InputSchema != nil {
			m["inputSchema"] = tj.InputSchema
		}
		if tj.OutputSchema != nil {
			m["outputSchema"] = tj.OutputSchema
		}
		ann := map[string]any{}
		for _, h := range client.HintNames {
			if v, ok := tj.Annotations[h.Key]; ok && v.Set {
				ann[h.Wire] = v.Value
			}
		}
		if len(ann) > 0 {
			m["annotations"] = ann
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		wire = append(wire, b)
	}
	arr, _ := json.Marshal(wire)
	ts, _ := client.DecodeTools(arr)
	return ts
}
