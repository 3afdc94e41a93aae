package inspect

import (
	"fmt"
	"io"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/cost"
)

// CostJSON is what definitions put into a model's context, as package internal/cost
// (and so lint) counts it (a tool's name, description and input schema as compact JSON; a prompt's name,
// description and arguments; a template's uriTemplate, name, title, description and
// mimeType): bytes always, of which the descriptions and the schemas; tokens only
// when asked (--tokens), with the tokenizer that counted them.
type CostJSON struct {
	Counted     string `json:"counted,omitempty"` // what the total covers: "tools, prompts, resource templates"
	Bytes       int    `json:"bytes"`
	Description int    `json:"descriptionBytes"`
	Schema      int    `json:"schemaBytes"`
	Tokens      *int   `json:"tokens,omitempty"`
	Tokenizer   string `json:"tokenizer,omitempty"`
}

func costJSON(c cost.Cost, tokens bool) *CostJSON {
	j := &CostJSON{Bytes: c.Bytes, Description: c.Description, Schema: c.Schema}
	if tokens {
		n := c.Tokens
		j.Tokens, j.Tokenizer = &n, cost.TokenizerName
	}
	return j
}

// serverCost is the total cost of a server's tools, and of its prompts and
// templates when p lists them (p nil: a section of several servers, which lists
// tools only), and what it covers.
func serverCost(list *client.ToolList, p *Primitives, tokens bool) *CostJSON {
	var total cost.Cost
	for _, t := range list.Tools {
		total.Add(cost.OfTool(t, tokens))
	}
	counted := "tools"
	if p != nil {
		for _, pr := range p.Prompts {
			total.Add(cost.OfPrompt(pr.Name, pr.Raw, tokens))
		}
		for _, t := range p.Templates {
			total.Add(cost.OfTemplate(t.URITemplate, t.Raw, tokens))
		}
		counted = "tools, prompts, resource templates"
	}
	j := costJSON(total, tokens)
	j.Counted = counted
	return j
}

// addCosts fills the report's cost and each tool's.
func addCosts(r *Report, list *client.ToolList, p *Primitives, tokens bool) {
	r.Cost = serverCost(list, p, tokens)
	for i := range r.Tools {
		if i < len(list.Tools) {
			r.Tools[i].Cost = costJSON(cost.OfTool(list.Tools[i], tokens), tokens)
		}
	}
}

// costLine is the cost as one line for people: "8,466 bytes of tools, prompts,
// resource templates (descriptions 1,502, schemas 6,020); 1,943 tokens (o200k_base,
// an estimate for other model families)".
func costLine(c *CostJSON) string {
	s := fmt.Sprintf("%s bytes of %s (descriptions %s, schemas %s)", thousands(c.Bytes), c.Counted, thousands(c.Description), thousands(c.Schema))
	if c.Tokens != nil {
		return s + fmt.Sprintf("; %s tokens (%s, an estimate for other model families)", thousands(*c.Tokens), c.Tokenizer)
	}
	return s + "; --tokens counts tokens"
}

func writeCostTable(w io.Writer, c *CostJSON) {
	if c != nil {
		fmt.Fprintf(w, "cost          %s\n", costLine(c))
	}
}

// thousands writes n with a comma every three digits.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
