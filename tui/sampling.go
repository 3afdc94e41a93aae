package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/tui/form"
)

// The sampling dialog: a server asks for a model reply (sampling/createMessage, or
// its 2026-07-28 input_required form). The user reads the request (messages, system
// prompt, model preferences, maxTokens, tools), writes the reply or picks a canned
// one, or rejects it. The messages are drawn a screen at a time: each one is laid
// out only when it scrolls into view, so a request of a thousand messages opens as
// fast as one of three.

type samplingMsg struct {
	id     int64
	server string
	req    client.SamplingRequest
	reply  chan client.SamplingResponse
}

// A sampling request waits behind the open request, if any (asks.go).
func (msg samplingMsg) handle(m *model) tea.Cmd { return m.enqueueAsk(msg) }

type samplingDialog struct {
	msg    samplingMsg
	reply  *form.Form // one string field: the reply
	body   scroller   // the request
	src    *samplingSource
	canned int // the next canned reply ctrl+o puts in
	width  int
}

// cannedReplies are what ctrl+o offers, in turn.
var cannedReplies = []string{
	"Hello from mcpscope: this reply was written by a person, not a model.",
	"I cannot help with that.",
	"OK.",
}

const replySchema = `{"type":"object","properties":{"reply":{"type":"string","title":"Your reply","description":"the assistant's message sent back as the model's answer"}}}`

func (m *model) openSampling(msg samplingMsg) {
	f, err := form.New(json.RawMessage(replySchema))
	if err != nil { // cannot happen: the schema is ours
		msg.reply <- client.SamplingResponse{Reject: true}
		return
	}
	f.SetStyles(m.st.form)
	m.openDialog(&samplingDialog{msg: msg, reply: f})
}

func (d *samplingDialog) askID() int64 { return d.msg.id }

func (d *samplingDialog) traits() dialogTraits {
	return dialogTraits{layer: layerPane, typing: true}
}

func (d *samplingDialog) about(*model) string { return safe(d.msg.server) }

func (d *samplingDialog) help(m *model) (string, [][]key.Binding) {
	return "Sampling request", [][]key.Binding{m.keys.samplingHelp(), d.reply.Keys().FullHelp()[0]}
}

func samplingSummary(req client.SamplingRequest) string {
	s := fmt.Sprintf("%s, maxTokens %d", plural.Count(len(req.Messages), "message"), req.MaxTokens)
	if len(req.Tools) > 0 {
		s += ", with tools"
	}
	return s
}

func (d *samplingDialog) update(m *model, msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return d.reply.Update(msg) // a paste goes into the reply
	}
	answer := func(r client.SamplingResponse, notice string) tea.Cmd {
		d.msg.reply <- r
		m.closeDialog(d)
		m.notice = notice
		return m.nextAsk()
	}
	switch {
	case key.Matches(k, m.keys.SampleReject):
		// 2025 answers the request with an error; 2026-07-28 (an input_required round
		// trip) has no rejection to send: the request is simply not retried.
		told := "sampling request rejected; " + d.msg.server + " was told so"
		if s := m.server(d.msg.server); s != nil && s.info().Era == client.EraModern {
			told = "sampling request rejected; " + d.msg.server + "'s request is not retried (2026-07-28 has no rejection to send)"
		}
		return answer(client.SamplingResponse{Reject: true}, told)
	case key.Matches(k, m.keys.SampleCanned):
		text := cannedReplies[d.canned%len(cannedReplies)]
		d.canned++
		v, _ := json.Marshal(map[string]string{"reply": text})
		_ = d.reply.SetValue(v)
		return nil
	case key.Matches(k, m.keys.SampleSend):
		v, err := d.reply.Value()
		var r struct {
			Reply string `json:"reply"`
		}
		if err == nil {
			err = json.Unmarshal(v, &r)
		}
		if err != nil || strings.TrimSpace(r.Reply) == "" {
			m.notice = "write a reply (or ctrl+o picks one); ctrl+x rejects the request"
			return nil
		}
		return answer(client.SamplingResponse{Text: r.Reply}, "reply sent to "+d.msg.server)
	case key.Matches(k, m.keys.DetailUp):
		d.body.scroll(-1)
		return nil
	case key.Matches(k, m.keys.DetailDown):
		d.body.scroll(1)
		return nil
	case key.Matches(k, m.keys.PageUp), key.Matches(k, m.keys.DetailPageUp):
		d.body.scroll(-max(d.body.height-1, 1))
		return nil
	case key.Matches(k, m.keys.PageDown), key.Matches(k, m.keys.DetailPageDown):
		d.body.scroll(max(d.body.height-1, 1))
		return nil
	case key.Matches(k, m.keys.RequestEnd):
		d.body.scroll(1 << 30)
		return nil
	case key.Matches(k, m.keys.RequestTop):
		d.body.top()
		return nil
	}
	return d.reply.Update(k)
}

// samplingHelp is the dialog's keys.
func (k keyMap) samplingHelp() []key.Binding {
	return []key.Binding{k.SampleSend, k.SampleCanned, k.SampleReject, k.DetailUp, k.PageUp, k.RequestTop, k.RequestEnd}
}

func (d *samplingDialog) view(m *model, width, height int) string {
	req := d.msg.req
	st := m.st
	who := "The server"
	if m.several() {
		who = "Server " + safe(d.msg.server)
	}
	lines := []string{st.title.Render(truncate(who+" asks for a model reply", width)),
		st.muted.Render(truncate("sampling/createMessage · "+samplingSummary(req), width))}
	formH := 4
	hint := st.muted.Render(truncate("enter sends the reply · ctrl+o a canned reply · ctrl+x or esc rejects · pgup/pgdn, shift+↑/↓, ctrl+home/end scroll the request", width))
	if d.src == nil || d.width != width {
		d.src = newSamplingSource(st, req, width)
		d.width = width
		d.body.setSource(d.src)
	}
	bodyH := max(height-len(lines)-formH-2, 3)
	body := d.body.view(bodyH)
	lines = append(lines, padLines(body, bodyH))
	if more := d.body.count(d.body.offset+bodyH+1) - (d.body.offset + bodyH); more > 0 {
		lines[len(lines)-1] += "\n" + st.muted.Render(fmt.Sprintf("  … more below (pgdn) · message %d of %d in view", d.src.messageAt(d.body.offset)+1, len(req.Messages)))
	} else {
		lines = append(lines, "")
	}
	lines = append(lines, hint, d.reply.View(width, formH-1))
	return strings.Join(lines, "\n")
}

// samplingSource is the request as lines: the header (system prompt, preferences,
// limits, tools) made at once, then each message laid out when first shown.
type samplingSource struct {
	st     styles
	width  int
	head   []string
	msgs   []client.SamplingMessage
	done   [][]string // laid-out messages so far
	starts []int      // first line of each laid-out message
	total  int        // lines of head and of the laid-out messages
}

func newSamplingSource(st styles, req client.SamplingRequest, width int) *samplingSource {
	s := &samplingSource{st: st, width: width, msgs: req.Messages}
	add := func(label, value string) {
		if value == "" {
			return
		}
		for i, l := range wrapText(value, max(width-14, 10)) {
			if i == 0 {
				s.head = append(s.head, st.accent.Render(fmt.Sprintf("%-13s", label))+" "+l)
			} else {
				s.head = append(s.head, strings.Repeat(" ", 14)+l)
			}
		}
	}
	add("system", req.SystemPrompt)
	add("maxTokens", fmt.Sprint(req.MaxTokens))
	if req.Temperature != 0 {
		add("temperature", fmt.Sprint(req.Temperature))
	}
	if len(req.StopSequences) > 0 {
		add("stop", strings.Join(req.StopSequences, " · "))
	}
	add("context", req.IncludeContext)
	add("model prefs", modelPrefs(req.ModelPreferences))
	if len(req.Tools) > 0 {
		add("tools", toolNames(req.Tools))
	}
	if len(req.ToolChoice) > 0 {
		add("toolChoice", oneLine(string(req.ToolChoice), 300))
	}
	s.head = append(s.head, "")
	s.total = len(s.head)
	return s
}

// modelPrefs says the model preferences in one line: hints, then priorities.
func modelPrefs(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var p struct {
		Hints []struct {
			Name string `json:"name"`
		} `json:"hints"`
		Cost         *float64 `json:"costPriority"`
		Speed        *float64 `json:"speedPriority"`
		Intelligence *float64 `json:"intelligencePriority"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return oneLine(string(raw), 300)
	}
	var parts []string
	var hints []string
	for _, h := range p.Hints {
		hints = append(hints, h.Name)
	}
	if len(hints) > 0 {
		parts = append(parts, "hints "+strings.Join(hints, ", "))
	}
	for _, pr := range []struct {
		n string
		v *float64
	}{{"cost", p.Cost}, {"speed", p.Speed}, {"intelligence", p.Intelligence}} {
		if pr.v != nil {
			parts = append(parts, fmt.Sprintf("%s %g", pr.n, *pr.v))
		}
	}
	return strings.Join(parts, " · ")
}

// toolNames lists the tools a sampling request offers the model.
func toolNames(raw json.RawMessage) string {
	var tools []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	if json.Unmarshal(raw, &tools) != nil {
		return oneLine(string(raw), 300)
	}
	var names []string
	for _, t := range tools {
		n := t.Name
		if t.Description != "" {
			n += " (" + oneLine(t.Description, 60) + ")"
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

// layOut lays out messages until the source has at least upto lines (or all).
func (s *samplingSource) layOut(upto int) {
	for s.total < upto && len(s.done) < len(s.msgs) {
		i := len(s.done)
		msg := s.msgs[i]
		d := &doc{width: s.width}
		d.add(s.st.accent.Render(fmt.Sprintf("── %d/%d %s", i+1, len(s.msgs), safe(orDash(msg.Role)))))
		for _, c := range msg.Content {
			addContent(d, s.st, c, s.width)
		}
		// A huge text block is shown by its first lines here: the whole is in Traffic.
		lines := d.Lines(0, maxSamplingLines+1)
		if len(lines) > maxSamplingLines {
			lines = append(lines[:maxSamplingLines:maxSamplingLines], s.st.muted.Render("  … (the rest of this message is in 3 Traffic)"))
		}
		s.starts = append(s.starts, s.total)
		s.done = append(s.done, lines)
		s.total += len(lines)
	}
}

// maxSamplingLines bounds the lines one message shows in the dialog.
const maxSamplingLines = 200

func (s *samplingSource) Count(limit int) int {
	s.layOut(limit)
	return min(s.total, limit)
}

func (s *samplingSource) Lines(from, to int) []string {
	s.layOut(to)
	var out []string
	for i := from; i < min(to, s.total); i++ {
		if i < len(s.head) {
			out = append(out, s.head[i])
			continue
		}
		k := s.messageAt(i)
		out = append(out, s.done[k][i-s.starts[k]])
	}
	return out
}

// messageAt is the message that line i belongs to (0 within the header).
func (s *samplingSource) messageAt(line int) int {
	lo, hi := 0, len(s.starts)-1
	if hi < 0 || line < s.starts[0] {
		return 0
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if s.starts[mid] <= line {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
