// Package inspect renders what a session knows for a pipe or a file: the server and
// its tools (table, JSON or Markdown) and the result of one call. No Bubble Tea here.
//
// The table and Markdown are for people: every server string in them goes through
// termsafe, so its escapes are shown, not interpreted. JSON keeps the exact strings.
package inspect

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/mcpscope/mcpscope/apps"
	"github.com/mcpscope/mcpscope/deprecated"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// safe is a server string made safe for one line of a terminal.
var safe = termsafe.Line

// Formats accepted by --format.
const (
	FormatTable    = "table"
	FormatJSON     = "json"
	FormatMarkdown = "markdown"
)

// FormatVersion is the version of the JSON document below. It changes only when a
// member is removed or changes meaning; new members may appear at any time.
const FormatVersion = 1

// Report is the --inspect JSON document: a stable contract for scripts.
type Report struct {
	FormatVersion   int             `json:"formatVersion"`
	Server          ServerJSON      `json:"server"`
	ProtocolVersion string          `json:"protocolVersion"`
	Era             string          `json:"era"`
	Transport       string          `json:"transport"`
	Framing         string          `json:"framing,omitempty"`
	Capabilities    json.RawMessage `json:"capabilities"`
	Instructions    string          `json:"instructions,omitempty"`
	Tools           []ToolJSON      `json:"tools"`
	// Resources, ResourceTemplates, Prompts, Skills and Extensions are filled by
	// WriteWith (--inspect); empty when the server offers none.
	Resources         []ResourceJSON `json:"resources"`
	ResourceTemplates []TemplateJSON `json:"resourceTemplates"`
	Prompts           []PromptJSON   `json:"prompts"`
	Skills            []SkillJSON    `json:"skills"`
	Extensions        []string       `json:"extensions"`
	// Problems is always present: an empty array when there are none.
	Problems []string `json:"problems"`
	// Deprecated is always present: the deprecated features the server used (each
	// also a line of Problems), with the revision that deprecated them.
	Deprecated []deprecated.Notice `json:"deprecated"`
	// Cost is what the server's definitions put into a model's context (package
	// lint's measure): bytes always, tokens with --tokens.
	Cost *CostJSON `json:"cost,omitempty"`
}

// ServerJSON is the server's self-description.
type ServerJSON struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Title   string `json:"title,omitempty"`
}

// ToolJSON is one tool in the report.
type ToolJSON struct {
	Name         string              `json:"name"`
	Title        string              `json:"title,omitempty"`
	Description  string              `json:"description,omitempty"`
	Annotations  map[string]HintJSON `json:"annotations"`
	Parameters   []client.Param      `json:"parameters"`
	InputSchema  json.RawMessage     `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage     `json:"outputSchema,omitempty"`
	// App is the tool's MCP Apps view, when it names one.
	App      *AppJSON `json:"app,omitempty"`
	Problems []string `json:"problems,omitempty"`
	// Cost is the tool's own (name, description, input schema as a host sends them).
	Cost *CostJSON `json:"cost,omitempty"`
}

// AppJSON is a tool's MCP Apps view: what the tool's _meta.ui says, and (in
// --inspect) what the view's resource says of itself.
type AppJSON struct {
	apps.ToolUI
	View *apps.View `json:"view,omitempty"`
}

// HintJSON is one annotation: value is what applies (the spec default when the server
// did not set it), set says whether the server set it.
type HintJSON struct {
	Value bool `json:"value"`
	Set   bool `json:"set"`
}

// NewReport builds the report for a session's info and tools.
func NewReport(info client.Info, list *client.ToolList) Report {
	r := Report{
		FormatVersion:   FormatVersion,
		Server:          ServerJSON{Name: info.Name, Version: info.Version, Title: info.Title},
		ProtocolVersion: info.ProtocolVersion,
		Era:             info.Era,
		Transport:       info.Transport,
		Framing:         string(info.Framing),
		Capabilities:    info.Capabilities,
		Instructions:    info.Instructions,
		Tools:           []ToolJSON{},
		Problems:        append([]string{}, list.Problems...),
		Deprecated:      []deprecated.Notice{},
		Resources:       []ResourceJSON{}, ResourceTemplates: []TemplateJSON{},
		Prompts: []PromptJSON{}, Skills: []SkillJSON{}, Extensions: []string{},
	}
	for _, t := range list.Tools {
		tj := ToolJSON{
			Name: t.Name, Title: t.Title, Description: t.Description,
			Annotations: map[string]HintJSON{}, Parameters: t.Params(),
			InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Problems: t.Problems,
		}
		if t.UI.ResourceURI != "" {
			tj.App = &AppJSON{ToolUI: t.UI}
		}
		if tj.Parameters == nil {
			tj.Parameters = []client.Param{}
		}
		if tj.Title == "" {
			tj.Title = t.Annotations.Title
		}
		hints := t.Annotations.Hints()
		for i, h := range client.HintNames {
			tj.Annotations[h.Key] = HintJSON{Value: hints[i].Value, Set: hints[i].Set}
		}
		r.Tools = append(r.Tools, tj)
	}
	return r
}

// Write renders the report in the given format.
func Write(w io.Writer, format string, info client.Info, list *client.ToolList) error {
	return buffered(w, func(w io.Writer) error { return write(w, format, info, list) })
}

// buffered runs write against a buffer over w and flushes it whatever write returned,
// so what was written before an error still goes out. A report is hundreds of small
// writes (a cell, a padding, a newline: 365 for a 20-tool table), each a write(2) when
// w is the process's stdout; buffered they are one or a few. Nothing waits for input
// while a report is written (every question was asked before), so flushing at the end
// cannot hold text back from a prompt.
func buffered(w io.Writer, write func(io.Writer) error) error {
	if _, ok := w.(*bufio.Writer); ok {
		return write(w) // already buffered (WriteServers writing a section)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	err := write(bw)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

func write(w io.Writer, format string, info client.Info, list *client.ToolList) error {
	switch format {
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(NewReport(info, list))
	case FormatMarkdown:
		return writeMarkdown(w, info, list, nil)
	default:
		return writeTable(w, info, list, nil)
	}
}

func serverLine(info client.Info) string {
	s := info.Name
	if s == "" {
		s = "(unnamed server)"
	}
	if info.Version != "" {
		s += " " + info.Version
	}
	if info.Title != "" && info.Title != info.Name {
		s += " — " + info.Title
	}
	return safe(s)
}

func protocolLine(info client.Info) string {
	s := fmt.Sprintf("%s (%s era) over %s", info.ProtocolVersion, info.Era, info.Transport)
	if info.Framing != "" {
		s += ", " + string(info.Framing) + " framing"
	}
	return safe(s)
}

// CapabilitySummary lists capabilities with their true flags: "tools(listChanged)".
func CapabilitySummary(caps json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(caps, &m) != nil || len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		var sub map[string]json.RawMessage
		var flags []string
		if json.Unmarshal(m[k], &sub) == nil {
			for sk, sv := range sub {
				if string(sv) == "true" {
					flags = append(flags, sk)
				}
			}
		}
		sort.Strings(flags)
		if len(flags) > 0 {
			parts = append(parts, k+"("+strings.Join(flags, ",")+")")
		} else {
			parts = append(parts, k)
		}
	}
	return strings.Join(parts, " ")
}

// hintCell shows a hint: yes/no when the server set it, (yes)/(no) for the spec default.
func hintCell(h client.Hint) string {
	v := "no"
	if h.Value {
		v = "yes"
	}
	if !h.Set {
		return "(" + v + ")"
	}
	return v
}

// ParamSummary is a compact parameter list: `message*: string, mode: fast|exact = "fast"`.
func ParamSummary(params []client.Param) string {
	if len(params) == 0 {
		return "-"
	}
	var parts []string
	for _, p := range params {
		s := p.Name
		if p.Required {
			s += "*"
		}
		typ := p.Type
		if len(p.Enum) > 0 {
			var vals []string
			for _, e := range p.Enum {
				var str string
				if json.Unmarshal(e, &str) == nil {
					vals = append(vals, str)
				} else {
					vals = append(vals, string(e))
				}
			}
			typ = strings.Join(vals, "|")
		}
		if typ != "" {
			s += ": " + typ
		}
		if p.Default != nil {
			s += " = " + string(p.Default)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func firstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}

// writeTable writes the server's table; cost, when known, is a line of its header.
func writeTable(w io.Writer, info client.Info, list *client.ToolList, cost *CostJSON) error {
	fmt.Fprintf(w, "server        %s\n", serverLine(info))
	fmt.Fprintf(w, "protocol      %s\n", protocolLine(info))
	fmt.Fprintf(w, "capabilities  %s\n", safe(CapabilitySummary(info.Capabilities)))
	if info.Instructions != "" {
		fmt.Fprintf(w, "instructions  %s\n", safe(firstLine(info.Instructions, 100)))
	}
	writeCostTable(w, cost)
	for _, p := range list.Problems {
		fmt.Fprintf(w, "problem       %s\n", safe(p))
	}
	fmt.Fprintf(w, "\n%s (hints: yes/no as the server set them, (yes)/(no) the spec default it left unset; * required)\n\n", count(len(list.Tools), "tool"))
	if len(list.Tools) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tREAD-ONLY\tDESTRUCTIVE\tIDEMPOTENT\tOPEN-WORLD\tPARAMETERS\tDESCRIPTION")
	for _, t := range list.Tools {
		a := t.Annotations
		desc := t.Description
		if title := t.DisplayName(); title != t.Name {
			desc = title + ": " + desc
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", safe(t.Name),
			hintCell(a.ReadOnly), hintCell(a.Destructive), hintCell(a.Idempotent), hintCell(a.OpenWorld),
			safe(firstLine(ParamSummary(t.Params()), 60)), safe(firstLine(desc, 70)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, t := range list.Tools {
		for _, p := range t.Problems {
			fmt.Fprintf(w, "problem in tool %q: %s\n", t.Name, safe(p))
		}
	}
	return nil
}

// count says how many of a kind there are, one in the singular ("1 tool", "2 tools").
func count(n int, noun string) string { return plural.Count(n, noun) }

// mdEscape makes s one safe table cell.
func mdEscape(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "|", `\|`)
	return safe(strings.ReplaceAll(strings.TrimSpace(s), "\n", "<br>"))
}

func writeMarkdown(w io.Writer, info client.Info, list *client.ToolList, cost *CostJSON) error {
	fmt.Fprintf(w, "# %s\n\n", serverLine(info))
	fmt.Fprintf(w, "- **Protocol:** %s\n", protocolLine(info))
	fmt.Fprintf(w, "- **Capabilities:** %s\n", safe(CapabilitySummary(info.Capabilities)))
	if cost != nil {
		fmt.Fprintf(w, "- **Cost:** %s\n", costLine(cost))
	}
	for _, p := range list.Problems {
		fmt.Fprintf(w, "- **Problem:** %s\n", safe(p))
	}
	if info.Instructions != "" {
		fmt.Fprintf(w, "\n## Instructions\n\n%s\n", termsafe.Text(strings.TrimSpace(info.Instructions)))
	}
	fmt.Fprintf(w, "\n## Tools (%d)\n\n", len(list.Tools))
	fmt.Fprintln(w, "Hints: yes/no as the server set them, (yes)/(no) the spec default it left unset. `*` marks a required parameter.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| Tool | Read-only | Destructive | Idempotent | Open-world | Parameters | Description |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- |")
	for _, t := range list.Tools {
		a := t.Annotations
		name := "`" + safe(t.Name) + "`"
		if title := t.DisplayName(); title != t.Name {
			name += " " + mdEscape(title)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", name,
			hintCell(a.ReadOnly), hintCell(a.Destructive), hintCell(a.Idempotent), hintCell(a.OpenWorld),
			mdEscape(ParamSummary(t.Params())), mdEscape(t.Description))
	}
	for _, t := range list.Tools {
		for _, p := range t.Problems {
			fmt.Fprintf(w, "\n> Problem in `%s`: %s\n", safe(t.Name), safe(p))
		}
	}
	return nil
}
