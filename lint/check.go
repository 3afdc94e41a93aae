package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/surface"
)

// checker collects one server's findings.
type checker struct {
	server string
	want   map[string]bool
	found  []Finding
	seen   map[string]bool // rule + object + pointer: one finding each
	// optional and unions count, over all the server's tools, the parameters
	// Anthropic's strict tool use limits per request (24 optional, 16 unions).
	optional, unions int
}

// add records f, filled in from its rule, when the rule's profile is wanted.
func (c *checker) add(f Finding) {
	r, ok := rules()[f.Rule]
	if ok {
		if !c.want[r.Provider] {
			return
		}
		f.Provider, f.Source = r.Provider, r.Source
		if f.Severity == "" {
			f.Severity = r.Severity
		}
		if f.Suggest == "" {
			f.Suggest = r.Suggest
		}
		if f.Message == "" {
			f.Message = r.Checks
		}
	}
	f.Server = c.server
	key := f.Rule + "\x00" + f.Object + "\x00" + f.Name + "\x00" + f.Pointer
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.found = append(c.found, f)
}

// at is a finding of a rule on one object at a pointer.
func (c *checker) at(rule, object, name, pointer, message string) {
	c.add(Finding{Rule: rule, Object: object, Name: name, Pointer: pointer, Message: message})
}

func (c *checker) surface(s *surface.Surface) {
	if s == nil {
		return
	}
	for i := range s.Tools {
		c.tool(&s.Tools[i])
	}
	c.toolSet(s.Tools)
	for _, p := range s.Prompts {
		c.strings(surface.ObjPrompt, p.Key, p.Raw)
	}
	for _, t := range s.Templates {
		c.strings(surface.ObjTemplate, t.Key, t.Raw)
	}
	for _, n := range s.Deprecated {
		c.add(Finding{Object: "server", Name: n.Feature, Rule: "deprecated-feature", Message: n.String()})
	}
}

var (
	geminiName     = lazyRE(`^[A-Za-z0-9_.:-]*$`)
	openAIName     = lazyRE(`^[a-zA-Z0-9_-]{1,64}$`)
	anthropicChars = lazyRE(`^[a-zA-Z0-9_-]*$`)
	mcpChars       = lazyRE(`^[A-Za-z0-9_.-]*$`)
	geminiParam    = lazyRE(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)
)

// lazyRE compiles a pattern on first use: the binary's every command links this
// package, and compiling its patterns at init cost each of them about 2 ms.
func lazyRE(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// tool checks one tool's name, schema and strings.
func (c *checker) tool(t *client.Tool) {
	const obj = surface.ObjTool
	n := t.Name
	runes := len([]rune(n))
	if n != "" && !(n[0] == '_' || n[0] >= 'a' && n[0] <= 'z' || n[0] >= 'A' && n[0] <= 'Z') {
		c.at("gemini-name-start", obj, n, "/name", fmt.Sprintf("%q starts with %q", n, n[:1]))
	}
	if !geminiName().MatchString(n) {
		c.at("gemini-name-charset", obj, n, "/name", "the name has "+others(n, geminiName()))
	}
	switch {
	case runes > 128:
		c.at("gemini-name-too-long", obj, n, "/name", fmt.Sprintf("the name is %d characters", runes))
		c.at("anthropic-name-too-long", obj, n, "/name", fmt.Sprintf("the name is %d characters", runes))
	case runes > 64:
		c.at("gemini-name-length", obj, n, "/name", fmt.Sprintf("the name is %d characters", runes))
		c.at("anthropic-name-length", obj, n, "/name", fmt.Sprintf("the name is %d characters", runes))
	}
	if !openAIName().MatchString(n) {
		c.at("openai-name-pattern", obj, n, "/name", nameProblem(n, 64))
	}
	if !anthropicChars().MatchString(n) {
		c.at("anthropic-name-charset", obj, n, "/name", "the name has "+others(n, anthropicChars()))
	}
	if runes < 1 || runes > 128 {
		c.at("mcp-name-length", obj, n, "/name", fmt.Sprintf("the name is %d characters", runes))
	}
	if !mcpChars().MatchString(n) {
		c.at("mcp-name-charset", obj, n, "/name", "the name has "+others(n, mcpChars()))
	}
	if full := "mcp__" + c.server + "__" + n; c.server != "" && len(full) > 64 {
		c.at("claudecode-combined-name", obj, n, "/name", fmt.Sprintf("%s is %d characters; with this server's name a tool name may have %d", full, len(full), max(64-7-len(c.server), 0)))
	}
	c.hints(t)
	c.schema(t)
	c.strings(obj, n, t.Raw)
}

// nameProblem says why a name fails ^[a-zA-Z0-9_-]{1,limit}$.
func nameProblem(n string, limit int) string {
	switch {
	case n == "":
		return "the name is empty"
	case len(n) > limit:
		return fmt.Sprintf("the name is %d characters", len(n))
	}
	return "the name has " + others(n, anthropicChars())
}

// others names the characters of n outside what re allows.
func others(n string, re *regexp.Regexp) string {
	var bad []string
	seen := map[rune]bool{}
	for _, r := range n {
		if !seen[r] && !re.MatchString(string(r)) {
			seen[r] = true
			bad = append(bad, strconv.QuoteRune(r))
		}
	}
	if len(bad) == 0 {
		return "no other characters"
	}
	return strings.Join(bad, ", ")
}

// toolSet checks what is judged over all of a server's tools.
func (c *checker) toolSet(tools []client.Tool) {
	if len(tools) > 128 {
		msg := fmt.Sprintf("the server lists %d tools", len(tools))
		c.at("gemini-max-tools", "server", "", "", msg)
		c.at("openai-max-tools", "server", "", "", msg)
	}
	if len(tools) > 20 {
		c.at("anthropic-strict-max-tools", "server", "", "", fmt.Sprintf("the server lists %d tools (a host that marks them all strict is refused)", len(tools)))
	}
	if c.optional > 24 {
		c.at("anthropic-strict-optional-params", "server", "", "", fmt.Sprintf("%d optional parameters across the tools", c.optional))
	}
	if c.unions > 16 {
		c.at("anthropic-strict-union-params", "server", "", "", fmt.Sprintf("%d parameters use anyOf or a list of types", c.unions))
	}
	byName := map[string]int{}
	byFold := map[string][]string{}
	for _, t := range tools {
		byName[t.Name]++
		f := strings.ToLower(t.Name)
		if !contains(byFold[f], t.Name) {
			byFold[f] = append(byFold[f], t.Name)
		}
	}
	for name, n := range byName {
		if n > 1 {
			c.at("mcp-name-unique", surface.ObjTool, name, "/name", fmt.Sprintf("%d tools are named %q", n, name))
		}
	}
	for _, names := range byFold {
		if len(names) > 1 {
			sort.Strings(names)
			c.at("mcp-name-case", surface.ObjTool, names[0], "/name", "differ only in case: "+strings.Join(names, ", "))
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// destructiveName(): names that say the tool removes or overwrites something.
var destructiveName = lazyRE(`(?i)^(delete|remove|drop|destroy|erase|purge|kill|wipe|truncate|overwrite|revoke|terminate)([_.\-]|[A-Z]|$)`)

// hints checks the tool's annotations against what its name says it does.
func (c *checker) hints(t *client.Tool) {
	if !destructiveName().MatchString(t.Name) {
		return
	}
	a := t.Annotations
	switch {
	case a.ReadOnly.Set && a.ReadOnly.Value:
		c.at("hint-contradicts-name", surface.ObjTool, t.Name, "/annotations/readOnlyHint", fmt.Sprintf("%s is marked read-only", t.Name))
	case a.Destructive.Set && !a.Destructive.Value:
		c.at("hint-contradicts-name", surface.ObjTool, t.Name, "/annotations/destructiveHint", fmt.Sprintf("%s is marked non-destructive", t.Name))
	}
}

// decode reads raw JSON keeping numbers as written (nil when it is not JSON).
func decode(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	return v
}

// pointerJoin adds a reference token to a JSON pointer (RFC 6901 escapes).
func pointerJoin(p, token string) string {
	token = strings.ReplaceAll(token, "~", "~0")
	token = strings.ReplaceAll(token, "/", "~1")
	return p + "/" + token
}

func sortStrings(s []string) { sort.Strings(s) }

// drift reports what changed since the server's surface was pinned: a changed
// definition is how a trusted tool turns into a poisoned one; an added one is told
// too (a new tool is no change to what was trusted, but it was never reviewed).
func (c *checker) drift(server string, d *Drift) {
	if d == nil {
		return
	}
	sev := Warning
	if d.Strict {
		sev = Error
	}
	accept := "if you trust it, " + d.Accept
	if d.Accept == "" {
		accept = "if you trust it, mcpscope pin accept " + server
	}
	for _, def := range d.Changed {
		object, name, _ := strings.Cut(def, " ")
		c.add(Finding{Rule: "pin-changed", Object: object, Name: name, Severity: sev,
			Message: "the definition changed since it was pinned on " + d.Pinned, Suggest: "review it (mcpscope diff shows how); " + accept})
	}
	for _, def := range d.Added {
		object, name, _ := strings.Cut(def, " ")
		c.add(Finding{Rule: "pin-added", Object: object, Name: name,
			Message: "new since the surface was pinned on " + d.Pinned, Suggest: "review it; " + accept})
	}
	for _, def := range d.Removed {
		object, name, _ := strings.Cut(def, " ")
		c.add(Finding{Rule: "pin-removed", Object: object, Name: name,
			Message: "gone since the surface was pinned on " + d.Pinned, Suggest: accept})
	}
}
