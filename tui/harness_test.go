package tui

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/vt"

	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/target"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// harness drives the root model the way Bubble Tea would, without a terminal: it runs
// commands, collects what the backend sends, and feeds messages to Update. Keys go
// through the same key map a user presses.
type harness struct {
	t     testing.TB
	m     *model
	mu    sync.Mutex
	inbox []tea.Msg
	wake  chan struct{}
	// emitted counts the wire events the tap has sent, for caughtUp.
	emitted atomic.Int64
	// updates counts the messages given to Update (each one costs the program a
	// View): how many a burst of server events took to reach the screen.
	updates int
	// gate, while set (block), holds every sender as Bubble Tea's Send holds it while
	// the program cannot take messages (an $EDITOR runs); resume opens it.
	gate chan struct{}
}

// block makes the screen stop taking messages, as it does while an $EDITOR runs:
// whoever sends one (the pump, the workbench's reader, a command) waits.
func (h *harness) block() {
	h.mu.Lock()
	h.gate = make(chan struct{})
	h.mu.Unlock()
}

// resume lets the waiting senders through.
func (h *harness) resume() {
	h.mu.Lock()
	g := h.gate
	h.gate = nil
	h.mu.Unlock()
	if g != nil {
		close(g)
	}
}

func newHarness(t testing.TB, target target.Target, width, height int) *harness {
	return newHarnessWith(t, Options{Target: target, Name: "bundled host", Theme: "dark"}, width, height)
}

func newHarnessWith(t testing.TB, opts Options, width, height int) *harness {
	t.Helper()
	h := &harness{t: t, wake: make(chan struct{}, 1)}
	// Count the wire events on a tap of our own, which the model keeps on every
	// connection generation and emits to before its own pump.
	if opts.Client.Tap == nil {
		opts.Client.Tap = &wire.Tap{}
	}
	opts.Client.Tap.Listen(func(wire.Event) { h.emitted.Add(1) })
	m := newModel(opts)
	m.send = h.post
	m.pump = newPump(h.post, m.pendingMax())
	h.m = m
	t.Cleanup(h.close)
	h.update(tea.WindowSizeMsg{Width: width, Height: height})
	h.run(m.connect())
	return h
}

// close stops the backend and the server.
func (h *harness) close() {
	h.resume()
	h.m.pump.stop()
	h.m.closeSession()
}

// hostTarget runs the bundled host from the built binary, with the host's flags
// (--faults for its deliberate protocol faults).
func hostTarget(t testing.TB, flags ...string) target.Target {
	return target.Target{Argv: append([]string{testutil.Mcpscope(t), "host"}, flags...)}
}

func (h *harness) post(msg tea.Msg) {
	h.mu.Lock()
	if g := h.gate; g != nil {
		h.mu.Unlock()
		<-g
		h.mu.Lock()
	}
	h.inbox = append(h.inbox, msg)
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// run executes a command in the background, as Bubble Tea does; its message arrives in
// the inbox.
func (h *harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if msg == nil {
			return
		}
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				h.run(c)
			}
			return
		}
		h.post(msg)
	}()
}

func (h *harness) update(msg tea.Msg) {
	h.updates++
	_, cmd := h.m.Update(msg)
	h.runQuiet(cmd)
}

// runQuiet runs a command unless it only animates (spinner ticks would loop forever).
func (h *harness) runQuiet(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	h.run(func() tea.Msg {
		msg := cmd()
		switch msg.(type) {
		case tea.QuitMsg:
			return nil
		}
		if isTick(msg) {
			return nil
		}
		return msg
	})
}

func isTick(msg tea.Msg) bool {
	return strings.Contains(strings.ToLower(fmt.Sprintf("%T", msg)), "tickmsg")
}

// until processes messages until cond holds (or fails the test after a while).
func (h *harness) until(what string, cond func(*model) bool) {
	h.t.Helper()
	// Generous: under -race on a loaded two-core machine a server start can be slow,
	// and a watched server's restart slower (round 12: three full suites at once, the
	// conformance suite's Node servers beside them, passed 45 s twice). The suite's one
	// patience, as testutil.Eventually: a deadline that only a failing test reaches.
	deadline := time.Now().Add(testutil.Patience)
	for !cond(h.m) {
		h.mu.Lock()
		msgs := h.inbox
		h.inbox = nil
		h.mu.Unlock()
		for _, msg := range msgs {
			h.update(msg)
		}
		if cond(h.m) {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s; screen:\n%s", what, h.screen())
		}
		select {
		case <-h.wake:
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// caughtUp reports whether the model holds every wire event emitted so far (they
// reach it through the pump, in batches).
func (h *harness) caughtUp(m *model) bool {
	return int64(m.traffic.size()) == h.emitted.Load()
}

// press sends keys by their names in the key map ("enter", "tab", "ctrl+c", "a").
func (h *harness) press(keys ...string) {
	for _, k := range keys {
		h.update(keyMsg(k))
	}
}

// typeText types text one rune at a time.
func (h *harness) typeText(s string) {
	for _, r := range s {
		h.update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func keyMsg(name string) tea.KeyPressMsg {
	switch name {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "alt+enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "shift+up":
		return tea.KeyPressMsg{Code: tea.KeyUp, Mod: tea.ModShift}
	case "shift+down":
		return tea.KeyPressMsg{Code: tea.KeyDown, Mod: tea.ModShift}
	case "ctrl+n":
		return tea.KeyPressMsg{Code: 'n', Mod: tea.ModCtrl}
	case "f1":
		return tea.KeyPressMsg{Code: tea.KeyF1}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "alt+up":
		return tea.KeyPressMsg{Code: tea.KeyUp, Mod: tea.ModAlt}
	case "alt+down":
		return tea.KeyPressMsg{Code: tea.KeyDown, Mod: tea.ModAlt}
	case "ctrl+d", "ctrl+t", "ctrl+p", "ctrl+x", "ctrl+a", "ctrl+s":
		return tea.KeyPressMsg{Code: rune(name[5]), Mod: tea.ModCtrl}
	case "ctrl+end":
		return tea.KeyPressMsg{Code: tea.KeyEnd, Mod: tea.ModCtrl}
	case "ctrl+c", "ctrl+r", "ctrl+j", "ctrl+e", "ctrl+u", "ctrl+g", "ctrl+o", "ctrl+l":
		return tea.KeyPressMsg{Code: rune(name[5]), Mod: tea.ModCtrl}
	}
	r := []rune(name)
	return tea.KeyPressMsg{Code: r[0], Text: name}
}

// screen renders the model through a terminal emulator and returns the text a user
// would read, with times and durations masked so that goldens are stable.
func (h *harness) screen() string {
	em := vt.NewEmulator(h.m.width, h.m.height)
	em.WriteString(strings.ReplaceAll(h.m.render(), "\n", "\r\n"))
	return normalize(em.String())
}

var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\d+\.\d{3}s`), "T.TTTs"},
	{regexp.MustCompile(`\b\d+(\.\d+)?(µs|ms|s)\b`), "Nms"},
	{regexp.MustCompile(`\d\d:\d\d:\d\d`), "HH:MM:SS"},
	{regexp.MustCompile(`[⠁-⣿]`), "*"},
	{regexp.MustCompile(`"(now|time)": "[^"]*"`), `"$1": "…"`},
	{regexp.MustCompile(`[0-9a-f]{32}`), "<hex>"},
}

func normalize(s string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		masked := line
		for _, v := range volatile {
			masked = v.re.ReplaceAllString(masked, v.with)
		}
		if masked != line {
			// A masked value's width varied, and the padding after it with it.
			masked = runsOfSpaces.ReplaceAllString(masked, "  ")
		}
		lines[i] = masked
	}
	return strings.Join(lines, "\n")
}

var runsOfSpaces = regexp.MustCompile(` {2,}`)

func (h *harness) contains(want ...string) {
	h.t.Helper()
	s := h.screen()
	for _, w := range want {
		if !strings.Contains(s, w) {
			h.t.Errorf("screen lacks %q:\n%s", w, s)
		}
	}
}
