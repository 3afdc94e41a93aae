package replay_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// recordEverything records a real session with server-everything (`mcpscope call echo
// --record`): its tools/list is answered after a notifications/tools/list_changed (the
// server registers its conditional tools once initialized), so the recording holds
// the notification inside the tools/list exchange.
func recordEverything(t *testing.T, bin string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "everything.jsonl")
	args := append([]string{"call", "echo", "message=hi", "--record", file, "--"}, testutil.Everything(t)...)
	cmd := exec.CommandContext(testutil.Context(t), bin, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("recording server-everything: %v\n%s", err, out)
	}
	testutil.WaitFile(t, file, "notifications/tools/list_changed")
	return file
}

// mockClient drives `mcpscope serve FILE` over stdio as a client that re-lists
// whenever the server says the list changed (the workbench does).
type mockClient struct {
	t     *testing.T
	in    io.WriteCloser
	out   *bufio.Scanner
	ids   int
	stop  func()
	lines []string // every frame read, for the failure message
}

// lockedBuffer is serve's stderr: written by exec's copier, read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startServe(t *testing.T, bin string, args ...string) (*mockClient, *lockedBuffer) {
	t.Helper()
	cmd := exec.CommandContext(testutil.Context(t), bin, append([]string{"serve"}, args...)...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &mockClient{t: t, in: in, out: bufio.NewScanner(out)}
	c.out.Buffer(make([]byte, 0, 1<<20), 64<<20)
	c.stop = func() {
		in.Close()
		cmd.Wait()
	}
	t.Cleanup(c.stop)
	return c, stderr
}

func (c *mockClient) send(method, params string) int {
	c.t.Helper()
	c.ids++
	if params == "" {
		params = "{}"
	}
	if _, err := fmt.Fprintf(c.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", c.ids, method, params); err != nil {
		c.t.Fatalf("writing %s: %v", method, err)
	}
	return c.ids
}

func (c *mockClient) notify(method string) {
	fmt.Fprintf(c.in, `{"jsonrpc":"2.0","method":%q}`+"\n", method)
}

type frame struct {
	ID     *int            `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	raw    string
}

// read returns the next frame; the test fails when serve stops first (the test's hang
// guard kills it).
func (c *mockClient) read() frame {
	c.t.Helper()
	if !c.out.Scan() {
		c.t.Fatalf("serve ended before answering (%v); frames read:\n%s", c.out.Err(), strings.Join(c.lines, "\n"))
	}
	line := c.out.Text()
	c.lines = append(c.lines, line)
	var f frame
	if err := json.Unmarshal([]byte(line), &f); err != nil {
		c.t.Fatalf("serve wrote a frame that is not JSON: %q", line)
	}
	f.raw = line
	return f
}

// answer reads frames until the response to id; the notifications before it are
// returned too.
func (c *mockClient) answer(id int) (frame, []frame) {
	c.t.Helper()
	var notes []frame
	for {
		f := c.read()
		if f.ID != nil && f.Method == "" && *f.ID == id {
			return f, notes
		}
		if f.Method != "" && f.ID == nil {
			notes = append(notes, f)
		}
	}
}

// Issue 20 item A: a recorded notifications/tools/list_changed was sent before every
// tools/list answer, so a client that re-lists on it spun (the workbench: over 1,000
// frames a second). The notification is replayed once, with the first answer from the
// exchange it was recorded in; the client's re-list gets the list alone.
func TestServeReplaysListChangedOnce(t *testing.T) {
	bin := testutil.Mcpscope(t)
	file := recordEverything(t, bin)
	c, stderr := startServe(t, bin, file)
	if r, _ := c.answer(c.send("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"relister","version":"1"}}`)); r.Result == nil {
		t.Fatalf("initialize: %s", r.raw)
	}
	c.notify("notifications/initialized")
	// Re-list on every list_changed, as a client does, up to a bound a spinning mock
	// reaches at once; then a ping, whose answer comes after everything before it.
	const bound = 50
	lists, changed := 0, 0
	pending := c.send("tools/list", "")
	for pending != 0 {
		r, notes := c.answer(pending)
		if !strings.Contains(string(r.Result), `"echo"`) {
			t.Fatalf("tools/list answered without the recorded tools: %s", r.raw)
		}
		lists++
		pending = 0
		for _, n := range notes {
			if n.Method == "notifications/tools/list_changed" {
				changed++
				if lists < bound {
					pending = c.send("tools/list", "")
				}
			}
		}
	}
	if r, _ := c.answer(c.send("ping", "")); r.Result == nil {
		t.Fatalf("ping: %s", r.raw)
	}
	if changed != 1 || lists != 2 {
		t.Errorf("the client listed %d times and got %d list_changed notifications; want the recorded one once (2 lists: the first and the re-list)\nserve's stderr:\n%s", lists, changed, stderr)
	}
}

// Issue 20 item A: a call with other arguments than any recorded one is answered with
// the closest recorded answer, and serve says so on its stderr and in the answer's
// _meta, so that a client of the mock can tell.
func TestServeSaysWhenTheArgumentsDiffer(t *testing.T) {
	bin := testutil.Mcpscope(t)
	file := recordEverything(t, bin)
	c, stderr := startServe(t, bin, file)
	c.answer(c.send("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`))
	c.notify("notifications/initialized")

	r, _ := c.answer(c.send("tools/call", `{"name":"echo","arguments":{"message":"hi"}}`))
	if !strings.Contains(string(r.Result), "Echo: hi") || strings.Contains(string(r.Result), "io.mcpscope/mock") {
		t.Errorf("the recorded call: %s", r.raw)
	}
	r, _ = c.answer(c.send("tools/call", `{"name":"echo","arguments":{"message":"something else"}}`))
	var res struct {
		Content []struct{ Text string }
		Meta    struct {
			Mock struct{ Note, AnsweredAs string } `json:"io.mcpscope/mock"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil || len(res.Content) != 1 || res.Content[0].Text != "Echo: hi" {
		t.Fatalf("other arguments: %v %s", err, r.raw)
	}
	if !strings.Contains(res.Meta.Mock.Note, "no recorded tools/call echo has these arguments") || res.Meta.Mock.AnsweredAs != `tools/call echo {"message":"hi"}` {
		t.Errorf("the answer does not say its arguments differ: %s", r.raw)
	}
	testutil.Eventually(t, "serve's notice on stderr", func() (bool, string) {
		s := stderr.String()
		return strings.Contains(s, `tools/call echo {"message":"something else"}: no recorded request has these params; answered as recorded for tools/call echo {"message":"hi"}`), s
	})
}
