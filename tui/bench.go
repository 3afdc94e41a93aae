package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/bench"
	"github.com/mcpscope/mcpscope/client"
)

// The Bench view: b on a tool in the list (ctrl+b in its form) runs a short bench of
// it with the form's arguments, package bench's run through the server's session
// (the workbench's, borrowed for the run), and draws the histogram as the calls
// answer. It asks first, naming the server and the tool; a tool not marked
// read-only is said to be one, and runs only on a yes. The run is a command; its
// progress comes as benchTickMsg from bench's ticker, never from work in Update.

// A short bench: enough calls for a p99, few enough to take seconds on a slow tool.
const (
	benchCalls    = 200
	benchInFlight = 4
	benchWarmup   = 10
	// benchLimit ends a bench of a slow tool: the figures are those of the calls
	// finished by then.
	benchLimit = 30 * time.Second
)

// benchView is the last bench: of which tool, with which arguments, and the result so
// far.
type benchView struct {
	id           int
	server, tool string
	args         json.RawMessage
	running      bool
	cancel       context.CancelFunc
	res          *bench.Result
	err          string
	// The report as last laid out, for res at width.
	text      string
	textOf    *bench.Result
	textWidth int
}

// benchTickMsg is the run so far.
type benchTickMsg struct {
	id  int
	res *bench.Result
}

func (msg benchTickMsg) handle(m *model) tea.Cmd {
	if v := &m.bench; msg.id == v.id && v.running {
		v.res = msg.res
	}
	return nil
}

// benchDoneMsg is the end of a run: its result, or why it did not run.
type benchDoneMsg struct {
	id  int
	res *bench.Result
	err error
}

func (msg benchDoneMsg) handle(m *model) tea.Cmd {
	v := &m.bench
	if msg.id != v.id {
		return nil
	}
	v.running, v.cancel = false, nil
	if msg.res != nil {
		v.res = msg.res
	}
	if msg.err != nil {
		v.err = msg.err.Error()
	}
	return nil
}

// askBench is b (and ctrl+b): the form's tool, as its server lists it now, with the
// form's arguments, after a question that names the server and the tool.
func (m *model) askBench() tea.Cmd {
	if m.form == nil || m.formTool == "" {
		m.notice = "no tool to bench: select one in the list"
		return nil
	}
	if m.bench.running {
		m.notice = "a bench is running (x in the Bench view stops it)"
		return nil
	}
	t, srv, why := m.formOwnerTool()
	if why.kind != ownerOK {
		m.notice = why.text
		return nil
	}
	args, err := m.form.Value()
	if err != nil {
		m.notice = "arguments: " + err.Error() + "; bench needs arguments the form accepts"
		return nil
	}
	server := srv.name
	label, on := m.toolLabel(server, t.Name), m.serverLabel(srv)
	plan := fmt.Sprintf("%d calls, %d at a time, after %d not counted", benchCalls, benchInFlight, benchWarmup)
	text := fmt.Sprintf("Bench %s on %s: %s, with %s? y/n", label, on, plan, oneLine(string(args), 60))
	readOnly := bench.ReadOnly(t)
	if !readOnly {
		text = fmt.Sprintf("%s on %s is not marked read-only: a bench calls it %d times, and a tool that writes changes the server's data each time. Bench it anyway with %s? y/n",
			label, on, benchCalls+benchWarmup, oneLine(string(args), 60))
	}
	start := func() tea.Cmd {
		// The server may have restarted or changed the tool while the question was
		// open: the bench goes to the tool asked about, with the schema it had.
		if now, ok := m.listedAs(server, t); !ok {
			m.notice = now
			return nil
		}
		return m.startBench(server, t, args)
	}
	if readOnly && m.opts.NoConfirm {
		return start()
	}
	m.askQuestion(&question{subject: label, text: text, yes: start, no: "bench not started"})
	return nil
}

// listedAs says whether server still lists t with the input schema it had, and if
// not, why, for the notice.
func (m *model) listedAs(server string, t client.Tool) (string, bool) {
	s := m.server(server)
	if !s.callable() {
		return m.notConnected(s), false
	}
	i := slices.IndexFunc(s.tools(), func(x client.Tool) bool { return x.Name == t.Name })
	if i < 0 || string(s.tools()[i].InputSchema) != string(t.InputSchema) {
		return m.toolLabel(server, t.Name) + " changed while the question was open; nothing was sent", false
	}
	return "", true
}

// startBench runs the bench in a command: the session borrowed for the run, each
// tick sent to the screen.
func (m *model) startBench(server string, t client.Tool, args json.RawMessage) tea.Cmd {
	v := &m.bench
	id := v.id + 1
	ctx, cancel := context.WithTimeout(context.Background(), benchLimit)
	*v = benchView{id: id, server: server, tool: t.Name, args: args, running: true, cancel: cancel}
	m.openTab(tabBench)
	wb, send, name := m.wb, m.send, t.Name
	return func() tea.Msg {
		defer cancel()
		return useSession(ctx, wb, server, func(ctx context.Context, s *client.Session) tea.Msg {
			r, err := bench.Run(ctx, bench.Options{Tool: name, Args: args, Callers: []bench.Caller{s},
				Concurrency: benchInFlight, Count: benchCalls, WarmupCount: benchWarmup,
				OnTick: func(r *bench.Result) { send(benchTickMsg{id: id, res: r}) }})
			return benchDoneMsg{id: id, res: r, err: err}
		}, func(err error) tea.Msg { return benchDoneMsg{id: id, err: err} })
	}
}

// stopBench is x in the Bench view.
func (m *model) stopBench() tea.Cmd {
	if v := &m.bench; v.running && v.cancel != nil {
		v.cancel()
		m.notice = "bench stopped: the figures are of the calls finished"
	}
	return nil
}

// benchTabView draws the Bench view: what runs, then package bench's report of the
// run so far (figures, histogram, throughput line), laid out again only when the
// result or the width changed.
func (m *model) benchTabView(width, height int) string {
	v := &m.bench
	st := m.st
	if v.tool == "" {
		return st.muted.Render(truncate("No bench yet: b on a tool in the list benches it with its form's arguments.", width))
	}
	status := "done"
	switch {
	case v.running && v.res == nil:
		status = m.spin() + " warming up…"
	case v.running:
		status = fmt.Sprintf("%s %d of %d calls", m.spin(), v.res.Calls, benchCalls)
	case v.err != "":
		status = st.err.Render("failed: " + safe(v.err))
	case v.res != nil && v.res.Interrupted:
		status = st.warn.Render("stopped") + fmt.Sprintf(" after %d of %d calls", v.res.Calls, benchCalls)
	}
	lines := []string{truncate(fmt.Sprintf("%s · with %s", status, safe(oneLine(string(v.args), 80))), width)}
	if v.res != nil {
		if v.textOf != v.res || v.textWidth != width {
			var b strings.Builder
			style := bench.Style{Bar: st.accent, Axis: st.muted, P99: st.warn, Color: true}
			name := v.server // termsafe'd by WriteText, as every server string in it
			if !m.several() {
				name = m.displayName()
			}
			rep := &bench.Report{Server: name, Result: v.res}
			_ = bench.WriteText(&b, rep, width, style) // a strings.Builder does not fail
			v.text, v.textOf, v.textWidth = strings.TrimRight(b.String(), "\n"), v.res, width
		}
		lines = append(lines, strings.Split(v.text, "\n")...)
	}
	if len(lines) > height {
		lines = lines[:height]
	}
	return strings.Join(lines, "\n")
}

// benchKeys is the Bench view's table.
func (m *model) benchKeys() keyTable {
	return keyTable{name: "Bench", groups: [][]binding{{
		{Binding: m.keys.StopBench, do: func(tea.KeyPressMsg) tea.Cmd { return m.stopBench() },
			off: func() string {
				if !m.bench.running {
					return "no bench is running"
				}
				return ""
			}},
	}}}
}

// benchSpec is the Bench view's registration (views.go): no digit, on the bar once a
// bench ran.
func benchSpec() viewSpec {
	return viewSpec{name: "Bench",
		visible: func(m *model) bool { return m.bench.tool != "" },
		badge: func(m *model) string {
			if m.bench.running {
				return " " + m.spin()
			}
			return ""
		},
		draw: (*model).benchTabView, keys: (*model).benchKeys}
}
