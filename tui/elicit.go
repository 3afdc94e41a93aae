package tui

import (
	"errors"
	"fmt"
	"os"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/browser"
	"github.com/mcpscope/mcpscope/tui/form"
)

// Elicitation is one dialog for every request that can ask: a tool call, prompts/get,
// resources/read, a task's input. The session's handler (asks.go) sends an elicitMsg
// whatever the request was, so views need nothing of their own.

// openElicit shows a request for input: a form built from its schema, or, in URL
// mode, the URL in full, opened with $BROWSER only if the user consents.
func (m *model) openElicit(msg elicitMsg) {
	if msg.req.Mode == "url" {
		m.elicit, m.elicitForm = &msg, nil
		return
	}
	f, err := form.New(msg.req.Schema)
	if err != nil {
		msg.reply <- client.ElicitResponse{Action: "decline"}
		m.notice = "the server asked for input with an unusable schema; declined: " + err.Error()
		return
	}
	f.SetStyles(m.st.form)
	m.elicit, m.elicitForm = &msg, f
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
