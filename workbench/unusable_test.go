package workbench_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// A server that can never start as it is (a config entry whose ${env:…} placeholder
// has no value) is held in the session as failed with its reason: Add takes it without
// a command or URL, and neither the first start, a restart, a disconnect and the
// request that follows, nor a call starts anything; each ends failed with the same
// reason, and the other server of the session is not disturbed. (Its Target here is
// a command that would leave a file behind, to prove that nothing ran.)
func TestUnusableServerStaysFailedAndNeverStarts(t *testing.T) {
	t.Parallel()
	ran := filepath.Join(t.TempDir(), "ran")
	var wireEvents atomic.Int64
	w := newBench(t, workbench.Options{OnWire: func(server string, e wire.Event) {
		if server == "gh" {
			wireEvents.Add(1)
		}
	}})
	rec := record(t, w)
	why := errors.New(`needs ${env:GITHUB_TOKEN} (the environment variable is not set)`)
	// Without a command or URL too: the reason is what the user needs to read.
	must(t, w.Add(workbench.Spec{Name: "empty", Unusable: why}))
	must(t, w.Add(workbench.Spec{Name: "gh", Unusable: why, Target: target.Target{Argv: []string{"sh", "-c", "touch " + ran + "; exec " + testutil.Mcpscope(t) + " host"}}}))
	must(t, w.Add(host(t, "ok")))

	failed := func(what string) {
		t.Helper()
		for _, name := range []string{"gh", "empty"} {
			st := wait(t, w, name)
			if st.State != workbench.StateFailed || !strings.Contains(st.Reason, "${env:GITHUB_TOKEN}") || !errors.Is(st.Err, why) {
				t.Fatalf("%s: %s is %q (%q, %v), want failed with the reason", what, name, st.State, st.Reason, st.Err)
			}
		}
	}
	failed("after Add")
	must(t, w.Restart("gh"))
	failed("after a restart")
	must(t, w.Disconnect("gh"))
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	_, err := w.Tools(ctx, "gh")
	var se *workbench.StatusError
	if !errors.As(err, &se) || !errors.Is(err, why) || !strings.Contains(err.Error(), "${env:GITHUB_TOKEN}") {
		t.Fatalf("a request after a disconnect: %v, want the failure with its reason", err)
	}
	failed("after a request reconnected it")
	if _, err := w.Call(ctx, workbench.ToolID{Server: "gh", Tool: "echo"}, []byte(`{}`), client.CallOptions{}); !errors.Is(err, why) {
		t.Fatalf("a call: %v, want the failure", err)
	}

	if st := wait(t, w, "ok"); st.State != workbench.StateConnected {
		t.Fatalf("the other server is %q (%s)", st.State, st.Reason)
	}
	if _, err := w.Tools(ctx, "ok"); err != nil {
		t.Fatalf("the other server's tools: %v", err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("the unusable server's command ran")
	}
	if n := wireEvents.Load(); n != 0 {
		t.Fatalf("the unusable server has %d wire events; nothing should have started", n)
	}
	for _, st := range rec.states("gh") {
		if st != workbench.StateFailed && st != workbench.StateIdle {
			t.Fatalf("the unusable server went through %q (states %v); it should only ever be failed", st, rec.states("gh"))
		}
	}
}
