package tui

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/tap/live"
	"github.com/mcpscope/mcpscope/workbench"
)

// tapFeed is a live tap as the tap command makes one: a Publisher beside the tap's
// recording file, both written through one tee. Its lines come from a real session's
// recording (mcpscope call against the bundled host, --record), fed in steps so that
// a test sees the stream live.
type tapFeed struct {
	lines []string
	tee   io.Writer
	pub   *live.Publisher
	next  int
}

func newTapFeed(t *testing.T, name string, argv []string, text string) *tapFeed {
	t.Helper()
	bin := testutil.Mcpscope(t)
	src := filepath.Join(t.TempDir(), "session.jsonl")
	if out, err := exec.Command(bin, "call", "echo", "text="+text, "--record", src, "--", bin, "host").CombinedOutput(); err != nil {
		t.Fatalf("recording a real session: %v\n%s", err, out)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(t.TempDir(), "tap.jsonl")
	f, err := os.Create(rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	pub, err := live.Publish(live.Info{Name: name, Argv: argv, Recording: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pub.Close() })
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return &tapFeed{lines: lines, tee: io.MultiWriter(f, pub), pub: pub}
}

// through feeds the lines up to the first that holds what (included).
func (f *tapFeed) through(t *testing.T, what string) {
	t.Helper()
	for f.next < len(f.lines) {
		l := f.lines[f.next]
		f.next++
		if _, err := f.tee.Write([]byte(l)); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(l, what) {
			return
		}
	}
	if what != "" {
		t.Fatalf("the session's recording has no line with %q", what)
	}
}

// mcpscope attach: the host's call shows in Result while it runs and with its answer
// when it comes, its frames in Traffic under tap:NAME, the screen says whose session it
// is; e on the call in History asks, naming the tool and mcpscope's own session, then
// opens the tool's form with the host's arguments on that session, which only then
// starts.
func TestAttachShowsTheHostsCallLiveAndTriesItOnItsOwnSession(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	bin := testutil.Mcpscope(t)
	feed := newTapFeed(t, "demo", []string{bin, "host"}, "sent by the host")
	feed.through(t, `"tools/list"`)

	a, err := OpenTap("") // the only live tap
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, Options{Servers: []workbench.Spec{OwnSpec(a)}, Attach: a, Name: "demo", Theme: "dark"}, 180, 40)
	h.press("3")
	h.until("the backlog in Traffic", func(m *model) bool { return strings.Contains(h.screen(), "tools/list") })
	h.contains("tap:demo", "⇄ tap demo (mcpscope 0.1.0): someone else's session, read-only · live")

	// The host calls echo: running, then answered.
	feed.through(t, `"tools/call"`)
	h.until("the host's call, running", func(m *model) bool {
		return m.current != nil && m.current.tool.Name == "echo" && m.current.running
	})
	h.press("2")
	h.contains("echo running", "the host's call through tap:demo: read-only")
	feed.through(t, `"sent by the host"}]`)
	h.until("its answer", func(m *model) bool { return !m.current.running })
	h.contains("sent by the host", "⇄ the host's call through tap:demo: read-only")

	// mcpscope's own session to the server has not started: watching starts nothing,
	// and the Tool view says so instead of "The server lists no tools".
	if st := h.m.srv.state(); st != stateIdle {
		t.Fatalf("the own session is %v before anything was tried; want idle", st)
	}
	h.press("1")
	h.contains("Watching tap:demo", "own session to the server is idle")

	h.press("6")
	if h.m.focus != paneRight {
		h.press("tab")
	}
	h.contains("⇄ ok", "tap:demo/echo")
	h.press("e")
	h.until("the question", func(m *model) bool { return strings.Contains(h.screen(), "on mcpscope's own session demo") })
	h.contains("Open echo's form with the host's arguments")
	h.press("y")
	h.until("echo's form on the own session, with the host's argument", func(m *model) bool {
		sel, ok := m.list.selected()
		return m.tab == tabTool && ok && sel.Name == "echo" && m.form != nil && formHas(m, "sent by the host")
	})
	h.contains("sent by the host")
	if st := h.m.srv.state(); st != stateReady {
		t.Fatalf("the own session is %v after the retry; want connected", st)
	}
	feed.through(t, "")
	feed.pub.Close()
	h.until("the end of the tap", func(m *model) bool { return m.tap.ended != "" })
	h.contains("· finished")
}

func formHas(m *model, s string) bool {
	v, err := m.form.Value()
	return err == nil && bytes.Contains(v, []byte(s))
}

// :attach NAME in a running workbench: the tap's traffic joins the session's under
// tap:NAME, and a server of the session with the tapped command is the own session a
// tapped call is tried again on (no second one is added); a name that is no tap says
// which there are.
func TestAttachCommandLine(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	bin := testutil.Mcpscope(t)
	feed := newTapFeed(t, "demo", []string{bin, "host"}, "from the command line")
	feed.through(t, `"from the command line"}]`)
	h := newHarness(t, hostTarget(t), 180, 40)
	h.until("the tools", func(m *model) bool { _, ok := m.toolByName(m.srv.name, "echo"); return ok })

	h.press(":")
	h.typeText("attach nosuch")
	h.press("enter")
	h.until("the refusal", func(m *model) bool { return strings.Contains(m.notice, `no tap named "nosuch" (taps: demo`) })

	h.press(":")
	h.typeText("attach demo")
	h.press("enter")
	h.until("the tap's call", func(m *model) bool {
		return m.tap != nil && m.current != nil && m.current.isTapped() && !m.current.running
	})
	h.until("its frames in Traffic", func(m *model) bool { return strings.Contains(h.screen(), "tap:demo │ tools/call") })
	if len(h.m.servers) != 1 || h.m.tap.own != h.m.srv.name {
		t.Fatalf("attaching added a server (%d servers) or chose %q as the own session; want the session's own %q", len(h.m.servers), h.m.tap.own, h.m.srv.name)
	}
	h.press("6")
	if h.m.focus != paneRight {
		h.press("tab")
	}
	h.press("e")
	h.until("the question", func(m *model) bool { return strings.Contains(h.screen(), "on mcpscope's own session "+m.srv.name) })
	h.press("y")
	h.until("echo's form with the host's argument", func(m *model) bool {
		return m.tab == tabTool && m.form != nil && formHas(m, "from the command line")
	})
}

// A tapped server's log notifications and stderr reach Logs and Stderr, each line
// named tap:NAME.
func TestAttachShowsTheTappedLogsAndStderr(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	pub, err := live.Publish(live.Info{Name: "logs", Argv: []string{"srv"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pub.Close() })
	w, err := record.NewWriter(pub, record.Header{Target: record.Target{Transport: "stdio", Argv: []string{"srv"}},
		Client: &record.Peer{Name: "claude-ai", Version: "1.0"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := OpenTap("logs")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, Options{Servers: []workbench.Spec{OwnSpec(a)}, Attach: a, Name: "logs", Theme: "dark"}, 160, 30)
	for _, e := range []record.Event{
		{Kind: record.KindStderr, Text: "server says: listening\x1b]52;c;AAAA\x07"},
		{Dir: record.Recv, Msg: json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"db","data":"pool exhausted"}}`)},
	} {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	h.press("4")
	h.until("the log line", func(m *model) bool { return strings.Contains(h.screen(), "pool exhausted") })
	h.contains("tap:logs │", "warning", "db")
	h.press("5")
	h.until("the stderr line", func(m *model) bool { return strings.Contains(h.screen(), "server says: listening") })
	h.contains("tap:logs │")
	if strings.Contains(h.screen(), "\x1b]52") {
		t.Error("the tapped server's stderr reached the screen with its escape sequence")
	}
}

// A tap whose command line held a secret has it redacted in its info: mcpscope cannot
// start that command on its own, says so, and starts nothing.
func TestRetryOfATapWithARedactedSecretSaysWhy(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	bin := testutil.Mcpscope(t)
	feed := newTapFeed(t, "secret", []string{bin, "host", "--api-key", "sk-0123456789abcdef"}, "hidden")
	feed.through(t, `"hidden"}]`)
	a, err := OpenTap("secret")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(a.Target.Argv, " "), "sk-0123456789abcdef") {
		t.Fatalf("the tap's info gave the secret: %q", a.Target.Argv)
	}
	h := newHarnessWith(t, Options{Servers: []workbench.Spec{OwnSpec(a)}, Attach: a, Name: "secret", Theme: "dark"}, 180, 40)
	h.until("the host's call", func(m *model) bool { return m.current != nil && m.current.isTapped() && !m.current.running })
	h.press("6")
	if h.m.focus != paneRight {
		h.press("tab")
	}
	h.press("e")
	h.until("the reason", func(m *model) bool { return strings.Contains(m.notice, "holds a redacted secret") })
	// Nothing started: the own session's status says idle (its first status may come
	// after the notice on a loaded machine: before it the state reads as connecting,
	// as for any server not heard from yet), and it never connected.
	h.until("the own session idle", func(m *model) bool { return m.srv.state() == stateIdle })
	if h.m.srv.snap.EverConnected {
		t.Fatal("the own session connected; want nothing started")
	}
}
