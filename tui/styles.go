package tui

import (
	"charm.land/lipgloss/v2"

	"github.com/mcpscope/mcpscope/themes"
	"github.com/mcpscope/mcpscope/tui/form"
)

// styles are the lipgloss styles of one palette, handed around in one struct.
type styles struct {
	palette                       themes.Palette
	text, muted, accent, title    lipgloss.Style
	pane, focusedPane             lipgloss.Style
	selected, match               lipgloss.Style
	send, recv, err, toolErr      lipgloss.Style
	warn, ok                      lipgloss.Style
	tab, activeTab                lipgloss.Style
	status, statusKey             lipgloss.Style
	badgeRO, badgeDestr           lipgloss.Style
	badgeIdem, badgeOpen, badgeDf lipgloss.Style
	form                          form.Styles
}

func newStyles(p themes.Palette) styles {
	c := lipgloss.Color
	border := lipgloss.RoundedBorder()
	fs := form.DefaultStyles()
	fs.Marker = fs.Marker.Foreground(c(p.Accent))
	fs.Required = fs.Required.Foreground(c(p.Error))
	fs.Error = fs.Error.Foreground(c(p.Error))
	fs.Section = fs.Section.Foreground(c(p.Accent))
	return styles{
		form:        fs,
		palette:     p,
		text:        lipgloss.NewStyle().Foreground(c(p.Text)),
		muted:       lipgloss.NewStyle().Foreground(c(p.Muted)),
		accent:      lipgloss.NewStyle().Foreground(c(p.Accent)),
		title:       lipgloss.NewStyle().Foreground(c(p.Accent)).Bold(true),
		pane:        lipgloss.NewStyle().Border(border).BorderForeground(c(p.Border)),
		focusedPane: lipgloss.NewStyle().Border(border).BorderForeground(c(p.FocusBorder)),
		selected:    lipgloss.NewStyle().Background(c(p.SelectedBG)).Foreground(c(p.Text)).Bold(true),
		match:       lipgloss.NewStyle().Foreground(c(p.Match)).Underline(true),
		send:        lipgloss.NewStyle().Foreground(c(p.Send)),
		recv:        lipgloss.NewStyle().Foreground(c(p.Recv)),
		err:         lipgloss.NewStyle().Foreground(c(p.Error)).Bold(true),
		toolErr:     lipgloss.NewStyle().Foreground(c(p.ToolError)).Bold(true),
		warn:        lipgloss.NewStyle().Foreground(c(p.Warn)),
		ok:          lipgloss.NewStyle().Foreground(c(p.OK)),
		tab:         lipgloss.NewStyle().Foreground(c(p.Muted)).Padding(0, 1),
		activeTab:   lipgloss.NewStyle().Foreground(c(p.Accent)).Bold(true).Underline(true).Padding(0, 1),
		status:      lipgloss.NewStyle().Foreground(c(p.Muted)),
		statusKey:   lipgloss.NewStyle().Foreground(c(p.Accent)),
		badgeRO:     lipgloss.NewStyle().Foreground(c(p.BadgeRO)),
		badgeDestr:  lipgloss.NewStyle().Foreground(c(p.BadgeDestr)),
		badgeIdem:   lipgloss.NewStyle().Foreground(c(p.BadgeIdem)),
		badgeOpen:   lipgloss.NewStyle().Foreground(c(p.BadgeOpen)),
		badgeDf:     lipgloss.NewStyle().Foreground(c(p.Muted)).Faint(true),
	}
}
