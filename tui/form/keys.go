package form

import "charm.land/bubbles/v2/key"

// KeyMap is every key the form handles, as data: the form matches keys on
// these bindings and nothing else, and the root model shows them in its help
// (FullHelp) when the form has the keyboard. In raw JSON mode the text area has
// its own keys.
type KeyMap struct {
	Next, Prev          key.Binding
	PageDown, PageUp    key.Binding
	Toggle              key.Binding
	PrevValue           key.Binding
	NextValue           key.Binding
	Clear               key.Binding
	AddItem, RemoveItem key.Binding
	MoveUp, MoveDown    key.Binding
	ToggleNull          key.Binding

	// Editing in a text field.
	CursorLeft, CursorRight   key.Binding
	LineStart, LineEnd        key.Binding
	WordLeft, WordRight       key.Binding
	DeleteBack, DeleteForward key.Binding
	KillLeft, KillRight       key.Binding
	DeleteWord                key.Binding

	// Choose picks the focused choice of a multi-select, as Toggle does. A root
	// model that keeps enter for itself (to send) never passes it on, so it is
	// not in FullHelp.
	Choose key.Binding
}

// DefaultKeyMap returns the bindings the form uses.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Next:       key.NewBinding(key.WithKeys("down", "tab"), key.WithHelp("↓/tab", "next field")),
		Prev:       key.NewBinding(key.WithKeys("up", "shift+tab"), key.WithHelp("↑/shift+tab", "previous field")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		PageUp:     key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		Toggle:     key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "toggle")),
		PrevValue:  key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "previous choice")),
		NextValue:  key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "next choice")),
		Clear:      key.NewBinding(key.WithKeys("backspace", "delete"), key.WithHelp("del", "unset choice")),
		AddItem:    key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "add item")),
		RemoveItem: key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "remove item")),
		MoveUp:     key.NewBinding(key.WithKeys("alt+up"), key.WithHelp("alt+↑", "move item up")),
		MoveDown:   key.NewBinding(key.WithKeys("alt+down"), key.WithHelp("alt+↓", "move item down")),
		ToggleNull: key.NewBinding(key.WithKeys("ctrl+t"), key.WithHelp("ctrl+t", "toggle null")),

		// ctrl+b, ctrl+a and ctrl+e (below) are the Emacs aliases, left out of the help
		// as ctrl+e is: the screens around a form take them first (ctrl+b benches
		// the tool, ctrl+a accepts an elicitation, ctrl+e opens $EDITOR), so the
		// help would name a key that does something else there.
		CursorLeft:    key.NewBinding(key.WithKeys("left", "ctrl+b"), key.WithHelp("←", "cursor left")),
		CursorRight:   key.NewBinding(key.WithKeys("right", "ctrl+f"), key.WithHelp("→/ctrl+f", "cursor right")),
		LineStart:     key.NewBinding(key.WithKeys("home", "ctrl+a"), key.WithHelp("home", "start of the text")),
		LineEnd:       key.NewBinding(key.WithKeys("end", "ctrl+e"), key.WithHelp("end", "end of the text")),
		WordLeft:      key.NewBinding(key.WithKeys("alt+left", "ctrl+left", "alt+b"), key.WithHelp("alt+←", "word left")),
		WordRight:     key.NewBinding(key.WithKeys("alt+right", "ctrl+right", "alt+f"), key.WithHelp("alt+→", "word right")),
		DeleteBack:    key.NewBinding(key.WithKeys("backspace", "ctrl+h"), key.WithHelp("backspace", "delete back")),
		DeleteForward: key.NewBinding(key.WithKeys("delete", "ctrl+d"), key.WithHelp("delete", "delete forward")),
		KillLeft:      key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "delete to the start")),
		KillRight:     key.NewBinding(key.WithKeys("ctrl+k"), key.WithHelp("ctrl+k", "delete to the end")),
		DeleteWord:    key.NewBinding(key.WithKeys("ctrl+w", "alt+backspace"), key.WithHelp("ctrl+w", "delete a word")),

		Choose: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "choose")),
	}
}

// ShortHelp implements help.KeyMap.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Toggle, k.NextValue, k.AddItem, k.RemoveItem}
}

// FullHelp implements help.KeyMap.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Next, k.Prev, k.PageDown, k.PageUp},
		{k.Toggle, k.PrevValue, k.NextValue, k.Clear, k.ToggleNull},
		{k.AddItem, k.RemoveItem, k.MoveUp, k.MoveDown},
		{k.CursorLeft, k.CursorRight, k.WordLeft, k.WordRight, k.LineStart, k.LineEnd,
			k.DeleteBack, k.DeleteForward, k.KillLeft, k.KillRight, k.DeleteWord},
	}
}
