package tui

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
)

func names(l *toolList) []string {
	var out []string
	for _, r := range l.rows {
		out = append(out, l.tools[r.tool].Name)
	}
	return out
}

func TestFilterRanksNamesFirstAndSearchesDescriptions(t *testing.T) {
	var l toolList
	l.setTools([]client.Tool{
		{Name: "image", Description: "Returns a log of images"},
		{Name: "catalog", Description: "Lists things"},
		{Name: "log", Description: "Sends log messages"},
		{Name: "logout", Description: "Ends the session"},
		{Name: "weather", Description: "Forecast from a blog feed"},
	})
	l.setFilter("log")
	got := names(&l)
	if len(got) < 4 || got[0] != "log" || got[1] != "logout" || got[2] != "catalog" {
		t.Fatalf("order = %v; want log, logout, catalog first", got)
	}
	if !strings.Contains(strings.Join(got, ","), "weather") {
		t.Errorf("a match in the description is missing: %v", got)
	}
	// The matched letters of the name are highlighted.
	if r := l.rows[0]; len(r.matched) != 3 {
		t.Errorf("highlight offsets = %v", r.matched)
	}
}

// Narrowing a filter one character at a time must give what a fresh search gives.
func TestIncrementalFilterEqualsFreshSearch(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"search", "fetch", "delete", "create", "list", "get", "set", "user", "issue", "file"}
	tools := make([]client.Tool, 500)
	for i := range tools {
		tools[i] = client.Tool{Name: fmt.Sprintf("%s_%s_%d", words[rng.Intn(10)], words[rng.Intn(10)], i),
			Description: "Does " + words[rng.Intn(10)] + " on the " + words[rng.Intn(10)]}
	}
	for _, filter := range []string{"sea", "fe_li", "delete", "usr", "on the f"} {
		var typed, fresh toolList
		typed.setTools(tools)
		fresh.setTools(tools)
		for i := 1; i <= len(filter); i++ {
			typed.setFilter(filter[:i])
		}
		fresh.setFilter(filter)
		if a, b := strings.Join(names(&typed), ","), strings.Join(names(&fresh), ","); a != b {
			t.Errorf("filter %q: typed and fresh results differ:\n%s\n%s", filter, a, b)
		}
	}
}

// enter on a filter that matches nothing keeps the keys with the list and says why:
// a tool that appears later (a server still connecting) must not get a form, and the
// keys typed meanwhile, under the user's fingers.
func TestOpenWithNothingSelectedStaysInTheList(t *testing.T) {
	h := ready(t, 120, 40)
	h.press("/")
	h.typeText("no-such-tool")
	h.press("enter", "enter")
	if h.m.focus != paneList {
		t.Fatalf("focus moved to %v with no tool selected", h.m.focus)
	}
	h.contains("no tool to open: none matches the filter")
	h.typeText("x") // a key for the list, not for a form
	if h.m.form != nil {
		t.Errorf("a form was opened for %q", h.m.formTool)
	}
}
