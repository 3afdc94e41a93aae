package tui

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/browser"
	"github.com/mcpscope/mcpscope/tui/form"
)

// Elicitation is one dialog for every request that can ask: a tool call, prompts/get,
// resources/read, a task's input. The session's handler (asks.go) sends an elicitMsg
// whatever the request was, so views need nothing of their own.

// elicitDialog is a server's request for input: a form built from its schema, or, in
// URL mode, the URL in full.
//
// The schema is the server's, so its size has no bound: a big one (more than
// buildAtOnce) is built into a form in a command, and accepting validates the answer
// in a command unless the check is cheap by construction (form.QuickCheck): the keys
// go on working meanwhile (20,000 fields took a second to build and seconds to
// validate, on the UI goroutine, before).
type elicitDialog struct {
	msg  elicitMsg
	form *form.Form // nil in URL mode, and while a big schema is being built
	// checking is the answer sent for validation by enter (its JSON), until the
	// check comes back; "" when none is running.
	checking string
}

// buildAtOnce is the biggest server-supplied schema built into a form in Update
// (milliseconds); a bigger one is built in a command. The same bound as
// form.QuickCheck's for validating at once.
const buildAtOnce = 64 << 10

type (
	// elicitFormMsg is a big schema's form, built in a command (or why it cannot be).
	elicitFormMsg struct {
		d    *elicitDialog
		form *form.Form
		err  error
	}
	// elicitCheckedMsg is the check of an answer accepted with enter, run in a
	// command: the answer as it was sent to be checked, and its errors.
	elicitCheckedMsg struct {
		d      *elicitDialog
		answer string
		errs   []form.FieldError
	}
)

func (msg elicitFormMsg) handle(m *model) tea.Cmd    { return m.onElicitForm(msg) }
func (msg elicitCheckedMsg) handle(m *model) tea.Cmd { return m.onElicitChecked(msg) }

func (d *elicitDialog) askID() int64 { return d.msg.id }
func (d *elicitDialog) url() bool    { return d.msg.req.Mode == "url" }

func (d *elicitDialog) traits() dialogTraits {
	return dialogTraits{layer: layerPane, typing: true, hintless: true}
}

func (d *elicitDialog) about(*model) string { return safe(d.msg.server) }

func (d *elicitDialog) help(m *model) (string, [][]key.Binding) {
	k := m.keys
	groups := [][]key.Binding{{k.Accept, k.Decline, k.Dismiss}}
	if d.form != nil {
		groups = append(groups, d.form.Keys().FullHelp()...)
	}
	return "Input requested by the server", groups
}

// openElicit shows a request for input: a form built from its schema, or, in URL
// mode, the URL in full, opened with $BROWSER only if the user consents. A big
// schema's form is built by the command it returns.
func (m *model) openElicit(msg elicitMsg) tea.Cmd {
	d := &elicitDialog{msg: msg}
	if d.url() {
		m.openDialog(d)
		return nil
	}
	schema := msg.req.Schema
	if len(schema) > buildAtOnce {
		m.openDialog(d)
		return func() tea.Msg {
			f, err := form.New(schema)
			return elicitFormMsg{d: d, form: f, err: err}
		}
	}
	f, err := form.New(schema)
	if err != nil {
		msg.reply <- client.ElicitResponse{Action: "decline"}
		m.notice = "the server asked for input with an unusable schema; declined: " + err.Error()
		return nil
	}
	f.SetStyles(m.st.form)
	d.form = f
	m.openDialog(d)
	return nil
}

// onElicitForm puts a big schema's form in its dialog, if the dialog is still open.
func (m *model) onElicitForm(msg elicitFormMsg) tea.Cmd {
	d := msg.d
	if findDialog[*elicitDialog](&m.dialogs) != d {
		return nil // answered or ended while the form was built
	}
	if msg.err != nil {
		m.notice = "the server asked for input with an unusable schema; declined: " + msg.err.Error()
		return d.answer(m, client.ElicitResponse{Action: "decline"})
	}
	msg.form.SetStyles(m.st.form)
	d.form = msg.form
	return nil
}

// answer sends the reply, closes the dialog and opens the next request waiting.
func (d *elicitDialog) answer(m *model, r client.ElicitResponse) tea.Cmd {
	d.msg.reply <- r
	m.closeDialog(d)
	return m.nextAsk()
}

// accept checks the answer against the schema and sends it: at once when the check
// is cheap, else in a command (onElicitChecked sends it).
func (d *elicitDialog) accept(m *model) tea.Cmd {
	if d.form == nil {
		m.notice = "the form is still being built; ctrl+x declines, esc cancels"
		return nil
	}
	if d.checking != "" {
		m.notice = "checking the answer…"
		return nil
	}
	if errs, ok := d.form.QuickCheck(); ok {
		return d.send(m, errs)
	}
	v, err := d.form.Value()
	if err != nil {
		m.notice = err.Error()
		return nil
	}
	d.checking = string(v)
	m.notice = "checking the answer…"
	return d.form.CheckCmd(func(errs []form.FieldError) tea.Msg {
		return elicitCheckedMsg{d: d, answer: string(v), errs: errs}
	})
}

// onElicitChecked sends an answer whose check came back, if its dialog is still open
// and the answer was not edited meanwhile (then enter checks it again).
func (m *model) onElicitChecked(msg elicitCheckedMsg) tea.Cmd {
	d := msg.d
	if findDialog[*elicitDialog](&m.dialogs) != d || d.checking != msg.answer {
		return nil
	}
	d.checking = ""
	if v, err := d.form.Value(); err != nil || string(v) != msg.answer {
		m.notice = "the answer changed while it was checked; enter checks it again"
		return nil
	}
	m.notice = ""
	return d.send(m, msg.errs)
}

// send sends the answer when its check found nothing to fix. A schema too costly to
// check does not hold the answer back: it goes as it is, and the notice says so.
func (d *elicitDialog) send(m *model, errs []form.FieldError) tea.Cmd {
	unchecked := false
	var real []form.FieldError
	for _, e := range errs {
		if form.NotValidated(e) {
			unchecked = true
			continue
		}
		real = append(real, e)
	}
	if len(real) > 0 {
		m.notice = "fix the highlighted fields, or ctrl+x to decline"
		return nil
	}
	v, err := d.form.Value()
	if err != nil {
		m.notice = err.Error()
		return nil
	}
	if unchecked {
		m.notice = "answer sent without validation: the schema is too costly to check"
	}
	return d.answer(m, client.ElicitResponse{Action: "accept", Content: v})
}

func (d *elicitDialog) update(m *model, msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		if d.form != nil {
			return d.form.Update(msg) // a paste goes into the field
		}
		return nil
	}
	switch {
	case key.Matches(k, m.keys.Accept):
		if d.url() {
			// URL mode: accepting is consenting to open it. A URL that
			// internal/browser will not open (not http or https) is declined, as
			// on the command line: nothing was opened. (Check only parses.)
			u := d.msg.req.URL
			r := client.ElicitResponse{Action: "accept"}
			if browser.Check(u) != nil {
				r = client.ElicitResponse{Action: "decline"}
			}
			return tea.Batch(d.answer(m, r), openBrowser(safe(u)))
		}
		return d.accept(m)
	case key.Matches(k, m.keys.Decline):
		return d.answer(m, client.ElicitResponse{Action: "decline"})
	case key.Matches(k, m.keys.Dismiss):
		return d.answer(m, client.ElicitResponse{Action: "cancel"})
	}
	if d.form != nil {
		return d.form.Update(k)
	}
	return nil
}

func (d *elicitDialog) view(m *model, width, height int) string {
	e := d.msg.req
	title := "The server asks for input"
	if m.several() {
		title = "Server " + safe(d.msg.server) + " asks for input"
	}
	lines := []string{m.st.title.Render(title)}
	lines = append(lines, wrapText(e.Message, width)...)
	if d.url() {
		lines = append(lines, "", "URL (in full):")
		lines = append(lines, wrapHard(safe(e.URL), width)...)
		lines = append(lines, "", m.st.muted.Render("enter opens it with $BROWSER (your consent) · ctrl+x declines · esc cancels"))
		return strings.Join(lines, "\n")
	}
	lines = append(lines, m.st.muted.Render("enter accepts · ctrl+x declines · esc cancels"), "")
	if d.form == nil {
		lines = append(lines, m.spin()+fmt.Sprintf(" building the form (a %d KiB schema)…", len(e.Schema)>>10))
	} else {
		lines = append(lines, d.form.View(width, height-len(lines)))
	}
	return strings.Join(lines, "\n")
}

// openBrowser opens the URL with $BROWSER in a command, through internal/browser (the
// rule the command line and the OAuth login share: http and https only, the URL one
// argument, never through a shell).
func openBrowser(u string) tea.Cmd {
	return func() tea.Msg {
		if err := browser.Check(u); err != nil {
			return noticeMsg{text: "not opened: " + safe(err.Error()) + " (" + u + ")"}
		}
		_, err := browser.Open(u, os.Getenv("BROWSER"))
		switch {
		case errors.Is(err, browser.ErrNoBrowser):
			return noticeMsg{text: "$BROWSER is not set; open the URL yourself: " + u}
		case err != nil:
			return noticeMsg{text: "could not start $BROWSER: " + safe(err.Error())}
		}
		return noticeMsg{text: "opened in $BROWSER: " + u}
	}
}

// urlRequired turns a URLElicitationRequired error (-32042), whatever request it
// answered (a tool call, prompts/get, resources/read; the client decoded it from the
// frame and the workbench tagged it with its server), into URL dialogs, one per URL
// it names: the user sees each URL in full and may open it, then calls again.
func (m *model) urlRequired(server string, u client.URLRequired) {
	for _, e := range u.Elicitations {
		if e.URL == "" {
			continue
		}
		msg := fmt.Sprintf("%s (the request failed with -32042 until this is done; then send it again)", e.Message)
		m.enqueueAsk(elicitMsg{id: askSeq.Add(1), server: server, req: client.ElicitRequest{Mode: "url", URL: e.URL, Message: msg},
			reply: make(chan client.ElicitResponse, 1)})
	}
}
