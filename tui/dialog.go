package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Dialogs: everything that stands over the screen and takes the keys while it is in
// front (a yes/no question, a server's request for input or for a model reply, the
// OAuth login, the roots editor, the command line, the help). They all implement
// dialog and live on one stack, m.dialogs: the front one gets the keys and the
// pastes, the ones behind it are drawn where they can be and named where they
// cannot. Priority is the order on the stack, nothing else: a dialog opened while
// another is up (an elicitation while the command line is open, a question while
// an elicitation is) comes in front of it, and the one behind is back in front when
// it closes.

// dialog is one dialog on the overlay stack. Its methods get the root model because
// what a dialog's answer does (a call, a login, a notice) belongs to the model; a
// dialog keeps only its own state.
type dialog interface {
	// update takes a key (tea.KeyPressMsg) or a paste (tea.PasteMsg) while the dialog
	// is in front. The work its answer starts (a request, a file, a login) is the
	// command it returns, never done here. A dialog that is answered closes itself
	// with m.closeDialog(d), before it starts what the answer does, so that what
	// comes next (a tab opened, another question) sees the screen without it.
	update(m *model, msg tea.Msg) tea.Cmd
	// view draws the dialog in width×height cells, where its layer says.
	view(m *model, width, height int) string
	// help is the dialog's name and keys, its main keys first: the first group is the
	// status bar's hint, all of them are in ? help. A dialog that returns no groups
	// leaves the help to what is behind it (the help screen does: it lists them).
	help(m *model) (string, [][]key.Binding)
	// about names what the dialog acts on, as the screen names it (a server, or
	// server/tool): "" when it acts on nothing in particular (quit, the help).
	about(m *model) string
	// traits are what the root needs to know of it: where it is drawn, whether keys
	// are text in it.
	traits() dialogTraits
}

// dialogTraits are a dialog's fixed properties.
type dialogTraits struct {
	layer layer
	// typing: keys are text in the dialog (q and digits type; the status bar offers
	// f1 for the help).
	typing bool
	// hintless: the dialog answers any key (y, or anything else for no): the status
	// bar offers no help while it is in front.
	hintless bool
}

// layer is where a dialog is drawn.
type layer int

const (
	layerPane   layer = iota // instead of the right pane's tabs
	layerAbove               // above whatever the right pane shows (a question)
	layerStatus              // instead of the status bar (the command line)
	layerScreen              // instead of both panes (the help), only while in front
)

// overlay is the stack of open dialogs, the front one last.
type overlay struct{ ds []dialog }

func (o *overlay) push(d dialog) { o.ds = append(o.ds, d) }

// front is the dialog that gets the keys, or nil.
func (o *overlay) front() dialog {
	if len(o.ds) == 0 {
		return nil
	}
	return o.ds[len(o.ds)-1]
}

// remove closes d wherever it is on the stack (a request that ended closes its
// dialog even behind another); false when it was not open.
func (o *overlay) remove(d dialog) bool {
	for i := len(o.ds) - 1; i >= 0; i-- {
		if o.ds[i] == d {
			o.ds = append(o.ds[:i:i], o.ds[i+1:]...)
			return true
		}
	}
	return false
}

// typing reports whether an open dialog takes keys as text.
func (o *overlay) typing() bool {
	for _, d := range o.ds {
		if d.traits().typing {
			return true
		}
	}
	return false
}

// findDialog is the front-most open dialog of type T, or T's zero value (nil).
func findDialog[T dialog](o *overlay) T {
	for i := len(o.ds) - 1; i >= 0; i-- {
		if d, ok := o.ds[i].(T); ok {
			return d
		}
	}
	var zero T
	return zero
}

// openDialog puts d in front.
func (m *model) openDialog(d dialog) { m.dialogs.push(d) }

// closeDialog closes d (wherever it is on the stack).
func (m *model) closeDialog(d dialog) { m.dialogs.remove(d) }

// askQuestion puts a yes/no question in front.
func (m *model) askQuestion(q *question) { m.dialogs.push(q) }

// dialogHelp is the help of the front-most dialog that has keys of its own to show
// (ok false: none, the views' keys apply).
func (m *model) dialogHelp() (name string, groups [][]key.Binding, ok bool) {
	for i := len(m.dialogs.ds) - 1; i >= 0; i-- {
		if name, groups := m.dialogs.ds[i].help(m); len(groups) > 0 {
			return name, groups, true
		}
	}
	return "", nil, false
}

// dialogPane is what the right pane shows of the dialogs: the questions in front
// (above), then the front-most pane dialog (or the tabs, when there is none), and a
// line naming the dialogs behind it that are not drawn, so none is forgotten.
func (m *model) dialogPane(width, height int) string {
	var above []string
	var pane dialog
	var behind []string
	for i := len(m.dialogs.ds) - 1; i >= 0; i-- {
		d := m.dialogs.ds[i]
		switch t := d.traits(); {
		case pane != nil:
			if t.layer != layerStatus { // the command line is drawn on the status bar
				behind = append(behind, m.dialogName(d))
			}
		case t.layer == layerAbove:
			above = append(above, d.view(m, width, height))
		case t.layer == layerPane:
			pane = d
		case t.layer == layerScreen && i < len(m.dialogs.ds)-1:
			behind = append(behind, m.dialogName(d)) // the help, behind another dialog
		}
	}
	var lines []string
	for _, a := range above {
		lines = append(lines, strings.Split(a, "\n")...)
	}
	if len(behind) > 0 {
		lines = append(lines, m.st.muted.Render(truncate("behind this: "+strings.Join(behind, " · "), width)))
	}
	rest := max(height-len(lines), 1)
	if pane != nil {
		lines = append(lines, pane.view(m, width, rest))
	} else {
		lines = append(lines, m.rightTabs(width, rest))
	}
	return strings.Join(lines, "\n")
}

// dialogName names a dialog that is open but not drawn: its title and what it is
// about.
func (m *model) dialogName(d dialog) string {
	name, _ := d.help(m)
	if name == "" {
		name = "Keys (help)"
	}
	if a := d.about(m); a != "" {
		name += " (" + a + ")"
	}
	return name
}

// helpScreen is the help (? or f1): the focused view's keys, then the global ones;
// it scrolls, and any other key closes it.
type helpScreen struct {
	offset int // the first line shown
}

func (d *helpScreen) traits() dialogTraits           { return dialogTraits{layer: layerScreen} }
func (d *helpScreen) about(*model) string            { return "" }
func (d *helpScreen) view(m *model, w, h int) string { return m.helpView(w) }

// help leaves the keys to what is behind: the help screen lists them.
func (d *helpScreen) help(*model) (string, [][]key.Binding) { return "", nil }

func (d *helpScreen) update(m *model, msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	page := max(m.height-6, 1)
	switch {
	case key.Matches(k, m.keys.Down):
		d.offset++
	case key.Matches(k, m.keys.Up):
		d.offset--
	case key.Matches(k, m.keys.PageDown):
		d.offset += page
	case key.Matches(k, m.keys.PageUp):
		d.offset -= page
	case key.Matches(k, m.keys.Home):
		d.offset = 0
	default:
		m.closeDialog(d)
	}
	d.offset = max(d.offset, 0)
	return nil
}

// The yes/no question (question in model.go): y runs yes, any other key declines
// and shows no. It is drawn above whatever the right pane shows.

func (q *question) traits() dialogTraits { return dialogTraits{layer: layerAbove, hintless: true} }
func (q *question) about(*model) string  { return q.subject }

func (q *question) help(m *model) (string, [][]key.Binding) {
	return "Question", [][]key.Binding{{m.keys.Yes, m.keys.No}}
}

func (q *question) update(m *model, msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil // a paste is no answer
	}
	m.closeDialog(q)
	if key.Matches(k, m.keys.Yes) {
		return q.yes()
	}
	m.notice = q.no
	return nil
}

func (q *question) view(m *model, width, _ int) string {
	lines := wrapText(q.shown(), width)
	for i := range lines {
		lines[i] = m.st.err.Render(lines[i])
	}
	return strings.Join(lines, "\n")
}
