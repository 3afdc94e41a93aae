package tui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/cost"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// TestServersViewAndToolListShowCost: the Servers view says what each server's tools
// cost a model's context (the measure lint and --inspect use, in bytes); :cost puts a
// column in the tool list with each tool's o200k_base tokens, and the servers' totals
// gain their tokens; :cost again takes it away; an edited tool file is measured anew.
func TestServersViewAndToolListShowCost(t *testing.T) {
	dir := t.TempDir()
	small, big := filepath.Join(dir, "small.json"), filepath.Join(dir, "big.json")
	write := func(p, body string) {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(small, `{"tools":[{"name":"ping","description":"Pings.","inputSchema":{"type":"object"},"run":["/bin/echo","pong"]}]}`)
	write(big, `{"tools":[{"name":"search_everything","description":"`+strings.Repeat("Searches every document of the workspace for a word. ", 20)+`","inputSchema":{"type":"object","properties":{"word":{"type":"string"}}},"run":["/bin/echo","found"]}]}`)
	bin := testutil.Mcpscope(t)
	h := newHarnessWith(t, Options{Servers: []workbench.Spec{
		{Name: "small", Target: target.Target{Argv: []string{bin, "host", "--tools", small}}},
		{Name: "big", Target: target.Target{Argv: []string{bin, "host", "--tools", big}}},
	}, Theme: "dark"}, 200, 40)
	h.until("both tool lists", func(m *model) bool {
		_, a := m.toolByName("small", "ping")
		_, b := m.toolByName("big", "search_everything")
		return a && b
	})
	// What the user must read: the figures of the one measure.
	want := func(name, server string, tokens bool) cost.Cost {
		t.Helper()
		tl, ok := h.m.toolByName(server, name)
		if !ok {
			t.Fatalf("no tool %s/%s", server, name)
		}
		return cost.OfTool(tl, tokens)
	}
	pingB, bigB := want("ping", "small", false), want("search_everything", "big", false)
	h.press("7")
	h.until("the servers' costs", func(m *model) bool { return len(m.lint.cost.servers) == 2 })
	h.contains("tools cost "+sizeOf(pingB.Bytes), "tools cost "+sizeOf(bigB.Bytes))
	if strings.Contains(h.screen(), " tok)") {
		t.Errorf("tokens counted without being asked:\n%s", h.screen())
	}

	// :cost: each tool's tokens in the list, and the totals' tokens too.
	h.press(":")
	h.typeText("cost")
	h.press("enter")
	h.until("the tokens", func(m *model) bool { return m.lint.cost.tokens && m.list.costTokens })
	pingT, bigT := want("ping", "small", true), want("search_everything", "big", true)
	if bigT.Tokens < 100 || pingT.Tokens == 0 {
		t.Fatalf("tokens: ping %d, search_everything %d", pingT.Tokens, bigT.Tokens)
	}
	h.contains("tools cost " + sizeOf(bigB.Bytes) + " " + thousands(bigT.Tokens) + " tok")
	rowOf := func(name string) string {
		for _, l := range strings.Split(h.screen(), "\n") {
			if strings.Contains(l, name) && regexp.MustCompile(`\d+ tok│`).MatchString(l) {
				return l
			}
		}
		return ""
	}
	if r := rowOf("big/search_"); !strings.Contains(r, " "+thousands(bigT.Tokens)+" tok│") {
		t.Errorf("search_everything's row lacks its %d tokens:\n%s", bigT.Tokens, h.screen())
	}
	if r := rowOf("small/ping"); !strings.Contains(r, " "+thousands(pingT.Tokens)+" tok│") {
		t.Errorf("ping's row lacks its %d tokens:\n%s", pingT.Tokens, h.screen())
	}

	// An edit of a tool file is measured anew.
	write(small, `{"tools":[{"name":"ping","description":"Pings the server and says how long it took, in milliseconds.","inputSchema":{"type":"object"},"run":["/bin/echo","pong"]}]}`)
	h.press(":")
	h.typeText("restart small")
	h.press("enter")
	h.until("the longer ping measured", func(m *model) bool {
		tl, ok := m.toolByName("small", "ping")
		c, measured := m.list.costs["small\x00ping"]
		return ok && strings.Contains(tl.Description, "milliseconds") && measured && c == cost.OfTool(tl, true)
	})
	h.contains("tools cost " + sizeOf(cost.OfTool(must(h.m.toolByName("small", "ping")), false).Bytes))

	h.press(":")
	h.typeText("cost")
	h.press("enter")
	h.until("the column gone", func(m *model) bool { return m.list.costs == nil })
	if rowOf("big/search_") != "" {
		t.Errorf("the cost column stayed:\n%s", h.screen())
	}
}

func must[T any](v T, ok bool) T {
	if !ok {
		panic("not found")
	}
	return v
}

// TestResultAndHistorySayWhatACallPutIntoTheContext: Result's heading and History's
// row give the result's size as received, what the call put into a model's context;
// a longer answer says more.
func TestResultAndHistorySayWhatACallPutIntoTheContext(t *testing.T) {
	h := ready(t, 120, 40)
	h.call("echo", `{"text":"short"}`)
	h.call("echo", `{"text":"`+strings.Repeat("a much longer answer ", 100)+`"}`)
	short, long := len(h.m.calls[0].result.Raw), len(h.m.calls[1].result.Raw)
	if long < short+2000 {
		t.Fatalf("results of %d and %d bytes", short, long)
	}
	h.press("2")
	h.contains("echo  Nms  " + sizeOf(long) + " into the context")
	h.press("6")
	for _, n := range []int{short, long} {
		if !regexp.MustCompile(`ok  echo  \{"text":".*  ` + regexp.QuoteMeta(sizeOf(n)) + ` *│`).MatchString(h.screen()) {
			t.Errorf("no History row ends with %s:\n%s", sizeOf(n), h.screen())
		}
	}
}
