package tui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/browser"
	"github.com/mcpscope/mcpscope/tui/form"
)

// Elicitation is one dialog for every request that can ask: a tool call, prompts/get,
// resources/read, a task's input. The session's handler (asks.go) sends an elicitMsg
// whatever the request was, so views need nothing of their own.

// elicitDialog is a server's request for input: a form built from its schema, or, in
// URL mode (form nil), the URL in full.
type elicitDialog struct {
	msg  elicitMsg
	form *form.Form
}

func (d *elicitDialog) askID() int64 { return d.msg.id }

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
// mode, the URL in full, opened with $BROWSER only if the user consents.
func (m *model) openElicit(msg elicitMsg) {
	if msg.req.Mode == "url" {
		m.openDialog(&elicitDialog{msg: msg})
		return
	}
	f, err := form.New(msg.req.Schema)
	if err != nil {
		msg.reply <- client.ElicitResponse{Action: "decline"}
		m.notice = "the server asked for input with an unusable schema; declined: " + err.Error()
		return
	}
	f.SetStyles(m.st.form)
	m.openDialog(&elicitDialog{msg: msg, form: f})
}

// answer sends the reply, closes the dialog and opens the next request waiting.
func (d *elicitDialog) answer(m *model, r client.ElicitResponse) {
	d.msg.reply <- r
	m.closeDialog(d)
	m.nextAsk()
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
		if d.form == nil {
			// URL mode: accepting is consenting to open it. A URL that
			// internal/browser will not open (not http or https) is declined, as
			// on the command line: nothing was opened. (Check only parses.)
			u := d.msg.req.URL
			if browser.Check(u) != nil {
				d.answer(m, client.ElicitResponse{Action: "decline"})
			} else {
				d.answer(m, client.ElicitResponse{Action: "accept"})
			}
			return openBrowser(safe(u))
		}
		if errs := d.form.Validate(); len(errs) > 0 {
			m.notice = "fix the highlighted fields, or ctrl+x to decline"
			return nil
		}
		v, err := d.form.Value()
		if err != nil {
			m.notice = err.Error()
			return nil
		}
		d.answer(m, client.ElicitResponse{Action: "accept", Content: v})
		return nil
	case key.Matches(k, m.keys.Decline):
		d.answer(m, client.ElicitResponse{Action: "decline"})
		return nil
	case key.Matches(k, m.keys.Dismiss):
		d.answer(m, client.ElicitResponse{Action: "cancel"})
		return nil
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
	if e.Mode == "url" {
		lines = append(lines, "", "URL (in full):")
		lines = append(lines, wrapHard(safe(e.URL), width)...)
		lines = append(lines, "", m.st.muted.Render("enter opens it with $BROWSER (your consent) · ctrl+x declines · esc cancels"))
		return strings.Join(lines, "\n")
	}
	lines = append(lines, m.st.muted.Render("enter accepts · ctrl+x declines · esc cancels"), "")
	if d.form != nil {
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

// urlRequired turns a 2025-11-25 URLElicitationRequired error (-32042) into URL
// dialogs, one per URL it names: the user sees each URL in full and may open it, then
// calls again.
func (m *model) urlRequired(server string, err error) {
	var re *client.RPCError
	if !errors.As(err, &re) || re.Code != -32042 {
		return
	}
	var data struct {
		Elicitations []struct {
			Mode    string `json:"mode"`
			URL     string `json:"url"`
			Message string `json:"message"`
		} `json:"elicitations"`
	}
	_ = json.Unmarshal(re.Data, &data)
	for _, e := range data.Elicitations {
		if e.URL == "" {
			continue
		}
		msg := fmt.Sprintf("%s (the request failed with -32042 until this is done; then send it again)", e.Message)
		m.enqueueAsk(elicitMsg{id: askSeq.Add(1), server: server, req: client.ElicitRequest{Mode: "url", URL: e.URL, Message: msg},
			reply: make(chan client.ElicitResponse, 1)})
	}
}

// onErrorFrames finds URLElicitationRequired errors (-32042) among the frames a
// server sent, whatever request they answer (a tool call, prompts/get,
// resources/read), and shows their URLs. Only small frames are looked at: an error
// is small, and a big result is not searched.
func (m *model) onErrorFrames(events []wire.Event, servers []string) {
	for i, e := range events {
		if e.Kind != wire.KindMessage || e.Dir != wire.Recv || len(e.Data) > 64<<10 || !bytes.Contains(e.Data, []byte("-32042")) {
			continue
		}
		var r struct {
			Error *struct {
				Code    int64           `json:"code"`
				Message string          `json:"message"`
				Data    json.RawMessage `json:"data"`
			} `json:"error"`
		}
		if json.Unmarshal(e.Data, &r) != nil || r.Error == nil || r.Error.Code != -32042 {
			continue
		}
		server := ""
		if i < len(servers) {
			server = servers[i]
		}
		m.urlRequired(server, &client.RPCError{Code: r.Error.Code, Message: r.Error.Message, Data: r.Error.Data})
	}
}
