package tui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpscope/mcpscope/client"
)

// detailLines renders a tool's description, annotations and schemas as lines.
func detailLines(st styles, t client.Tool, width int) []string {
	lines, _ := detailDoc(st, t, width)
	return lines
}

// detailLineAt is the line of the tool's detail (as detailLines lays it out for
// width) that shows what a JSON pointer into the tool's definition points at, or
// the nearest thing above it that is shown ("/inputSchema/properties/a/type" is
// property a's line): where the Lint view opens a finding.
func detailLineAt(st styles, t client.Tool, width int, pointer string) int {
	_, anchors := detailDoc(st, t, width)
	best, bestLen := 0, -1
	for i, a := range anchors {
		if (pointer == a || strings.HasPrefix(pointer, a+"/")) && len(a) > bestLen {
			best, bestLen = i, len(a)
		}
	}
	return best
}

// detailDoc is the detail's lines and, beside each, the JSON pointer into the tool's
// definition of what the line shows ("" for a line of its own, such as a blank).
func detailDoc(st styles, t client.Tool, width int) (out, anchors []string) {
	at := ""
	add := func(s string) { out = append(out, s); anchors = append(anchors, at) }
	title := st.title.Render(safe(t.DisplayName()))
	if t.DisplayName() != t.Name {
		title += st.muted.Render("  " + safe(t.Name))
	}
	at = "/name"
	add(title)
	at = ""
	for _, p := range t.Problems {
		add(st.warn.Render("⚠ " + safe(p)))
	}
	if t.Description != "" {
		add("")
		at = "/description"
		for _, l := range wrapText(strings.TrimSpace(t.Description), width) {
			add(l)
		}
		at = ""
	}
	add("")
	at = "/annotations"
	add(st.accent.Render("Annotations") + st.muted.Render(describeAnnotationsPresence(t.Annotations)))
	hints := t.Annotations.Hints()
	for i, h := range client.HintNames {
		v := "no"
		if hints[i].Value {
			v = "yes"
		}
		note := "  spec default, not set by the server"
		if hints[i].Set {
			note = "  set by the server"
		}
		if t.Annotations.ReadOnly.Value && (h.Key == "destructive" || h.Key == "idempotent") {
			// The spec gives these a meaning only for a tool that modifies its world.
			note = "  only meaningful when not read-only"
		}
		at = "/annotations/" + h.Wire
		add(fmt.Sprintf("  %-12s %-4s", h.Label, v) + st.muted.Render(note))
	}
	at = ""
	if u := t.UI; u.ResourceURI != "" {
		// An MCP Apps view: a terminal shows none, but says where its HTML is.
		add("")
		add(st.accent.Render("App view") + "  " + safe(u.ResourceURI))
		who := "the model and the view call it"
		if len(u.Visibility) > 0 {
			who = "visibility: " + strings.Join(u.Visibility, ", ")
			if u.ModelHidden() {
				who += " (hosts keep it from the model)"
			}
		}
		add(st.muted.Render("  " + safe(who) + "; its HTML is a resource: the Resources view reads it as source"))
	}
	add("")
	at = "/inputSchema"
	add(st.accent.Render("Input schema"))
	lines, ptrs := schemaTreeAt(st, t.InputSchema, width, at)
	out, anchors = append(out, lines...), append(anchors, ptrs...)
	if len(t.OutputSchema) > 0 {
		at = ""
		add("")
		at = "/outputSchema"
		add(st.accent.Render("Output schema"))
		lines, ptrs := schemaTreeAt(st, t.OutputSchema, width, at)
		out, anchors = append(out, lines...), append(anchors, ptrs...)
	}
	return out, anchors
}

func describeAnnotationsPresence(a client.Annotations) string {
	if !a.Present {
		return "  (none sent: every hint is the spec default)"
	}
	return ""
}

// schemaTreeAt renders a schema as an indented tree of properties with their types,
// required marks, enums, defaults, formats and bounds, with the JSON pointer of each
// line's property (base and its path: base/properties/a/items/properties/b), for
// detailLineAt.
func schemaTreeAt(st styles, raw json.RawMessage, width int, base string) (out, anchors []string) {
	if len(raw) == 0 {
		return []string{st.muted.Render("  (none)")}, []string{base}
	}
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return []string{st.warn.Render("  not an object: " + safe(string(raw)))}, []string{base}
	}
	var walk func(schema map[string]any, depth int, at string)
	walk = func(schema map[string]any, depth int, at string) {
		if depth > 8 {
			out, anchors = append(out, strings.Repeat("  ", depth+1)+st.muted.Render("…")), append(anchors, at)
			return
		}
		props, _ := schema["properties"].(map[string]any)
		required := map[string]bool{}
		if req, ok := schema["required"].([]any); ok {
			for _, r := range req {
				if s, ok := r.(string); ok {
					required[s] = true
				}
			}
		}
		names := orderedKeys(raw, props, depth == 0)
		if len(props) == 0 && depth == 0 {
			_, pattern := schema["patternProperties"]
			if ap, ok := schema["additionalProperties"]; (!ok || ap != false) && !pattern && schema["type"] == "object" {
				out, anchors = append(out, "  "+st.muted.Render("any arguments are accepted: the schema lists no properties")), append(anchors, at)
				return
			}
			out, anchors = append(out, "  "+st.muted.Render("no parameters ("+safe(summary(schema))+")")), append(anchors, at)
			return
		}
		for _, name := range names {
			p, _ := props[name].(map[string]any)
			line := strings.Repeat("  ", depth+1) + safe(name)
			if required[name] {
				line += st.err.Render("*")
			}
			line += "  " + st.muted.Render(safe(summary(p)))
			if d, ok := p["description"].(string); ok && d != "" {
				line += "  " + safe(firstLineOf(d))
			}
			here := at + "/properties/" + pointerEscape(name)
			out, anchors = append(out, truncate(line, width)), append(anchors, here)
			if p["type"] == "object" {
				walk(p, depth+1, here)
			} else if items, ok := p["items"].(map[string]any); ok && items["type"] == "object" {
				walk(items, depth+1, here+"/items")
			}
		}
	}
	walk(root, 0, base)
	return out, anchors
}

// pointerEscape is a member name as a JSON pointer token (RFC 6901: ~ and / escaped).
func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// orderedKeys keeps the server's order for the top level (from the raw bytes) and
// sorts nested levels.
func orderedKeys(raw json.RawMessage, props map[string]any, top bool) []string {
	var names []string
	if top {
		var schema struct {
			Properties json.RawMessage `json:"properties"`
		}
		if json.Unmarshal(raw, &schema) == nil {
			names = client.ObjectKeys(schema.Properties)
		}
	}
	if len(names) != len(props) {
		names = names[:0]
		for k := range props {
			names = append(names, k)
		}
		sort.Strings(names)
	}
	return names
}

// summary is a one-line description of a property schema.
func summary(p map[string]any) string {
	var parts []string
	typ := fmt.Sprint(p["type"])
	switch t := p["type"].(type) {
	case nil:
		typ = ""
	case []any:
		var ts []string
		for _, x := range t {
			ts = append(ts, fmt.Sprint(x))
		}
		typ = strings.Join(ts, "|")
	}
	if items, ok := p["items"].(map[string]any); ok && typ == "array" {
		if it, ok := items["type"].(string); ok {
			typ = it + "[]"
		}
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		if v, ok := p[k].([]any); ok {
			typ += fmt.Sprintf(" %s(%d)", k, len(v))
		}
	}
	if ref, ok := p["$ref"].(string); ok {
		typ += " " + ref
	}
	if typ != "" {
		parts = append(parts, strings.TrimSpace(typ))
	}
	if e, ok := p["enum"].([]any); ok {
		var vs []string
		for _, v := range e {
			b, _ := json.Marshal(v)
			vs = append(vs, string(b))
		}
		parts = append(parts, "one of "+strings.Join(vs, ", "))
	}
	if f, ok := p["format"].(string); ok {
		parts = append(parts, "format "+f)
	}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems", "pattern"} {
		if v, ok := p[k]; ok {
			if _, text := v.(string); text {
				parts = append(parts, k+" "+v.(string))
				continue
			}
			// As JSON, as enum and default are: %v wrote a bound of 2^53 as
			// -9.007199254740991e+15, where the form shows -9007199254740991.
			b, _ := json.Marshal(v)
			parts = append(parts, k+" "+string(b))
		}
	}
	if d, ok := p["default"]; ok {
		b, _ := json.Marshal(d)
		parts = append(parts, "default "+string(b))
	}
	return strings.Join(parts, ", ")
}

// wrapText wraps plain text at width, keeping blank lines and indentation readable
// (Markdown stays legible as text).
func wrapText(s string, width int) []string {
	if width < 10 {
		width = 10
	}
	s = safeText(s)
	var out []string
	for _, para := range strings.Split(s, "\n") {
		para = strings.TrimRight(para, " \r")
		if para == "" {
			out = append(out, "")
			continue
		}
		indent := len(para) - len(strings.TrimLeft(para, " "))
		words := strings.Fields(para)
		line := strings.Repeat(" ", indent)
		for _, w := range words {
			if len(line)+len(w)+1 > width && strings.TrimSpace(line) != "" {
				out = append(out, line)
				line = strings.Repeat(" ", indent)
			}
			// A word longer than a line (a URL, a path, the command the Changes
			// view says to run) is broken across lines: drawn whole, the pane
			// would cut its end off, the part needed to copy it.
			if room := width - indent; ansi.StringWidth(w) > room {
				pad := strings.Repeat(" ", indent)
				if room < 10 { // an indent that leaves no room: the pieces go without it
					room, pad = width, ""
				}
				parts := strings.Split(ansi.Hardwrap(w, room, true), "\n")
				for _, p := range parts[:len(parts)-1] {
					out = append(out, pad+p)
				}
				w = parts[len(parts)-1]
			}
			if strings.TrimSpace(line) != "" {
				line += " "
			}
			line += w
		}
		out = append(out, line)
	}
	return out
}
