package wire

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// A request that is pending but not yet written when a Content-Length restart begins
// (its write waits for the restart's lock) is resent by the restart, and its own write
// then sends nothing: it had gone out twice, and the bundled host answered the second
// initialize "duplicate initialize request" and ended the session (round 26,
// TestInspectContentLengthHostInAutoFraming on a loaded machine). The race is set up
// by hand: the request is made pending as Write makes it, the restart runs, then the
// request's own write.
func TestARequestResentByARestartIsNotWrittenAgain(t *testing.T) {
	out := filepath.Join(t.TempDir(), "stdin")
	tr := NewStdio(StdioOptions{Argv: []string{"/bin/sh", "-c", `exec cat >>"$0"`, out}, Grace: 100 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := tr.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := conn.(*StdioConn)

	id, _ := jsonrpc.MakeID(float64(7))
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Request{ID: id, Method: "initialize"})
	if err != nil {
		t.Fatal(err)
	}
	pr := &pendingRequest{id: id, method: "initialize", data: data, numeric: true}
	c.mu.Lock()
	c.pending[idKey(id)] = pr
	c.order = append(c.order, idKey(id))
	c.mu.Unlock()
	c.restartContentLength("the test's restart")
	if err := c.writeFrame(ctx, data, false, pr); err != nil {
		t.Fatal(err)
	}
	// A last request after it: once it is in the file, so is everything before it.
	last, _ := jsonrpc.MakeID(float64(8))
	if err := conn.Write(ctx, &jsonrpc.Request{ID: last, Method: "ping"}); err != nil {
		t.Fatal(err)
	}
	var got string
	testutil.Eventually(t, "the last request to reach the server", func() (bool, string) {
		b, _ := os.ReadFile(out)
		got = string(b)
		return strings.Contains(got, `"method":"ping"`), got
	})
	if n := strings.Count(got, `"method":"initialize"`); n != 1 {
		t.Errorf("the new process read the initialize %d times:\n%s", n, got)
	}
}
