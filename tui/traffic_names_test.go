package tui

import (
	"regexp"
	"strings"
	"testing"
)

var bigCallRow = regexp.MustCompile(`tools/call #(\d+) big`)

// Issue 22 move 2: Traffic names a response over 1 MiB by the request it answers,
// from what the wire layer parsed of the frame, and a search for its id finds it.
// Before, a frame over 1 MiB was not looked into: "message (2.0 MiB)", and /#N
// found only the request.
func TestTrafficNamesABigResult(t *testing.T) {
	h := ready(t, 120, 30)
	h.selectTool("big")
	h.press("enter") // into the form
	h.m.form.SetValue([]byte(`{"megabytes":2}`))
	h.press("enter") // call
	h.until("the big result", func(m *model) bool { return m.current != nil && !m.current.running })
	h.until("the traffic so far", h.caughtUp)
	h.press("3")
	call := bigCallRow.FindStringSubmatch(h.screen())
	if call == nil {
		t.Fatalf("Traffic shows no tools/call of big:\n%s", h.screen())
	}
	id := call[1]
	h.press("/")
	h.typeText("#" + id)
	h.press("enter")
	s := h.screen()
	if !strings.Contains(s, "result for #"+id) {
		t.Errorf("the query #%s does not find the 2 MiB result as \"result for #%s\":\n%s", id, id, s)
	}
	if strings.Contains(s, "message (") {
		t.Errorf("a frame is named only by its size:\n%s", s)
	}
}
