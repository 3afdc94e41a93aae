package tui

import (
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client/wire"
)

func TestTrafficSummaryShowsStrayResponses(t *testing.T) {
	data := []byte(`{"jsonrpc":"2.0","id":424242,"result":{}}`)
	e := wire.Event{Kind: wire.KindMessage, Dir: wire.Recv, Data: data, Head: wire.ParseHead(data), Stray: true, Text: "never sent"}
	if got := summarize(e); !strings.HasPrefix(got, "stray result for #424242") {
		t.Errorf("summary = %q", got)
	}
	e.Stray = false
	if got := summarize(e); strings.Contains(got, "stray") {
		t.Errorf("summary = %q", got)
	}
}
