package workbench_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/workbench"
)

// A server added idle (mcpscope attach's own session to a tapped server) runs nothing
// until its first request, which connects it.
func TestAddIdleStartsNothingUntilARequest(t *testing.T) {
	pidfile, env := testutil.PIDFile(t)
	w := newBench(t, workbench.Options{Client: base()})
	sp := fake(t, "a", "ndjson", env)
	sp.Idle = true
	must(t, w.Add(sp))
	st, _ := w.Status("a")
	if st.State != workbench.StateIdle || !strings.Contains(st.Reason, "first request connects it") {
		t.Fatalf("a server added idle: %+v", st)
	}
	if b, err := os.ReadFile(pidfile); err == nil || !os.IsNotExist(err) {
		t.Fatalf("a server added idle started a process: its pid file holds %q (%v)", b, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	r, err := w.Call(ctx, workbench.ToolID{Server: "a", Tool: "echo"}, []byte(`{"message":"first"}`), client.CallOptions{})
	if err != nil || !strings.Contains(string(r.Raw), "first") {
		t.Fatalf("the first call: %+v %v", r, err)
	}
	if n := len(testutil.PIDs(t, pidfile)); n != 1 {
		t.Fatalf("%d processes started by the first call, want 1", n)
	}
	w.Close()
	testutil.AssertGone(t, pidfile, 1)
}
