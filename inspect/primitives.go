package inspect

import (
	"encoding/json"
	"fmt"
	"github.com/mcpscope/mcpscope/apps"
	"github.com/mcpscope/mcpscope/deprecated"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcpscope/mcpscope/client"
)

// Primitives is what --inspect shows besides tools: resources, templates, prompts,
// skills and the server's extensions. A list the server does not offer is empty.
type Primitives struct {
	Resources  []client.Resource
	Templates  []client.ResourceTemplate
	Prompts    []client.Prompt
	Skills     []client.Skill
	Extensions []string
	// Deprecated are the deprecated features the server used (client.Session's
	// Deprecated); each is among Problems too, as a line.
	Deprecated []deprecated.Notice
	// Views are the MCP Apps views the tools name, read and checked, by URI.
	Views    map[string]apps.View
	Problems []string
	// CountTokens counts the definitions' tokens beside their bytes (--tokens): the
	// tokenizer's first load is most of a listing's time, paid only when asked.
	CountTokens bool
}

// ResourceJSON is one resource in JSON output.
type ResourceJSON struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Size        *int64          `json:"size,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	Problems    []string        `json:"problems,omitempty"`
}

// TemplateJSON is one resource template in JSON output.
type TemplateJSON struct {
	URITemplate string          `json:"uriTemplate"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Variables   []string        `json:"variables"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	Problems    []string        `json:"problems,omitempty"`
}

// PromptJSON is one prompt in JSON output.
type PromptJSON struct {
	Name        string                  `json:"name"`
	Title       string                  `json:"title,omitempty"`
	Description string                  `json:"description,omitempty"`
	Arguments   []client.PromptArgument `json:"arguments"`
	Problems    []string                `json:"problems,omitempty"`
}

// SkillJSON is one skill in JSON output.
type SkillJSON struct {
	URI         string             `json:"uri"`
	Name        string             `json:"name"`
	Frontmatter json.RawMessage    `json:"frontmatter,omitempty"`
	Files       []client.SkillFile `json:"files"`
	Dynamic     bool               `json:"dynamic,omitempty"`
	Problems    []string           `json:"problems,omitempty"`
}

// TaskJSON is one task in JSON output.
type TaskJSON struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt,omitempty"`
	LastUpdatedAt string `json:"lastUpdatedAt,omitempty"`
	TTL           *int64 `json:"ttl,omitempty"`
	PollInterval  *int64 `json:"pollInterval,omitempty"`
}

// ContentJSON is one item of a resources/read result.
type ContentJSON struct {
	URI      string          `json:"uri"`
	MIMEType string          `json:"mimeType,omitempty"`
	Text     *string         `json:"text,omitempty"`
	Blob     *string         `json:"blob,omitempty"`
	Raw      json.RawMessage `json:"raw,omitempty"` // an item of an unknown shape, as sent
	Problem  string          `json:"problem,omitempty"`
}

// MessageJSON is one prompt message.
type MessageJSON struct {
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
}

// Resources converts for JSON.
func Resources(rs []client.Resource) []ResourceJSON {
	out := []ResourceJSON{}
	for _, r := range rs {
		out = append(out, ResourceJSON{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType, Size: r.Size, Annotations: r.Annotations, Problems: r.Problems})
	}
	return out
}

// Templates converts for JSON.
func Templates(ts []client.ResourceTemplate) []TemplateJSON {
	out := []TemplateJSON{}
	for _, t := range ts {
		vars, _ := t.Variables()
		if vars == nil {
			vars = []string{}
		}
		out = append(out, TemplateJSON{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType, Variables: vars, Annotations: t.Annotations, Problems: t.Problems})
	}
	return out
}

// Prompts converts for JSON.
func Prompts(ps []client.Prompt) []PromptJSON {
	out := []PromptJSON{}
	for _, p := range ps {
		args := p.Arguments
		if args == nil {
			args = []client.PromptArgument{}
		}
		out = append(out, PromptJSON{Name: p.Name, Title: p.Title, Description: p.Description, Arguments: args, Problems: p.Problems})
	}
	return out
}

// Skills converts for JSON.
func Skills(ks []client.Skill) []SkillJSON {
	out := []SkillJSON{}
	for _, k := range ks {
		files := k.Files
		if files == nil {
			files = []client.SkillFile{}
		}
		out = append(out, SkillJSON{URI: k.URI, Name: k.Name, Frontmatter: k.Frontmatter, Files: files, Dynamic: k.Dynamic, Problems: k.Problems})
	}
	return out
}

// Tasks converts for JSON.
func Tasks(ts []client.Task) []TaskJSON {
	out := []TaskJSON{}
	for _, t := range ts {
		out = append(out, TaskJSON{TaskID: t.ID, Status: t.Status, StatusMessage: t.StatusMessage, CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt, TTL: t.TTL, PollInterval: t.PollInterval})
	}
	return out
}

// Contents converts a read's contents for JSON, exactly as sent.
func Contents(cs []client.ResourceContents) []ContentJSON {
	out := []ContentJSON{}
	for _, c := range cs {
		cj := ContentJSON{URI: c.URI, MIMEType: c.MIMEType, Problem: c.Problem}
		if c.HasText {
			t := c.Text
			cj.Text = &t
		}
		if c.HasBlob {
			b := c.Blob
			cj.Blob = &b
		}
		if c.Problem != "" {
			cj.Raw = c.Raw
		}
		out = append(out, cj)
	}
	return out
}

// Messages converts prompt messages for JSON, each block as sent.
func Messages(ms []client.PromptMessage) []MessageJSON {
	out := []MessageJSON{}
	for _, m := range ms {
		mj := MessageJSON{Role: m.Role, Content: []json.RawMessage{}}
		for _, c := range m.Content {
			mj.Content = append(mj.Content, c.Raw)
		}
		out = append(out, mj)
	}
	return out
}

// WriteResources prints a resource table.
func WriteResources(w io.Writer, rs []client.Resource) {
	fmt.Fprintf(w, "%s\n", count(len(rs), "resource"))
	if len(rs) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "URI\tNAME\tMIME\tSIZE\tANNOTATIONS\tDESCRIPTION")
	for _, r := range rs {
		size := "-"
		if r.Size != nil {
			size = fmt.Sprint(*r.Size)
		}
		name := r.Name
		if r.Title != "" && r.Title != r.Name {
			name += " (" + r.Title + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", safe(r.URI), safe(firstLine(name, 40)), safe(dash(r.MIMEType)), size, safe(firstLine(compact(r.Annotations), 40)), safe(firstLine(r.Description, 60)))
	}
	tw.Flush()
}

// WriteTemplates prints a template table.
func WriteTemplates(w io.Writer, ts []client.ResourceTemplate) {
	fmt.Fprintf(w, "%s\n", count(len(ts), "resource template"))
	if len(ts) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "URI TEMPLATE\tNAME\tVARIABLES\tMIME\tDESCRIPTION")
	for _, t := range ts {
		vars, err := t.Variables()
		v := strings.Join(vars, ", ")
		if err != nil {
			v = "(does not parse)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", safe(t.URITemplate), safe(firstLine(t.DisplayName(), 40)), safe(v), safe(dash(t.MIMEType)), safe(firstLine(t.Description, 60)))
	}
	tw.Flush()
}

// WritePrompts prints a prompt table.
func WritePrompts(w io.Writer, ps []client.Prompt) {
	fmt.Fprintf(w, "%s (* required)\n", count(len(ps), "prompt"))
	if len(ps) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tARGUMENTS\tDESCRIPTION")
	for _, p := range ps {
		var args []string
		for _, a := range p.Arguments {
			s := a.Name
			if a.Required {
				s += "*"
			}
			args = append(args, s)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", safe(p.Name), safe(dash(strings.Join(args, ", "))), safe(firstLine(p.Description, 60)))
	}
	tw.Flush()
}

// WriteSkills prints a skill table.
func WriteSkills(w io.Writer, ks []client.Skill) {
	fmt.Fprintf(w, "%s\n", count(len(ks), "skill"))
	if len(ks) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "URI\tFILES\tDESCRIPTION")
	for _, k := range ks {
		files := fmt.Sprint(len(k.Files))
		if k.Dynamic {
			files = "dynamic"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", safe(k.URI), files, safe(firstLine(k.Description(), 70)))
	}
	tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func compact(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "-"
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// WriteWith renders the report with the other primitives too.
func WriteWith(w io.Writer, format string, info client.Info, list *client.ToolList, p *Primitives) error {
	return buffered(w, func(w io.Writer) error { return writeWith(w, format, info, list, p) })
}

func writeWith(w io.Writer, format string, info client.Info, list *client.ToolList, p *Primitives) error {
	if p == nil {
		p = &Primitives{}
	}
	switch format {
	case FormatJSON:
		r := NewReport(info, list)
		r.Resources = Resources(p.Resources)
		r.ResourceTemplates = Templates(p.Templates)
		r.Prompts = Prompts(p.Prompts)
		r.Skills = Skills(p.Skills)
		r.Extensions = p.Extensions
		if r.Extensions == nil {
			r.Extensions = []string{}
		}
		r.Problems = append(r.Problems, p.Problems...)
		addCosts(&r, list, p, p.CountTokens)
		if p.Deprecated != nil {
			r.Deprecated = p.Deprecated
		}
		for i := range r.Tools {
			if a := r.Tools[i].App; a != nil {
				if v, ok := p.Views[a.ResourceURI]; ok {
					a.View = &v
				}
			}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case FormatMarkdown:
		if err := writeMarkdown(w, info, list, serverCost(list, p, p.CountTokens)); err != nil {
			return err
		}
		writeMarkdownPrimitives(w, p)
		return nil
	default:
		if err := writeTable(w, info, list, serverCost(list, p, p.CountTokens)); err != nil {
			return err
		}
		fmt.Fprintln(w)
		WriteResources(w, p.Resources)
		fmt.Fprintln(w)
		WriteTemplates(w, p.Templates)
		fmt.Fprintln(w)
		WritePrompts(w, p.Prompts)
		if len(p.Skills) > 0 {
			fmt.Fprintln(w)
			WriteSkills(w, p.Skills)
		}
		if len(p.Extensions) > 0 {
			fmt.Fprintf(w, "\nextensions    %s\n", safe(strings.Join(p.Extensions, " ")))
		}
		writeApps(w, list, p.Views)
		for _, pr := range p.Problems {
			fmt.Fprintf(w, "problem       %s\n", safe(pr))
		}
		return nil
	}
}

func writeMarkdownPrimitives(w io.Writer, p *Primitives) {
	fmt.Fprintf(w, "\n## Resources (%d)\n\n", len(p.Resources))
	if len(p.Resources) > 0 {
		fmt.Fprintln(w, "| URI | Name | MIME type | Size | Description |")
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
		for _, r := range p.Resources {
			size := "-"
			if r.Size != nil {
				size = fmt.Sprint(*r.Size)
			}
			fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s |\n", mdEscape(r.URI), mdEscape(r.DisplayName()), mdEscape(dash(r.MIMEType)), size, mdEscape(r.Description))
		}
	}
	fmt.Fprintf(w, "\n## Resource templates (%d)\n\n", len(p.Templates))
	if len(p.Templates) > 0 {
		fmt.Fprintln(w, "| URI template | Name | Description |")
		fmt.Fprintln(w, "| --- | --- | --- |")
		for _, t := range p.Templates {
			fmt.Fprintf(w, "| `%s` | %s | %s |\n", mdEscape(t.URITemplate), mdEscape(t.DisplayName()), mdEscape(t.Description))
		}
	}
	fmt.Fprintf(w, "\n## Prompts (%d)\n\n", len(p.Prompts))
	if len(p.Prompts) > 0 {
		fmt.Fprintln(w, "| Prompt | Arguments | Description |")
		fmt.Fprintln(w, "| --- | --- | --- |")
		for _, pr := range p.Prompts {
			var args []string
			for _, a := range pr.Arguments {
				s := a.Name
				if a.Required {
					s += "*"
				}
				args = append(args, s)
			}
			fmt.Fprintf(w, "| `%s` | %s | %s |\n", mdEscape(pr.Name), mdEscape(dash(strings.Join(args, ", "))), mdEscape(pr.Description))
		}
	}
	if len(p.Skills) > 0 {
		fmt.Fprintf(w, "\n## Skills (%d)\n\n", len(p.Skills))
		for _, k := range p.Skills {
			fmt.Fprintf(w, "- `%s`: %s\n", mdEscape(k.URI), mdEscape(k.Description()))
		}
	}
	if len(p.Extensions) > 0 {
		fmt.Fprintf(w, "\n**Extensions:** %s\n", mdEscape(strings.Join(p.Extensions, ", ")))
	}
	for _, pr := range p.Problems {
		fmt.Fprintf(w, "\n> Problem: %s\n", safe(pr))
	}
}

// writeApps lists the tools that have an MCP Apps view, each with what its view's
// resource says of itself (its problems are the tool's, listed with the tools).
func writeApps(w io.Writer, list *client.ToolList, views map[string]apps.View) {
	first := true
	for _, t := range list.Tools {
		if t.UI.ResourceURI == "" {
			continue
		}
		if first {
			fmt.Fprintln(w)
			first = false
		}
		line := fmt.Sprintf("app           %s → %s", t.Name, t.UI.ResourceURI)
		if t.UI.ModelHidden() {
			line += " (only the view calls it)"
		}
		if v, ok := views[t.UI.ResourceURI]; ok && v.Size > 0 {
			line += " (" + v.Summary() + ")"
		}
		fmt.Fprintln(w, safe(line))
	}
}
