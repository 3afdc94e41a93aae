package client_test

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/host"
)

// On 2026-07-28 HTTP the tasks methods name their task in Mcp-Name (SEP-2663), as
// tools/call names its tool: a gateway routes on the header, and a server may refuse a
// tasks/get whose header names another task.
func TestTasksMethodsNameTheirTask(t *testing.T) {
	t.Parallel()
	h, err := host.New(host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h.HTTPHandler())
	defer srv.Close()
	s, rec := connectURL(t, client.Target{URL: srv.URL + "/mcp"}, client.Options{})
	if d := s.TaskDialect(); d != client.Tasks2026 {
		t.Fatalf("dialect %q", d)
	}
	_, task, err := s.StartTask(ctx(t), "research", json.RawMessage(`{"topic":"long","delayMs":10000}`), 0)
	if err != nil || task == nil {
		t.Fatalf("start: %+v, %v", task, err)
	}
	if _, err := s.GetTask(ctx(t), task.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CancelTask(ctx(t), task.ID); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range rec.requests() {
		m := e.HTTP.Header.Get("Mcp-Method")
		if m != "tasks/get" && m != "tasks/cancel" {
			continue
		}
		seen[m] = true
		if got := e.HTTP.Header.Get("Mcp-Name"); got != task.ID {
			t.Errorf("%s carried Mcp-Name %q, want the task id %q", m, got, task.ID)
		}
	}
	if !seen["tasks/get"] || !seen["tasks/cancel"] {
		t.Errorf("requests seen: %v", seen)
	}
}
