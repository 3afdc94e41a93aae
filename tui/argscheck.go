package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/tui/form"
)

// argsCheckedMsg is the outcome of checking the form's arguments before a call.
type argsCheckedMsg struct {
	form   *form.Form
	anyway bool
	asTask bool
	errs   []form.FieldError
}

func (msg argsCheckedMsg) handle(m *model) tea.Cmd { return m.onArgsChecked(msg) }

// checkArgs validates the form's arguments in a command; sendCall continues when the
// answer arrives. A schema too costly to check does not hold the call back: the
// arguments go as they are, and the status bar says they were not validated.
func (m *model) checkArgs(anyway, asTask bool) tea.Cmd {
	f := m.form
	if m.checking == f {
		m.notice = "checking the arguments…"
		return nil
	}
	m.checking = f
	return f.CheckCmd(func(errs []form.FieldError) tea.Msg {
		return argsCheckedMsg{form: f, anyway: anyway, asTask: asTask, errs: errs}
	})
}

func (m *model) onArgsChecked(msg argsCheckedMsg) tea.Cmd {
	if m.checking == msg.form {
		m.checking = nil
	}
	if msg.form != m.form {
		m.notice = "another tool was selected while its arguments were checked; call not sent"
		return nil
	}
	var errs []form.FieldError
	unchecked := false
	for _, e := range msg.errs {
		if form.NotValidated(e) {
			unchecked = true
			continue
		}
		errs = append(errs, e)
	}
	msg.errs = errs
	m.argsCheck = msg
	m.notice = ""
	cmd := m.sendCallAs(msg.anyway, msg.asTask)
	if unchecked {
		if m.notice != "" {
			m.notice = "arguments not validated (the schema is too costly to check); " + m.notice
		} else {
			m.notice = "arguments not validated: the schema is too costly to check"
		}
	}
	return cmd
}
