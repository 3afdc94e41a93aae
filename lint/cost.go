package lint

import (
	"slices"

	"github.com/mcpscope/mcpscope/internal/cost"
	"github.com/mcpscope/mcpscope/surface"
)

// TokenizerName names what token counts are (package internal/cost says why
// o200k_base, and that it is an estimate for other model families).
const TokenizerName = cost.TokenizerName

// Tokens counts s in o200k_base.
func Tokens(s string) int { return cost.Tokens(s) }

// Cost is what one definition (or a whole server) puts into a model's context
// (package internal/cost says what is counted).
type Cost = cost.Cost

// costs are every definition's cost, heaviest first, and their total, tokens counted.
func costs(s *surface.Surface) ([]Cost, Cost) { return Measure(s, true) }

// Measure is every definition's cost, heaviest first, and their total. Without
// tokens it counts bytes only (Tokens 0, the heaviest by bytes) and never loads the
// tokenizer.
func Measure(s *surface.Surface, tokens bool) ([]Cost, Cost) {
	if s == nil {
		return nil, Cost{Object: cost.Server}
	}
	var out []Cost
	for _, t := range s.Tools {
		out = append(out, cost.OfTool(t, tokens))
	}
	for _, p := range s.Prompts {
		out = append(out, cost.OfPrompt(p.Key, p.Raw, tokens))
	}
	for _, t := range s.Templates {
		out = append(out, cost.OfTemplate(t.Key, t.Raw, tokens))
	}
	slices.SortStableFunc(out, func(a, b Cost) int {
		if d := b.Tokens - a.Tokens; d != 0 {
			return d
		}
		return b.Bytes - a.Bytes
	})
	total := Cost{Object: cost.Server, Name: s.Server}
	for _, c := range out {
		total.Add(c)
	}
	return out, total
}
