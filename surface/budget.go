package surface

import (
	"fmt"
	"strconv"
	"strings"
)

// Budget is diff's cost check (`--fail-on budget:+10%`, `budget:+N`): what the new
// side's definitions cost a model's context against the old side's, in tokens. The
// kinds counted are those both sides know (a saved file without prompts against a
// live server with some is not a growth of the prompts' cost). The figures are
// package lint's (cmd fills them: lint imports this package).
type Budget struct {
	Limit     string   `json:"limit"` // as given: "+10%" or "+500" (tokens)
	Counted   []string `json:"counted"`
	Tokenizer string   `json:"tokenizer"`
	OldTokens int      `json:"oldTokens"`
	NewTokens int      `json:"newTokens"`
	OldBytes  int      `json:"oldBytes"`
	NewBytes  int      `json:"newBytes"`
	Over      bool     `json:"over"`

	percent bool
	amount  float64
}

// FailOnBudget is the prefix of a budget in --fail-on.
const FailOnBudget = "budget:"

// ParseFailOn reads --fail-on: one class (breaking, any, none) and/or one budget,
// separated by a comma ("breaking,budget:+10%"). A budget alone fails on the budget
// only (the class is none); nothing but a class keeps diff's behaviour.
func ParseFailOn(v string) (class string, b *Budget, err error) {
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == FailOnBreaking || part == FailOnAny || part == FailOnNone:
			if class != "" {
				return "", nil, fmt.Errorf("--fail-on %q: give one of breaking, any or none", v)
			}
			class = part
		case strings.HasPrefix(part, FailOnBudget):
			if b != nil {
				return "", nil, fmt.Errorf("--fail-on %q: give one budget", v)
			}
			if b, err = parseBudget(strings.TrimPrefix(part, FailOnBudget)); err != nil {
				return "", nil, err
			}
		default:
			return "", nil, fmt.Errorf("--fail-on %q: use breaking, any or none, and/or budget:+N%% (growth in percent of A's tokens) or budget:+N (tokens), e.g. --fail-on breaking,budget:+10%%", v)
		}
	}
	if class == "" {
		class = FailOnNone
	}
	return class, b, nil
}

func parseBudget(s string) (*Budget, error) {
	b := &Budget{Limit: s}
	n := strings.TrimPrefix(s, "+")
	if strings.HasSuffix(n, "%") {
		b.percent, n = true, strings.TrimSuffix(n, "%")
	}
	f, err := strconv.ParseFloat(n, 64)
	if err != nil || f < 0 || n == "" || strings.HasPrefix(n, "+") || strings.HasPrefix(n, "-") || (!b.percent && f != float64(int(f))) {
		return nil, fmt.Errorf("--fail-on budget:%s: give budget:+N%% (the most B's definitions may grow, in percent of A's tokens) or budget:+N (in tokens), such as budget:+10%% or budget:+500", s)
	}
	if !strings.HasPrefix(s, "+") {
		b.Limit = "+" + s
	}
	b.amount = f
	return b, nil
}

// Judge sets the figures and whether the new side is over the budget.
func (b *Budget) Judge(oldTokens, newTokens, oldBytes, newBytes int) {
	b.OldTokens, b.NewTokens, b.OldBytes, b.NewBytes = oldTokens, newTokens, oldBytes, newBytes
	grown := float64(newTokens - oldTokens)
	if b.percent {
		b.Over = grown > float64(oldTokens)*b.amount/100
		if oldTokens == 0 {
			b.Over = newTokens > 0
		}
	} else {
		b.Over = grown > b.amount
	}
}

// Line is the budget's verdict for people: "cost: 1,943 → 2,201 tokens (+13.3%;
// 8,466 → 9,520 bytes; o200k_base; tools, prompts) OVER the budget of +10%".
func (b *Budget) Line() string {
	change := fmt.Sprintf("%+d", b.NewTokens-b.OldTokens)
	if b.OldTokens > 0 {
		change = fmt.Sprintf("%+.1f%%", 100*float64(b.NewTokens-b.OldTokens)/float64(b.OldTokens))
	}
	verdict := "within"
	if b.Over {
		verdict = "OVER"
	}
	return fmt.Sprintf("cost: %s → %s tokens (%s; %s → %s bytes; %s; counted: %s) %s the budget of %s",
		thousands(b.OldTokens), thousands(b.NewTokens), change, thousands(b.OldBytes), thousands(b.NewBytes),
		b.Tokenizer, strings.Join(b.Counted, ", "), verdict, b.Limit)
}

func thousands(n int) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
