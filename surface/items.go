package surface

import (
	"encoding/json"
	"fmt"
	"sort"
)

// compareItems compares resources, templates or prompts, keyed by Item.Key.
func compareItems(object string, old, new []Item) []Entry {
	newBy := make(map[string]Item, len(new))
	for _, it := range new {
		newBy[it.Key] = it
	}
	oldBy := make(map[string]Item, len(old))
	for _, it := range old {
		oldBy[it.Key] = it
	}
	var out []Entry
	for _, o := range old {
		n, ok := newBy[o.Key]
		if !ok {
			out = append(out, Entry{Object: object, Name: o.Key, Status: Removed, Breaking: true,
				Changes: []Change{{Kind: object + "-removed", Breaking: true, Message: fmt.Sprintf("%s %q was removed", object, o.Key)}},
				Diff:    objectDiff(o.Key, "", json.RawMessage(o.Raw), nil)})
			continue
		}
		if sameJSON(o.Raw, n.Raw) {
			continue
		}
		var om, nm map[string]any
		_ = json.Unmarshal(o.Raw, &om)
		_ = json.Unmarshal(n.Raw, &nm)
		var cs []Change
		if object == ObjPrompt {
			cs = comparePromptArgs(om, nm)
		}
		for _, k := range sortedKeys(union(om, nm)) {
			if k == "arguments" && object == ObjPrompt {
				continue
			}
			if equal(om[k], nm[k]) {
				continue
			}
			kind := k + "-changed"
			switch k {
			case "description", "title", "name":
			default:
				kind = "other-changed"
			}
			cs = append(cs, Change{Kind: kind, Path: k, Before: short(om[k]), After: short(nm[k]),
				Message: fmt.Sprintf("%s changed", k)})
		}
		out = append(out, Entry{Object: object, Name: o.Key, Status: Changed, Changes: cs,
			Diff: objectDiff(o.Key, n.Key, json.RawMessage(o.Raw), json.RawMessage(n.Raw))})
	}
	for _, n := range new {
		if _, ok := oldBy[n.Key]; ok {
			continue
		}
		out = append(out, Entry{Object: object, Name: n.Key, Status: Added,
			Changes: []Change{{Kind: object + "-added", Message: fmt.Sprintf("%s %q was added", object, n.Key)}},
			Diff:    objectDiff("", n.Key, nil, json.RawMessage(n.Raw))})
	}
	sort.SliceStable(out, func(i, j int) bool { return statusRank(out[i].Status) < statusRank(out[j].Status) })
	return out
}

func union(a, b map[string]any) map[string]any {
	m := map[string]any{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

type promptArg struct {
	name     string
	required bool
	raw      any
}

func promptArgs(m map[string]any) (map[string]promptArg, []string) {
	out := map[string]promptArg{}
	var order []string
	list, _ := m["arguments"].([]any)
	for _, x := range list {
		a, ok := x.(map[string]any)
		if !ok {
			continue
		}
		name, _ := a["name"].(string)
		req, _ := a["required"].(bool)
		if _, dup := out[name]; !dup {
			order = append(order, name)
		}
		out[name] = promptArg{name: name, required: req, raw: a}
	}
	return out, order
}

func comparePromptArgs(om, nm map[string]any) []Change {
	oa, oo := promptArgs(om)
	na, no := promptArgs(nm)
	var cs []Change
	for _, name := range oo {
		n, ok := na[name]
		o := oa[name]
		p := "arguments." + name
		switch {
		case !ok:
			cs = append(cs, Change{Kind: "param-removed", Path: p, Breaking: true, Before: short(o.raw),
				Message: fmt.Sprintf("argument %q was removed", name)})
		case !o.required && n.required:
			cs = append(cs, Change{Kind: "param-made-required", Path: p, Breaking: true,
				Message: fmt.Sprintf("argument %q is now required", name)})
		case o.required && !n.required:
			cs = append(cs, Change{Kind: "param-made-optional", Path: p,
				Message: fmt.Sprintf("argument %q is now optional", name)})
		case !equal(o.raw, n.raw):
			cs = append(cs, Change{Kind: "description-changed", Path: p, Before: short(o.raw), After: short(n.raw),
				Message: fmt.Sprintf("argument %q changed", name)})
		}
	}
	for _, name := range no {
		if _, ok := oa[name]; ok {
			continue
		}
		n := na[name]
		c := Change{Kind: "param-added", Path: "arguments." + name, After: short(n.raw),
			Message: fmt.Sprintf("new optional argument %q", name)}
		if n.required {
			c.Kind, c.Breaking = "param-added-required", true
			c.Message = fmt.Sprintf("new required argument %q: prompts/get without it fails", name)
		}
		cs = append(cs, c)
	}
	return cs
}

// keptItems is items with only the members an --inspect document keeps (inspectKept).
func keptItems(object string, items []Item) []Item {
	out := make([]Item, len(items))
	for i, it := range items {
		out[i] = Item{Key: it.Key, Raw: inspectKept(object, it.Raw)}
	}
	return out
}
