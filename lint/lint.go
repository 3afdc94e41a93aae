// Package lint judges a server's surface (its tools, prompts and resource templates)
// as a model host sees it: what each definition costs in the model's context, which
// LLM providers reject its names or schemas, and what in it hides characters or
// instructions aimed at the model (issue 25).
//
// Every provider rule is data (rules.go): an id, the provider, a severity, what it
// checks and the documentation or public report it comes from. A finding names the
// server, the object, the JSON pointer inside its definition, the rule and a
// suggested change. Nothing here talks to a server or prints: cmd/mcpscope loads the
// surfaces (live servers, --inspect files, recordings) and renders the report.
package lint

import (
	"slices"
	"strings"

	"github.com/mcpscope/mcpscope/surface"
)

// Severity says how bad a finding is.
type Severity string

const (
	Error   Severity = "error"   // the provider rejects the request, or the definition hides something
	Warning Severity = "warning" // degraded, ignored, or a SHOULD of the spec
	Info    Severity = "info"    // worth knowing
)

// rank orders severities (higher is worse).
func (s Severity) rank() int {
	switch s {
	case Error:
		return 3
	case Warning:
		return 2
	case Info:
		return 1
	}
	return 0
}

// AtLeast reports whether s is as bad as level or worse.
func (s Severity) AtLeast(level Severity) bool { return s.rank() >= level.rank() && level.rank() > 0 }

// Profiles are the groups of rules a lint can be asked for (--profile).
var Profiles = []string{"gemini", "openai", "anthropic", "anthropic-strict", "claude-code", "mcp", "security"}

// Finding is one thing a rule found.
type Finding struct {
	Server   string   `json:"server"`
	Object   string   `json:"object"` // tool, prompt, template, server
	Name     string   `json:"name,omitempty"`
	Pointer  string   `json:"pointer"` // JSON pointer into the object's definition ("" for the whole)
	Rule     string   `json:"rule"`
	Provider string   `json:"provider"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	Suggest  string   `json:"suggest,omitempty"`
	Source   string   `json:"source"`
}

// Options choose what a lint checks.
type Options struct {
	// Profiles are the rule groups to apply (empty: all of Profiles).
	Profiles []string
	// Budget, when above zero, is the most tokens a server's definitions may cost;
	// above it is an error finding (rule budget).
	Budget int
}

// Input is one server's surface and the name a host gives it (a config key: Claude
// Code builds mcp__NAME__tool from it). File is the file it was read from, if any
// (SARIF points its results there).
type Input struct {
	Name    string
	File    string
	Surface *surface.Surface
	// Drift is how the surface differs from what was pinned for the server (package
	// pins), with Pinned when it was pinned; nil when nothing was pinned or compared.
	Drift *Drift
}

// Drift is a surface's difference from its pin: definitions ("tool NAME") changed,
// added and removed since Pinned (an RFC 3339 time). Strict makes a change an error.
type Drift struct {
	Pinned                  string
	Accept                  string // the command that takes the new surface as the pin
	Changed, Added, Removed []string
	Strict                  bool
}

// Report is what a lint found for one server.
type Report struct {
	Server    string    `json:"server"`
	File      string    `json:"file,omitempty"`
	Tokenizer string    `json:"tokenizer"`
	Total     Cost      `json:"total"`
	Costs     []Cost    `json:"costs"` // heaviest first
	Findings  []Finding `json:"findings"`
}

// Worst is the worst severity among the findings ("" when there are none).
func (r *Report) Worst() Severity {
	var w Severity
	for _, f := range r.Findings {
		if f.Severity.rank() > w.rank() {
			w = f.Severity
		}
	}
	return w
}

// Fails reports whether a finding is at level or worse.
func (r *Report) Fails(level Severity) bool {
	for _, f := range r.Findings {
		if f.Severity.AtLeast(level) {
			return true
		}
	}
	return false
}

// Run lints every server; rules that look across servers (shadowing) see them all.
func Run(in []Input, opts Options) []Report {
	want := map[string]bool{}
	for _, p := range opts.Profiles {
		want[p] = true
	}
	if len(want) == 0 {
		for _, p := range Profiles {
			want[p] = true
		}
	}
	want["cost"] = true // the budget, asked for by --budget alone
	out := make([]Report, len(in))
	for i, s := range in {
		r := &out[i]
		r.Server, r.File = s.Name, s.File
		r.Tokenizer = TokenizerName
		r.Costs, r.Total = costs(s.Surface)
		c := &checker{server: s.Name, want: want}
		c.surface(s.Surface)
		if opts.Budget > 0 && r.Total.Tokens > opts.Budget {
			c.add(Finding{Object: "server", Rule: "budget",
				Message: countOf(r.Total.Tokens, "token") + " of definitions, over the budget of " + countOf(opts.Budget, "token"),
				Suggest: "shorten the heaviest definitions (listed first), or split the server"})
		}
		c.drift(s.Name, s.Drift)
		r.Findings = c.found
		if r.Findings == nil {
			r.Findings = []Finding{} // JSON: an empty list for scripts, never null
		}
	}
	if want["security"] {
		shadowing(in, out)
	}
	for i := range out {
		sortFindings(out[i].Findings)
	}
	return out
}

// sortFindings puts errors first, then by object and pointer, so that a report reads
// the same on every run.
func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		if d := b.Severity.rank() - a.Severity.rank(); d != 0 {
			return d
		}
		if d := strings.Compare(a.Object+"\x00"+a.Name, b.Object+"\x00"+b.Name); d != 0 {
			return d
		}
		if d := strings.Compare(a.Pointer, b.Pointer); d != 0 {
			return d
		}
		return strings.Compare(a.Rule, b.Rule)
	})
}
