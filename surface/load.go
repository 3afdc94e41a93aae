package surface

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpscope/mcpscope/deprecated"
	"slices"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/inspect"
	"github.com/mcpscope/mcpscope/internal/jsonscan"
	"github.com/mcpscope/mcpscope/record"
)

// ErrNoSurface says a file or server has no tool surface at all.
var ErrNoSurface = errors.New("no tool surface")

// FromInspect reads a saved `mcpscope --inspect --format json` document.
//
// The document is validated once and then walked, not decoded: a CI job diffs files
// of thousands of tools, and decoding each tool into maps and back cost most of the
// diff's time.
func FromInspect(data []byte, label string) (*Surface, error) {
	if err := jsonscan.Valid(data); err != nil {
		if jsonscan.IsDepth(err) {
			return nil, fmt.Errorf("%s nests deeper than %d levels, as no server's answer may (the Go SDK refuses it too)", label, jsonscan.MaxDepth)
		}
		var v any
		if jerr := json.Unmarshal(data, &v); jerr != nil {
			err = jerr // encoding/json's words, which people know
		}
		return nil, fmt.Errorf("%s is not an --inspect JSON document: %v", label, err)
	}
	var version, server, tools, resources, templates, prompts, deprecations []byte
	jsonscan.MembersTrusted(data, func(key, v []byte) bool {
		switch {
		case jsonscan.KeyIs(key, "formatVersion"):
			version = v
		case jsonscan.KeyIs(key, "server"):
			server = v
		case jsonscan.KeyIs(key, "tools"):
			tools = v
		case jsonscan.KeyIs(key, "resources"):
			resources = v
		case jsonscan.KeyIs(key, "resourceTemplates"):
			templates = v
		case jsonscan.KeyIs(key, "prompts"):
			prompts = v
		case jsonscan.KeyIs(key, "deprecated"):
			deprecations = v
		}
		return true
	})
	var formatVersion int
	if version == nil || tools == nil || json.Unmarshal(version, &formatVersion) != nil {
		return nil, fmt.Errorf("%s: %w (not an --inspect --format json document: it has no formatVersion and tools)", label, ErrNoSurface)
	}
	if formatVersion > inspect.FormatVersion {
		return nil, fmt.Errorf("%s is an --inspect document of format version %d; this mcpscope reads up to %d: upgrade mcpscope", label, formatVersion, inspect.FormatVersion)
	}
	if string(tools) == "null" { // a server without tools
		tools = []byte("[]")
	}
	if tools[0] != '[' {
		return nil, fmt.Errorf("%s: tools is not an array but %s", label, abbreviated(tools))
	}
	var srv inspect.ServerJSON
	if server != nil {
		_ = json.Unmarshal(server, &srv)
	}
	s := &Surface{Label: label, Server: serverText(srv.Name, srv.Version), HasTools: true, Lossy: true}
	// The report's tools are close to the wire's: rebuild wire objects (hints as the
	// server set them) so that both kinds of source compare alike.
	wire := bytes.NewBuffer(make([]byte, 0, len(tools)))
	wire.WriteByte('[')
	n := 0
	jsonscan.ElementsTrusted(tools, func(raw []byte) bool {
		if raw[0] != '{' {
			s.Problems = append(s.Problems, fmt.Sprintf("a tool is not an object: %s", abbreviated(raw)))
			return true
		}
		if n > 0 {
			wire.WriteByte(',')
		}
		n++
		inspectToolWire(wire, raw)
		return true
	})
	wire.WriteByte(']')
	ts, problems := client.DecodeTools(wire.Bytes())
	s.Tools, s.Problems = ts, append(s.Problems, problems...)
	// The other kinds the file holds (a file written before they were added to
	// --inspect holds none, and is compared on its tools alone). Compared on their
	// tools alone, a file that lost a prompt, a resource or a template said "no
	// changes".
	s.Resources, s.HasResources = s.inspectItems(label, "resources", resources, ObjResource)
	s.Templates, s.HasTemplates = s.inspectItems(label, "resourceTemplates", templates, ObjTemplate)
	s.Prompts, s.HasPrompts = s.inspectItems(label, "prompts", prompts, ObjPrompt)
	if deprecations != nil && json.Unmarshal(deprecations, &s.Deprecated) != nil {
		s.Problems = append(s.Problems, "deprecated is not an array of notices: "+abbreviated(deprecations))
	}
	return s, nil
}

// inspectItems reads one list of resources, templates or prompts of an --inspect
// document as the server's objects (inspectKept: the members --inspect copies from
// the wire), so that they compare alike with a live server's or a recording's. An
// absent member says nothing: false.
func (s *Surface) inspectItems(label, member string, raw []byte, object string) ([]Item, bool) {
	if raw == nil {
		return nil, false
	}
	if string(raw) == "null" {
		return []Item{}, true
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		s.Problems = append(s.Problems, fmt.Sprintf("%s: %s is not an array but %s", label, member, abbreviated(raw)))
		return nil, false
	}
	for i, it := range items {
		items[i] = inspectKept(object, it)
	}
	return keyed(items, itemKey[object]), true
}

// itemKey is the member that names each kind of item.
var itemKey = map[string]string{ObjResource: "uri", ObjTemplate: "uriTemplate", ObjPrompt: "name"}

// keptMembers are the members of each kind of item that an --inspect document copies
// from the server's object (it adds others: problems, a template's variables).
var keptMembers = map[string][]string{
	ObjResource: {"uri", "name", "title", "description", "mimeType", "size", "annotations"},
	ObjTemplate: {"uriTemplate", "name", "title", "description", "mimeType", "annotations"},
	ObjPrompt:   {"name", "title", "description", "arguments"},
}

// inspectKept returns an item with only the members --inspect keeps, and those as
// --inspect writes them: a prompt without arguments has "arguments": [] there and
// none on the wire, an argument's "required": false is left out. A surface that is
// Lossy compares items through it on both sides.
func inspectKept(object string, raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return raw
	}
	out := make(map[string]json.RawMessage, len(m))
	for _, k := range keptMembers[object] {
		v, ok := m[k]
		// --inspect leaves out an empty title, description or MIME type.
		if !ok || string(v) == "null" || (string(v) == `""` && k != itemKey[object] && k != "name") {
			continue
		}
		out[k] = v
	}
	if object == ObjPrompt {
		var args []map[string]json.RawMessage
		if json.Unmarshal(out["arguments"], &args) == nil {
			for _, a := range args {
				for k, v := range a {
					if string(v) == "null" || (k == "required" && string(v) == "false") || (k != "name" && k != "required" && string(v) == `""`) {
						delete(a, k)
					}
				}
			}
			if len(args) == 0 {
				delete(out, "arguments")
			} else {
				out["arguments"], _ = json.Marshal(args)
			}
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return raw
	}
	return b
}

// inspectToolWire writes the wire object of one --inspect tool: its members in sorted
// order (as encoding/json writes a map), each schema compacted, and the annotations
// only where the server set them.
func inspectToolWire(w *bytes.Buffer, raw []byte) {
	var name, title, description string
	var annotations, input, output []byte
	jsonscan.MembersTrusted(raw, func(key, v []byte) bool {
		str := func(dst *string) {
			if s, ok := jsonscan.String(v); ok {
				*dst = s
			}
		}
		switch {
		case jsonscan.KeyIs(key, "name"):
			str(&name)
		case jsonscan.KeyIs(key, "title"):
			str(&title)
		case jsonscan.KeyIs(key, "description"):
			str(&description)
		case jsonscan.KeyIs(key, "annotations"):
			annotations = v
		case jsonscan.KeyIs(key, "inputSchema"):
			input = v
		case jsonscan.KeyIs(key, "outputSchema"):
			output = v
		}
		return true
	})
	first := true
	member := func(key string) {
		if !first {
			w.WriteByte(',')
		}
		first = false
		w.WriteString(`"` + key + `":`)
	}
	quoted := func(s string) {
		b, _ := json.Marshal(s)
		w.Write(b)
	}
	raws := func(v []byte) { compactTrusted(w, v) }
	w.WriteByte('{')
	hints := map[string]inspect.HintJSON{}
	set := false
	jsonscan.MembersTrusted(annotations, func(key, v []byte) bool {
		var h inspect.HintJSON
		jsonscan.MembersTrusted(v, func(k, b []byte) bool {
			switch {
			case jsonscan.KeyIs(k, "value"):
				h.Value = string(b) == "true"
			case jsonscan.KeyIs(k, "set"):
				h.Set = string(b) == "true"
			}
			return true
		})
		k, _ := jsonscan.String(append(append([]byte{'"'}, key...), '"'))
		hints[k] = h
		set = set || h.Set
		return true
	})
	if set {
		member("annotations")
		w.WriteByte('{')
		comma := false
		for _, h := range sortedHints {
			if v, ok := hints[h.Key]; ok && v.Set {
				if comma {
					w.WriteByte(',')
				}
				comma = true
				fmt.Fprintf(w, "%q:%t", h.Wire, v.Value)
			}
		}
		w.WriteByte('}')
	}
	if description != "" {
		member("description")
		quoted(description)
	}
	if input != nil && string(input) != "null" {
		member("inputSchema")
		raws(input)
	}
	member("name")
	quoted(name)
	if output != nil && string(output) != "null" {
		member("outputSchema")
		raws(output)
	}
	if title != "" {
		member("title")
		quoted(title)
	}
	w.WriteByte('}')
}

// compactTrusted writes JSON that Valid has accepted without its whitespace.
func compactTrusted(w *bytes.Buffer, v []byte) {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case ' ', '\t', '\n', '\r':
		case '"':
			j := i + 1
			for j < len(v) && v[j] != '"' {
				if v[j] == '\\' {
					j++
				}
				j++
			}
			w.Write(v[i:min(j+1, len(v))])
			i = j
		default:
			w.WriteByte(c)
		}
	}
}

// sortedHints is client.HintNames in the order of their wire names.
var sortedHints = func() []struct{ Key, Wire, Label string } {
	hs := append([]struct{ Key, Wire, Label string }(nil), client.HintNames...)
	slices.SortFunc(hs, func(a, b struct{ Key, Wire, Label string }) int { return strings.Compare(a.Wire, b.Wire) })
	return hs
}()

func abbreviated(raw []byte) string {
	if len(raw) > 60 {
		return string(raw[:60]) + "…"
	}
	return string(raw)
}

// FromRecording reads the surface from the last complete listings in a recording of
// one server (tools/list, resources/list, resources/templates/list, prompts/list,
// every page).
func FromRecording(rec *record.Recording, label string) (*Surface, error) {
	if rec.Several() {
		return nil, fmt.Errorf("%s records several servers (%s): name one with %s#NAME", label, strings.Join(rec.ServerNames(), ", "), label)
	}
	s := &Surface{Label: label}
	lists := map[string]*listing{}
	for _, x := range rec.Exchanges() {
		if x.Response == nil {
			continue
		}
		key := listKey(x.Method)
		if key == "" {
			continue
		}
		var m record.Message
		if json.Unmarshal(x.Response, &m) != nil || m.Result == nil {
			continue
		}
		var p struct {
			Cursor string `json:"cursor"`
		}
		_ = json.Unmarshal(x.Params, &p)
		l := lists[x.Method]
		if l == nil || p.Cursor == "" {
			l = &listing{}
			lists[x.Method] = l
		}
		var page map[string]json.RawMessage
		if json.Unmarshal(m.Result, &page) != nil {
			continue
		}
		var items []json.RawMessage
		if json.Unmarshal(page[key], &items) == nil {
			l.items = append(l.items, items...)
		}
	}
	for method, l := range lists {
		switch method {
		case "tools/list":
			arr, _ := json.Marshal(l.items)
			ts, problems := client.DecodeTools(arr)
			s.Tools, s.HasTools = ts, true
			s.Problems = append(s.Problems, problems...)
		case "resources/list":
			s.Resources, s.HasResources = keyed(l.items, "uri"), true
		case "resources/templates/list":
			s.Templates, s.HasTemplates = keyed(l.items, "uriTemplate"), true
		case "prompts/list":
			s.Prompts, s.HasPrompts = keyed(l.items, "name"), true
		}
	}
	// A collection saved from History lists nothing: it carries the surface it was
	// saved against in its header. A list the exchanges hold is newer and wins.
	if h := rec.Header.Surface; h != nil {
		if !s.HasTools && h.Tools != nil {
			ts, problems := client.DecodeTools(h.Tools)
			s.Tools, s.HasTools = ts, true
			s.Problems = append(s.Problems, problems...)
		}
		s.Resources, s.HasResources = headerItems(s, s.Resources, s.HasResources, h.Resources, "uri")
		s.Templates, s.HasTemplates = headerItems(s, s.Templates, s.HasTemplates, h.ResourceTemplates, "uriTemplate")
		s.Prompts, s.HasPrompts = headerItems(s, s.Prompts, s.HasPrompts, h.Prompts, "name")
	}
	if s.Empty() {
		return nil, fmt.Errorf("%s: %w: the recording has no answered tools/list (nor resources or prompts listing) and carries no surface (a collection saved by an older mcpscope: save it again from History); record a session that lists tools", label, ErrNoSurface)
	}
	if rec.Header.Target.Transport != "" {
		s.Server = strings.Join(rec.Header.Target.Argv, " ") + rec.Header.Target.URL
	}
	return s, nil
}

type listing struct{ items []json.RawMessage }

// headerItems is a list from a recording's header surface, where the exchanges had
// none.
func headerItems(s *Surface, have []Item, known bool, raw json.RawMessage, key string) ([]Item, bool) {
	if known || raw == nil {
		return have, known
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		s.Problems = append(s.Problems, fmt.Sprintf("the saved surface's list is not an array: %s", abbreviated(raw)))
		return have, known
	}
	return keyed(items, key), true
}

func listKey(method string) string {
	switch method {
	case "tools/list":
		return "tools"
	case "resources/list":
		return "resources"
	case "resources/templates/list":
		return "resourceTemplates"
	case "prompts/list":
		return "prompts"
	}
	return ""
}

func keyed(items []json.RawMessage, key string) []Item {
	out := make([]Item, 0, len(items))
	for _, raw := range items {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		var k string
		_ = json.Unmarshal(m[key], &k)
		out = append(out, Item{Key: k, Raw: raw})
	}
	return out
}

func serverText(name, version string) string {
	if version != "" {
		return name + " " + version
	}
	return name
}

// Lister is what FromSession needs of a live session.
type Lister interface {
	Info() client.Info
	RefreshTools(ctx context.Context) (*client.ToolList, error)
	Raw(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
}

// FromSession lists everything a live server offers: tools always (past any cache),
// resources, templates and prompts when its capabilities say it has them.
func FromSession(ctx context.Context, s Lister, label string) (*Surface, error) {
	info := s.Info()
	out := &Surface{Label: label, Server: serverText(info.Name, info.Version)}
	if d, ok := s.(interface{ Declared() []string }); ok {
		out.Client = d.Declared()
	}
	if d, ok := s.(interface{ Deprecated() []deprecated.Notice }); ok {
		out.Deprecated = d.Deprecated()
	} else {
		out.Deprecated = deprecated.Find(deprecated.Use{Capabilities: info.Capabilities, Transport: info.Transport})
	}
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(info.Capabilities, &caps)
	if _, ok := caps["tools"]; ok || caps == nil {
		list, err := s.RefreshTools(ctx)
		if err != nil {
			return nil, err
		}
		out.Tools, out.HasTools, out.Problems = list.Tools, true, list.Problems
	}
	get := func(method, key, id string) ([]Item, error) {
		var all []json.RawMessage
		cursor := ""
		for pages := 0; pages < 10000; pages++ {
			params := json.RawMessage(`{}`)
			if cursor != "" {
				params, _ = json.Marshal(map[string]string{"cursor": cursor})
			}
			raw, err := s.Raw(ctx, method, params)
			if err != nil {
				return nil, err
			}
			var m record.Message
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, err
			}
			if m.Error != nil {
				return nil, fmt.Errorf("%s: %s", method, short(m.Error))
			}
			var page map[string]json.RawMessage
			_ = json.Unmarshal(m.Result, &page)
			var items []json.RawMessage
			_ = json.Unmarshal(page[key], &items)
			all = append(all, items...)
			var next string
			if json.Unmarshal(page["nextCursor"], &next) != nil || next == "" || next == cursor {
				break
			}
			cursor = next
		}
		return keyed(all, id), nil
	}
	if _, ok := caps["resources"]; ok {
		if items, err := get("resources/list", "resources", "uri"); err == nil {
			out.Resources, out.HasResources = items, true
		} else {
			out.Problems = append(out.Problems, err.Error())
		}
		if items, err := get("resources/templates/list", "resourceTemplates", "uriTemplate"); err == nil {
			out.Templates, out.HasTemplates = items, true
		} else {
			out.Problems = append(out.Problems, err.Error())
		}
	}
	if _, ok := caps["prompts"]; ok {
		if items, err := get("prompts/list", "prompts", "name"); err == nil {
			out.Prompts, out.HasPrompts = items, true
		} else {
			out.Problems = append(out.Problems, err.Error())
		}
	}
	if out.Empty() {
		return nil, fmt.Errorf("%s: %w: the server has no tools, resources or prompts capability", label, ErrNoSurface)
	}
	return out, nil
}
