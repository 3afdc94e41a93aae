// Package surface compares two tool surfaces of an MCP server (its tools, resources,
// resource templates and prompts) and classifies every change as breaking or
// compatible for a client written against the first one.
//
// The rules, for a client of the old surface:
//
//   - breaking: a tool (resource, template, prompt) removed or renamed; a new required
//     parameter; a parameter made required; a parameter removed; a type narrowed or
//     changed; an enum value removed (or an enum added); additionalProperties closed; a
//     constraint tightened (minimum, maxLength, pattern, ...); an output property
//     removed, made optional or its type changed; the output schema removed; a hint
//     flipped toward destructive (readOnly true→false, destructive false→true,
//     idempotent true→false), judged on the values that apply, spec defaults included.
//   - compatible: everything added (tools, optional parameters, enum values, an output
//     schema); widened types; constraints loosened; description and title edits; other
//     hint changes.
//
// No Bubble Tea here: the workbench and `mcpscope diff` both use it.
package surface

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/mcpscope/mcpscope/deprecated"
	"reflect"
	"sort"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/mcpscope/mcpscope/client"
)

// Object kinds.
const (
	ObjTool     = "tool"
	ObjResource = "resource"
	ObjTemplate = "template"
	ObjPrompt   = "prompt"
)

// Entry statuses.
const (
	Added   = "added"
	Removed = "removed"
	Changed = "changed"
	Renamed = "renamed"
)

// Surface is what a server offers. A nil list means the surface does not say (a saved
// --inspect file has no prompts): such a list is not compared, rather than read as
// "everything was removed".
type Surface struct {
	// Label names where the surface came from (a file, a command line) for headings.
	Label     string
	Server    string // the server's name and version, when known
	Tools     []client.Tool
	Resources []Item
	Templates []Item
	Prompts   []Item
	// Has* say which lists the surface knows (a server without the prompts capability
	// has no prompts; a saved tools file does not say).
	HasTools, HasResources, HasTemplates, HasPrompts bool
	// Lossy says the surface keeps only what an --inspect report keeps (of a tool its
	// name, title, description, schemas and hints; of a resource, template or prompt
	// the members in keptMembers): other members are not compared.
	Lossy bool
	// Problems are what was wrong with reading it (a torn listing, a tool without a name).
	Problems []string
	// Deprecated are the deprecated features the server used (a live session's, or
	// an --inspect report's "deprecated"); lint names them.
	Deprecated []deprecated.Notice
	// Client lists the optional capabilities the client that listed a live server
	// declared (client.Session.Declared): a server may offer some tools only to a
	// client that declares one. Nil for a file, and for a client that declared none.
	Client []string
}

// Item is a resource, a template or a prompt: its key (uri, uriTemplate or name) and
// the object as the server sent it.
type Item struct {
	Key string
	Raw json.RawMessage
}

// Empty reports whether the surface knows no list at all.
func (s *Surface) Empty() bool {
	return s == nil || !(s.HasTools || s.HasResources || s.HasTemplates || s.HasPrompts)
}

// Change is one classified difference.
type Change struct {
	Kind     string `json:"kind"`     // a short code: "param-removed", "type-narrowed", ...
	Path     string `json:"path"`     // where: "inputSchema.properties.city.type"
	Breaking bool   `json:"breaking"` // breaks a client of the old surface
	Message  string `json:"message"`  // one readable sentence
	Before   string `json:"before,omitempty"`
	After    string `json:"after,omitempty"`
}

// Entry is everything that changed about one object.
type Entry struct {
	Object   string   `json:"object"` // tool, resource, template, prompt
	Name     string   `json:"name"`
	OldName  string   `json:"oldName,omitempty"` // a rename: the name it had
	Status   string   `json:"status"`            // added, removed, changed, renamed
	Breaking bool     `json:"breaking"`
	Changes  []Change `json:"changes"`
	// Diff is a unified diff of the object's JSON (keys sorted, indented): the readable
	// before and after.
	Diff string `json:"diff,omitempty"`
}

// Report is the comparison of two surfaces.
type Report struct {
	Old, New string `json:"-"`
	// Title, when set, heads the report instead of "Old → New": where both are one
	// server (a restart under --watch) it says what changed, "after server.js changed
	// (12:03:04)".
	Title      string  `json:"-"`
	Entries    []Entry `json:"entries"`
	Breaking   int     `json:"breaking"`   // breaking changes
	Compatible int     `json:"compatible"` // compatible changes
	// Compared lists which object kinds both surfaces knew (and so were compared).
	Compared []string `json:"compared"`
	// FailOn is what the JUnit report counts as failures (FailOnBreaking when "").
	FailOn string `json:"-"`
	// Budget, when diff was given one (--fail-on budget:…), is the cost check: a
	// report over it fails whatever FailOn says.
	Budget *Budget `json:"budget,omitempty"`
}

// HasBreaking reports whether any change breaks clients.
func (r *Report) HasBreaking() bool { return r.Breaking > 0 }

// What fails a report (`diff --fail-on`).
const (
	FailOnBreaking = "breaking" // breaking changes (the default)
	FailOnAny      = "any"      // every change
	FailOnNone     = "none"     // nothing
)

// Fails reports whether an entry counts as a failure under failOn ("" is
// FailOnBreaking). The exit code of `diff` and the failures of its JUnit report both
// come from here, so the two cannot disagree.
func (e *Entry) Fails(failOn string) bool {
	switch failOn {
	case FailOnAny:
		return true
	case FailOnNone:
		return false
	}
	return e.Breaking
}

// Fails reports whether any entry fails under failOn (see Entry.Fails), or the
// report is over its budget.
func (r *Report) Fails(failOn string) bool {
	if r.Budget != nil && r.Budget.Over {
		return true
	}
	for i := range r.Entries {
		if r.Entries[i].Fails(failOn) {
			return true
		}
	}
	return false
}

// Empty reports whether nothing changed.
func (r *Report) Empty() bool { return len(r.Entries) == 0 }

// Find returns the entry of one object, or nil.
func (r *Report) Find(object, name string) *Entry {
	for i := range r.Entries {
		if r.Entries[i].Object == object && r.Entries[i].Name == name {
			return &r.Entries[i]
		}
	}
	return nil
}

// Compare classifies every difference from old to new.
func Compare(old, new *Surface) *Report {
	r := &Report{}
	if old != nil {
		r.Old = old.Label
	}
	if new != nil {
		r.New = new.Label
	}
	if old == nil || new == nil {
		return r
	}
	if old.HasTools && new.HasTools {
		r.Compared = append(r.Compared, "tools")
		r.Entries = append(r.Entries, compareTools(old.Tools, new.Tools, old.Lossy || new.Lossy)...)
	}
	// Against an --inspect file, items compare on the members it keeps.
	lossy := old.Lossy || new.Lossy
	items := func(object string, o, n []Item) []Entry {
		if lossy {
			o, n = keptItems(object, o), keptItems(object, n)
		}
		return compareItems(object, o, n)
	}
	if old.HasResources && new.HasResources {
		r.Compared = append(r.Compared, "resources")
		r.Entries = append(r.Entries, items(ObjResource, old.Resources, new.Resources)...)
	}
	if old.HasTemplates && new.HasTemplates {
		r.Compared = append(r.Compared, "templates")
		r.Entries = append(r.Entries, items(ObjTemplate, old.Templates, new.Templates)...)
	}
	if old.HasPrompts && new.HasPrompts {
		r.Compared = append(r.Compared, "prompts")
		r.Entries = append(r.Entries, items(ObjPrompt, old.Prompts, new.Prompts)...)
	}
	for i := range r.Entries {
		e := &r.Entries[i]
		for _, c := range e.Changes {
			if c.Breaking {
				e.Breaking = true
				r.Breaking++
			} else {
				r.Compatible++
			}
		}
	}
	return r
}

func compareTools(old, new []client.Tool, lossy bool) []Entry {
	oldBy := make(map[string]*client.Tool, len(old))
	for i := range old {
		oldBy[old[i].Name] = &old[i]
	}
	newBy := make(map[string]*client.Tool, len(new))
	for i := range new {
		newBy[new[i].Name] = &new[i]
	}
	var entries, removed, added []Entry
	var removedTools, addedTools []*client.Tool
	for i := range old {
		t := &old[i]
		n, ok := newBy[t.Name]
		if !ok {
			removedTools = append(removedTools, t)
			continue
		}
		if e, changed := compareTool(t, n, lossy); changed {
			entries = append(entries, e)
		}
	}
	for i := range new {
		if _, ok := oldBy[new[i].Name]; !ok {
			addedTools = append(addedTools, &new[i])
		}
	}
	// A removed tool and an added one with the same input schema (and description or
	// output schema) read as a rename: still breaking, but said so.
	usedAdd := map[int]bool{}
	for _, t := range removedTools {
		ren := -1
		for j, a := range addedTools {
			if usedAdd[j] || !sameJSON(t.InputSchema, a.InputSchema) {
				continue
			}
			if t.Description == a.Description || (len(t.OutputSchema) > 0 && sameJSON(t.OutputSchema, a.OutputSchema)) {
				ren = j
				break
			}
		}
		if ren < 0 {
			removed = append(removed, Entry{
				Object: ObjTool, Name: t.Name, Status: Removed,
				Changes: []Change{{Kind: "tool-removed", Path: "", Breaking: true,
					Message: fmt.Sprintf("tool %q was removed", t.Name)}},
				Diff: objectDiff(t.Name, "", toolJSON(t, lossy), nil),
			})
			continue
		}
		usedAdd[ren] = true
		a := addedTools[ren]
		e, _ := compareTool(t, a, lossy)
		e.Status, e.OldName, e.Name = Renamed, t.Name, a.Name
		e.Changes = append([]Change{{Kind: "tool-renamed", Breaking: true, Before: t.Name, After: a.Name,
			Message: fmt.Sprintf("tool %q was renamed to %q: calls by the old name fail", t.Name, a.Name)}}, e.Changes...)
		e.Diff = objectDiff(t.Name, a.Name, toolJSON(t, lossy), toolJSON(a, lossy))
		entries = append(entries, e)
	}
	for j, a := range addedTools {
		if usedAdd[j] {
			continue
		}
		added = append(added, Entry{
			Object: ObjTool, Name: a.Name, Status: Added,
			Changes: []Change{{Kind: "tool-added", Message: fmt.Sprintf("tool %q was added", a.Name)}},
			Diff:    objectDiff("", a.Name, nil, toolJSON(a, lossy)),
		})
	}
	out := append(removed, entries...)
	out = append(out, added...)
	sort.SliceStable(out, func(i, j int) bool { return statusRank(out[i].Status) < statusRank(out[j].Status) })
	return out
}

func statusRank(s string) int {
	switch s {
	case Removed:
		return 0
	case Renamed:
		return 1
	case Changed:
		return 2
	}
	return 3
}

// compareTool compares two versions of one tool.
func compareTool(o, n *client.Tool, lossy bool) (Entry, bool) {
	e := Entry{Object: ObjTool, Name: n.Name, Status: Changed}
	if bytes.Equal(o.Raw, n.Raw) && len(o.Raw) > 0 {
		return e, false
	}
	// (No check that the lossy objects are the same JSON first: every part of them
	// is compared below, and nothing changed is what len(cs) == 0 says.)
	var cs []Change
	ot, nt := o.Title, n.Title
	if lossy { // a report shows annotations.title as the title when there is no title
		ot, nt = effTitle(o), effTitle(n)
	}
	if ot != nt {
		cs = append(cs, Change{Kind: "title-changed", Path: "title", Before: ot, After: nt,
			Message: "the title changed"})
	}
	if !lossy && o.Annotations.Title != n.Annotations.Title {
		cs = append(cs, Change{Kind: "title-changed", Path: "annotations.title", Before: o.Annotations.Title, After: n.Annotations.Title,
			Message: "the annotations title changed"})
	}
	if o.Description != n.Description {
		cs = append(cs, Change{Kind: "description-changed", Path: "description", Before: o.Description, After: n.Description,
			Message: "the description changed"})
	}
	cs = append(cs, compareHints(o.Annotations, n.Annotations)...)
	cs = append(cs, compareInput(o.InputSchema, n.InputSchema)...)
	cs = append(cs, compareOutput(o.OutputSchema, n.OutputSchema)...)
	if !lossy {
		cs = append(cs, compareTaskSupport(o, n)...)
	}
	if len(cs) == 0 && !lossy {
		// Something else differs (icons, _meta, key order): worth showing, harmless.
		if sameJSON(o.Raw, n.Raw) {
			return e, false
		}
		cs = append(cs, Change{Kind: "other-changed", Message: "other members changed (icons, _meta, ...)"})
	}
	if len(cs) == 0 {
		return e, false
	}
	e.Changes = cs
	e.Diff = objectDiff(o.Name, n.Name, toolJSON(o, lossy), toolJSON(n, lossy))
	return e, true
}

// compareHints compares the hints that apply (spec defaults for absent ones).
func compareHints(o, n client.Annotations) []Change {
	var cs []Change
	oh, nh := o.Hints(), n.Hints()
	for i, h := range client.HintNames {
		ov, nv := oh[i], nh[i]
		if ov.Value == nv.Value {
			continue
		}
		breaking := false
		switch h.Key {
		case "readOnly", "idempotent":
			breaking = ov.Value && !nv.Value
		case "destructive":
			breaking = !ov.Value && nv.Value
		}
		msg := fmt.Sprintf("%s: %s → %s", h.Wire, hintText(ov), hintText(nv))
		if breaking {
			msg += " (toward destructive: a client that ran it without asking should now ask)"
		}
		cs = append(cs, Change{Kind: "hint-changed", Path: "annotations." + h.Wire, Breaking: breaking,
			Before: hintText(ov), After: hintText(nv), Message: msg})
	}
	return cs
}

func hintText(h client.Hint) string {
	s := fmt.Sprint(h.Value)
	if !h.Set {
		s += " (absent: spec default)"
	}
	return s
}

// compareTaskSupport: a tool that comes to require tasks (execution.taskSupport
// "required") fails for a client that calls it plainly.
func compareTaskSupport(o, n *client.Tool) []Change {
	get := func(t *client.Tool) string {
		var x struct {
			Execution struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		}
		_ = json.Unmarshal(t.Raw, &x)
		return x.Execution.TaskSupport
	}
	ov, nv := get(o), get(n)
	if ov == nv {
		return nil
	}
	c := Change{Kind: "task-support-changed", Path: "execution.taskSupport", Before: orNone(ov), After: orNone(nv),
		Breaking: nv == "required", Message: fmt.Sprintf("execution.taskSupport: %s → %s", orNone(ov), orNone(nv))}
	if c.Breaking {
		c.Message += " (a call without a task now fails)"
	}
	return []Change{c}
}

// toolJSON is the part of a tool a person compares: the wire object, or (lossy) only
// what an --inspect report keeps.
func toolJSON(t *client.Tool, lossy bool) any {
	if !lossy {
		var raw any
		if err := json.Unmarshal(t.Raw, &raw); err == nil && raw != nil {
			return raw
		}
	}
	m := map[string]any{"name": t.Name}
	if title := effTitle(t); title != "" {
		m["title"] = title
	}
	if t.Description != "" {
		m["description"] = t.Description
	}
	if len(t.InputSchema) > 0 {
		m["inputSchema"] = json.RawMessage(t.InputSchema)
	}
	if len(t.OutputSchema) > 0 {
		m["outputSchema"] = json.RawMessage(t.OutputSchema)
	}
	if t.Annotations.Present {
		a := map[string]any{}
		hs := t.Annotations.Hints()
		for i, h := range client.HintNames {
			if hs[i].Set {
				a[h.Wire] = hs[i].Value
			}
		}
		if len(a) > 0 {
			m["annotations"] = a
		}
	}
	return m
}

func effTitle(t *client.Tool) string {
	if t.Title != "" {
		return t.Title
	}
	return t.Annotations.Title
}

// canonical renders a value as indented JSON with sorted keys.
func canonical(v any) string {
	if v == nil {
		return ""
	}
	if raw, ok := v.(json.RawMessage); ok {
		var x any
		if json.Unmarshal(raw, &x) != nil {
			return string(raw)
		}
		v = x
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b) + "\n"
}

// objectDiff is a unified diff of two objects' JSON; one side may be nil.
func objectDiff(oldName, newName string, o, n any) string {
	ol, nl := "a/"+oldName, "b/"+newName
	if o == nil {
		ol = "/dev/null"
	}
	if n == nil {
		nl = "/dev/null"
	}
	return udiff.Unified(ol, nl, canonical(o), canonical(n))
}

// sameJSON reports whether two JSON texts have the same value.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	// Decoded JSON is maps, slices, strings, float64s, bools and nils: DeepEqual is
	// equality of the values, without rendering both sides as canonical text.
	return reflect.DeepEqual(x, y)
}

// short renders a JSON value on one line, abbreviated.
func short(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		s = x
	case json.RawMessage:
		s = string(x)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			s = fmt.Sprint(v)
		} else {
			s = string(b)
		}
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}
