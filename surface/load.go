package surface

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/inspect"
	"github.com/mcpscope/mcpscope/record"
)

// ErrNoSurface says a file or server has no tool surface at all.
var ErrNoSurface = errors.New("no tool surface")

// FromInspect reads a saved `mcpscope --inspect --format json` document.
func FromInspect(data []byte, label string) (*Surface, error) {
	var doc struct {
		FormatVersion *int               `json:"formatVersion"`
		Server        inspect.ServerJSON `json:"server"`
		Tools         json.RawMessage    `json:"tools"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s is not an --inspect JSON document: %v", label, err)
	}
	if doc.FormatVersion == nil || doc.Tools == nil {
		return nil, fmt.Errorf("%s: %w (not an --inspect --format json document: it has no formatVersion and tools)", label, ErrNoSurface)
	}
	if *doc.FormatVersion > inspect.FormatVersion {
		return nil, fmt.Errorf("%s is an --inspect document of format version %d; this mcpscope reads up to %d: upgrade mcpscope", label, *doc.FormatVersion, inspect.FormatVersion)
	}
	var tools []json.RawMessage
	if err := json.Unmarshal(doc.Tools, &tools); err != nil {
		return nil, fmt.Errorf("%s: tools is not an array: %v", label, err)
	}
	s := &Surface{Label: label, Server: serverText(doc.Server.Name, doc.Server.Version), HasTools: true, Lossy: true}
	// The report's tools are close to the wire's: rebuild wire objects (hints as the
	// server set them) so that both kinds of source compare alike.
	wire := make([]json.RawMessage, 0, len(tools))
	for _, raw := range tools {
		var tj struct {
			Name         string                      `json:"name"`
			Title        string                      `json:"title"`
			Description  string                      `json:"description"`
			Annotations  map[string]inspect.HintJSON `json:"annotations"`
			InputSchema  json.RawMessage             `json:"inputSchema"`
			OutputSchema json.RawMessage             `json:"outputSchema"`
		}
		if err := json.Unmarshal(raw, &tj); err != nil {
			s.Problems = append(s.Problems, fmt.Sprintf("a tool is not an object: %v", err))
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
		b, _ := json.Marshal(m)
		wire = append(wire, b)
	}
	arr, _ := json.Marshal(wire)
	ts, problems := client.DecodeTools(arr)
	s.Tools, s.Problems = ts, append(s.Problems, problems...)
	return s, nil
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
	if s.Empty() {
		return nil, fmt.Errorf("%s: %w: the recording has no answered tools/list (nor resources or prompts listing); record a session that lists tools", label, ErrNoSurface)
	}
	if rec.Header.Target.Transport != "" {
		s.Server = strings.Join(rec.Header.Target.Argv, " ") + rec.Header.Target.URL
	}
	return s, nil
}

type listing struct{ items []json.RawMessage }

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
