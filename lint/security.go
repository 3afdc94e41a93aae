package lint

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/termsafe"
	"github.com/mcpscope/mcpscope/surface"
)

// The instruction rules: each a pattern over a description (any "description" or
// "title" string of a definition, the schema's included), matched case-insensitively.
// They are deliberately plain, so that a reader can check a finding against its rule;
// a paraphrase gets past them, and no rule here claims otherwise.
var instructionRules = []struct {
	rule string
	re   func() *regexp.Regexp
}{
	{"instruction-override", lazyRE(`(?i)\b(ignore|disregard|forget|override)\b[^.\n]{0,40}\b(previous|prior|above|earlier|preceding|system|other|all)\b[^.\n]{0,20}\b(instructions?|prompts?|rules|directions|messages?)\b`)},
	{"instruction-tag", lazyRE(`(?i)<\s*/?\s*(important|system|instructions?|secret|admin|hidden)\s*>`)},
	{"instruction-conceal", lazyRE(`(?i)(\b(do not|don't|never)\s+(tell|inform|mention|reveal|show|notify|alert)\b[^.\n]{0,30}\buser|\bwithout\s+(telling|informing|notifying|asking|alerting)\s+the\s+user)`)},
	{"sensitive-path", lazyRE(`(?i)(~/\.ssh|\.ssh/|\bid_rsa\b|\bid_ed25519\b|~/\.aws|\.aws/credentials|(^|[\s"'(/])\.env\b|/etc/(passwd|shadow)\b|\bmcp\.json\b|~/\.cursor\b|\.npmrc\b|\.netrc\b|\.git-credentials\b)`)},
	{"instruction-call", lazyRE(`(?i)\b(you|the (model|assistant|agent))\s+(must|should|need to|have to)\s+(always\s+)?(first\s+)?(call|invoke|run|read|use|send)\b`)},
}

// strings checks every string of a definition (member names included): hidden
// characters anywhere, instruction rules in descriptions and titles.
func (c *checker) strings(object, name string, raw json.RawMessage) {
	var walk func(v any, ptr, key string)
	walk = func(v any, ptr, key string) {
		switch x := v.(type) {
		case string:
			c.text(object, name, ptr, key, x)
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				at := pointerJoin(ptr, k)
				if h := hidden(k); h != "" {
					c.at("hidden-characters", object, name, at, "the member name has "+h)
				}
				walk(x[k], at, k)
			}
		case []any:
			for i, e := range x {
				walk(e, ptr+"/"+strconv.Itoa(i), key)
			}
		}
	}
	walk(decode(raw), "", "")
}

// text checks one string at ptr; key is the member it is the value of.
func (c *checker) text(object, name, ptr, key, s string) {
	if h := hidden(s); h != "" {
		c.at("hidden-characters", object, name, ptr, "the text has "+h)
	}
	if key != "description" && key != "title" {
		return
	}
	for _, r := range instructionRules {
		if m := r.re().FindString(s); m != "" {
			c.at(r.rule, object, name, ptr, fmt.Sprintf("it says %q", termsafe.Line(strings.TrimSpace(m))))
		}
	}
}

// hidden names the invisible characters in s ("" when there are none): what the
// terminal sanitizer escapes (format characters, bidi controls, tags, C1 controls)
// and the C0 controls but newline, tab and carriage return (an ESC starts a terminal
// sequence that can hide text where no sanitizer runs), counted per code point.
func hidden(s string) string {
	counts := map[rune]int{}
	var order []rune
	for _, r := range s {
		control := r < 0x20 && r != '\n' && r != '\t' && r != '\r' || r == 0x7f // ESC starts a terminal sequence
		if !control && (r < 0x80 || !termsafe.Escaped(r) && !unicode.Is(unicode.Cf, r)) {
			continue
		}
		if counts[r] == 0 {
			order = append(order, r)
		}
		counts[r]++
	}
	if len(order) == 0 {
		return ""
	}
	var parts []string
	for i, r := range order {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("and %d more", len(order)-4))
			break
		}
		parts = append(parts, fmt.Sprintf("U+%04X ×%d", r, counts[r]))
	}
	return "invisible characters: " + strings.Join(parts, ", ")
}

// shadowing adds the findings that look across servers: a tool name two servers
// share, names that differ only in case, separators or look-alike letters, and a
// description that names another server's tool.
func shadowing(in []Input, out []Report) {
	if len(in) < 2 {
		return
	}
	type owner struct {
		server int
		name   string
	}
	exact := map[string][]owner{}
	folded := map[string][]owner{}
	for i, s := range in {
		if s.Surface == nil {
			continue
		}
		for _, t := range s.Surface.Tools {
			exact[t.Name] = append(exact[t.Name], owner{i, t.Name})
			folded[fold(t.Name)] = append(folded[fold(t.Name)], owner{i, t.Name})
		}
	}
	add := func(i int, f Finding) {
		c := &checker{server: in[i].Name, want: map[string]bool{"security": true}}
		c.add(f)
		out[i].Findings = append(out[i].Findings, c.found...)
	}
	servers := func(os []owner) []string {
		var names []string
		for _, o := range os {
			if !contains(names, in[o.server].Name) {
				names = append(names, in[o.server].Name)
			}
		}
		return names
	}
	for name, os := range exact {
		if names := servers(os); len(names) > 1 {
			for _, o := range os {
				add(o.server, Finding{Rule: "shadowed-name", Object: surface.ObjTool, Name: name, Pointer: "/name",
					Message: fmt.Sprintf("%q is a tool of %s", name, strings.Join(names, " and "))})
			}
		}
	}
	for _, os := range folded {
		var distinct []string
		for _, o := range os {
			if !contains(distinct, o.name) {
				distinct = append(distinct, o.name)
			}
		}
		if len(distinct) < 2 || len(servers(os)) < 2 {
			continue
		}
		sort.Strings(distinct)
		for _, o := range os {
			add(o.server, Finding{Rule: "confusable-name", Object: surface.ObjTool, Name: o.name, Pointer: "/name",
				Message: "look alike across servers: " + strings.Join(quoteAll(distinct, 5), ", ")})
		}
	}
	// A description naming another server's tool: only distinctive names (with a
	// separator, or 8 characters or more), matched as whole words.
	for i, s := range in {
		if s.Surface == nil {
			continue
		}
		own := map[string]bool{}
		for _, t := range s.Surface.Tools {
			own[t.Name] = true
		}
		for _, t := range s.Surface.Tools {
			for j, other := range in {
				if j == i || other.Surface == nil {
					continue
				}
				for _, ot := range other.Surface.Tools {
					if own[ot.Name] || !distinctive(ot.Name) {
						continue
					}
					if wordIn(t.Description, ot.Name) {
						add(i, Finding{Rule: "cross-server-reference", Object: surface.ObjTool, Name: t.Name, Pointer: "/description",
							Message: fmt.Sprintf("the description names %s, a tool of %s", ot.Name, other.Name)})
					}
				}
			}
		}
	}
}

// fold is a name without case, separators or the commonest look-alike letters
// (Cyrillic and Greek letters that are drawn as Latin ones).
func fold(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r == '_' || r == '-' || r == '.' || r == ' ' {
			continue
		}
		if l, ok := lookalike[r]; ok {
			r = l
		}
		b.WriteRune(r)
	}
	return b.String()
}

var lookalike = map[rune]rune{
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'і': 'i', 'ј': 'j', 'ѕ': 's', 'ԁ': 'd', 'ո': 'n',
	'α': 'a', 'ο': 'o', 'ρ': 'p', 'ν': 'v', 'τ': 't', 'ι': 'i', 'κ': 'k',
}

func distinctive(name string) bool {
	return len(name) >= 8 || strings.ContainsAny(name, "_-.")
}

// wordIn reports whether word occurs in s not inside a longer name.
func wordIn(s, word string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		if (start == 0 || !nameByte(s[start-1])) && (end == len(s) || !nameByte(s[end])) {
			return true
		}
		i = start + 1
	}
}

func nameByte(b byte) bool {
	return b == '_' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

func countOf(n int, what string) string { return plural.Count(n, what) }
