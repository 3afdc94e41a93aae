package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
)

// The open dialogs as the tests look for them (nil when none is open).

func elicitOf(m *model) *elicitDialog     { return findDialog[*elicitDialog](&m.dialogs) }
func samplingOf(m *model) *samplingDialog { return findDialog[*samplingDialog](&m.dialogs) }
func questionOf(m *model) *question       { return findDialog[*question](&m.dialogs) }
func helpOf(m *model) *helpScreen         { return findDialog[*helpScreen](&m.dialogs) }
func cmdOf(m *model) *cmdLine             { return findDialog[*cmdLine](&m.dialogs) }

// The dialogs are one stack: one that opens while another is up comes in front of
// it, gets the keys and is drawn; the one behind is named, and is back in front
// when the front one closes. Before, the help stayed on the screen when a server's
// request for input came, while the keys went, unseen, to the request's form.
func TestDialogInFrontGetsTheKeysAndIsDrawn(t *testing.T) {
	h := ready(t, 120, 40)
	h.press("?")
	h.contains("Keys", "any other key closes this help")

	reply := make(chan client.ElicitResponse, 1)
	h.update(elicitMsg{id: -1, server: "bundled host", reply: reply, req: client.ElicitRequest{Message: "Your name, please?",
		Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","title":"Name"}}}`)}})
	h.contains("asks for input", "Your name, please?", "behind this: Keys (help)")
	if s := h.screen(); strings.Contains(s, "any other key closes this help") {
		t.Fatalf("the help is drawn over the request that has the keys:\n%s", s)
	}
	h.typeText("Ada")
	h.contains("Ada")
	h.press("enter")
	select {
	case r := <-reply:
		if r.Action != "accept" || !strings.Contains(string(r.Content), `"Ada"`) {
			t.Fatalf("the request was answered %+v", r)
		}
	default:
		t.Fatalf("enter did not answer the request; screen:\n%s", h.screen())
	}
	h.contains("Keys", "any other key closes this help") // back in front
	h.press("esc")
	if s := h.screen(); strings.Contains(s, "any other key closes this help") {
		t.Fatalf("esc did not close the help:\n%s", s)
	}
}
