package form

import "charm.land/bubbles/v2/key"

// KeyMap lists the form's bindings so the root model can show them in its
// help. Text editing keys (left/right, home/end, backspace, delete, ctrl+u,
// ctrl+k, ctrl+w, alt+left/right) work in text fields as usual and are not
// listed.
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
	}
}
