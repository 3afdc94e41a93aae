package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
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

// openBrowser runs $BROWSER with the URL as one argument (never through a shell), in
// a command; only http and https URLs are opened.
func openBrowser(u string) tea.Cmd {
	if l := strings.ToLower(u); !strings.HasPrefix(l, "https://") && !strings.HasPrefix(l, "http://") {
		return func() tea.Msg {
			return noticeMsg{text: "not opened: only http and https URLs go to $BROWSER (" + u + ")"}
		}
	}
	return func() tea.Msg {
		b := strings.Fields(os.Getenv("BROWSER"))
		if len(b) == 0 {
			return noticeMsg{text: "$BROWSER is not set; open the URL yourself: " + u}
		}
		c := exec.Command(b[0], append(b[1:], u)...)
		if err := c.Start(); err != nil {
			return noticeMsg{text: "could not start $BROWSER: " + err.Error()}
		}
		go func() { _ = c.Wait() }()
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
