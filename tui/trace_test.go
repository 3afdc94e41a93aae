package tui

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// Trace context in the workbench, against a TS SDK v2 server
// (interop/ts-trace-server.mjs): the session's --traceparent reaches the server on
// the workbench's requests too, and a traceparent the server sends (in a log
// message's _meta) is badged in Traffic with its trace id.
func TestTrafficShowsAServersTraceparent(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed: %v", err)
	}
	const ours = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	spec := workbench.Spec{Name: "ts", Target: target.Target{Argv: []string{node, filepath.Join(testutil.Root(), "interop", "ts-trace-server.mjs")}}}
	h := newHarnessWith(t, Options{Servers: []workbench.Spec{spec}, Client: client.Options{TraceParent: ours}}, 160, 40)
	h.until("connected", func(m *model) bool { return len(m.list.tools) == 2 })
	h.call("seen", `{}`)
	if got := string(h.m.calls[0].result.Raw); !strings.Contains(got, `\"method\":\"tools/call\",\"traceparent\":\"`+ours+`\"`) {
		t.Errorf("the server saw: %s", got)
	}
	h.call("traced", `{}`)
	h.press("3")
	// The harness's screen masks long hex runs; the row's text has the trace id.
	h.until("the badge on the server's log message", screenHas(h, "notifications/message  ⌁ trace <hex>"))
	if n := sentWith(h.m, "tools/call"); n != 2 {
		t.Errorf("%d calls in Traffic, want 2", n)
	}
	found := false
	for i := 0; i < h.m.traffic.entries.Len(); i++ {
		if h.m.traffic.entries.At(i).summary == "notifications/message  ⌁ trace 0af7651916cd43dd8448eb211c80319c" {
			found = true
		}
	}
	if !found {
		t.Error("no Traffic row names the server's trace id 0af7651916cd43dd8448eb211c80319c")
	}
	if strings.Contains(h.screen(), "tools/call #") && strings.Count(h.screen(), "⌁ trace") != 1 {
		t.Errorf("more than the server's message is badged (what mcpscope sent is not):\n%s", h.screen())
	}
}
