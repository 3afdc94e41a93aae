package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/cost"
)

// costs are what the tool lists put into a model's context (package internal/cost,
// the measure lint and --inspect use): each server's total, shown in the Servers
// view, and each tool's, shown in the tool list's cost column (off by default;
// :cost toggles it). They are measured in a command, never in Update (a list can
// hold 10,000 tools), again whenever a list changes. Bytes always; tokens only
// while the column is on, since the tokenizer's first load (about 130 ms and tens of
// MB) is for those who asked.
type costs struct {
	of, running string               // the lists (and whether tokens were counted) measured, and being measured
	servers     map[string]cost.Cost // by server name: its tools' total
	tools       map[string]cost.Cost // by server\x00tool
	tokens      bool                 // the figures include tokens
	column      bool                 // the tool list shows a cost column
}

// costMsg is a finished measure of the lists key names.
type costMsg struct {
	key     string
	tokens  bool
	servers map[string]cost.Cost
	tools   map[string]cost.Cost
}

func (msg costMsg) handle(m *model) tea.Cmd {
	c := &m.lint.cost
	if msg.key != c.running {
		return nil // the lists changed meanwhile: the newer measure's answer is the one
	}
	c.of, c.running = msg.key, ""
	c.servers, c.tools, c.tokens = msg.servers, msg.tools, msg.tokens
	m.list.costs, m.list.costTokens = nil, false
	if c.column {
		m.list.costs, m.list.costTokens = c.tools, c.tokens
	}
	return nil
}

// ensureCosts starts a measure when the tool lists (or whether tokens are wanted)
// differ from what was measured and none is under way for them: after every message
// (Update), cheap otherwise (a key of the lists' identities, as the Lint view's).
func (m *model) ensureCosts() tea.Cmd {
	c := &m.lint.cost
	k := m.lintKey() + "tokens=" + strconv.FormatBool(c.column)
	if k == c.of || k == c.running {
		return nil
	}
	c.running = k
	type list struct {
		name  string
		tools []client.Tool
	}
	var lists []list
	for _, s := range m.servers {
		if s.snap.Tools != nil {
			lists = append(lists, list{s.name, s.tools()}) // a snapshot's list is never changed, only replaced
		}
	}
	tokens := c.column
	return func() tea.Msg {
		msg := costMsg{key: k, tokens: tokens, servers: map[string]cost.Cost{}, tools: map[string]cost.Cost{}}
		for _, l := range lists {
			total := cost.Cost{Object: cost.Server, Name: l.name}
			for _, t := range l.tools {
				tc := cost.OfTool(t, tokens)
				total.Add(tc)
				msg.tools[l.name+"\x00"+t.Name] = tc
			}
			msg.servers[l.name] = total
		}
		return msg
	}
}

// toggleCostColumn is :cost: the tool list's cost column on or off.
func (m *model) toggleCostColumn() {
	c := &m.lint.cost
	c.column = !c.column
	m.list.costs, m.list.costTokens = nil, false
	if c.column {
		m.notice = "cost column on: each tool's tokens (o200k_base, an estimate for other models), bytes until they are counted; :cost hides it"
		m.list.costs, m.list.costTokens = c.tools, c.tokens
	} else {
		m.notice = "cost column off"
	}
}

// serverCost is a server's tools' cost as the Servers view shows it: "8.3 KB" or
// "8.3 KB 1,943 tok"; "" until measured.
func (m *model) serverCost(name string) string {
	c, ok := m.lint.cost.servers[name]
	if !ok {
		return ""
	}
	s := sizeOf(c.Bytes)
	if m.lint.cost.tokens {
		s += " " + thousands(c.Tokens) + " tok"
	}
	return s
}

// costCell is one tool's cost in the list's column: tokens when counted, else bytes.
func costCell(c cost.Cost, tokens bool) string {
	if tokens {
		return thousands(c.Tokens) + " tok"
	}
	return sizeOf(c.Bytes)
}

// resultSize is a call result's size as Result and History show it: what the call
// put into a model's context, in bytes (the result object as received; "-" when
// there is none). Its length is known, so it costs nothing to show; tokens are not
// counted for results (a result can be 100 MiB).
func resultSize(n int) string {
	if n < 0 {
		return "-"
	}
	return sizeOf(n)
}

// minSizeWidth is the narrowest History row that shows a result's size.
const minSizeWidth = 68

// withSize puts a result's size (n bytes, none when n < 0) at the right edge of a
// History row width wide, the arguments cut to leave it room; a narrower row keeps
// the arguments instead.
func withSize(row string, n, width int) string {
	if n < 0 || width < minSizeWidth {
		return row
	}
	sz := resultSize(n)
	row = truncate(row, width-len(sz)-2)
	return row + strings.Repeat(" ", max(width-ansi.StringWidth(row)-len(sz), 2)) + sz
}

// sizeOf is n bytes for a person: 812 B, 8.3 KB, 1.2 MB.
func sizeOf(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// thousands writes n with a comma every three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
