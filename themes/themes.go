// Package themes holds mcpscope's palettes as data: dark, light and high contrast. The
// TUI turns a palette into styles; the terminal's colour profile (and NO_COLOR) decide
// how much of it reaches the screen.
package themes

import "strings"

// Palette is a theme's colours as hex strings.
type Palette struct {
	Name        string
	Text        string
	Muted       string
	Accent      string // focus, selection, headings
	Border      string
	FocusBorder string
	SelectedBG  string
	Send        string // client → server
	Recv        string // server → client
	Error       string // protocol errors, failures
	ToolError   string // isError results (a tool's own error)
	Warn        string
	OK          string
	Match       string // fuzzy-match highlight
	BadgeRO     string
	BadgeDestr  string
	BadgeIdem   string
	BadgeOpen   string
}

// Dark is for dark terminal backgrounds.
var Dark = Palette{
	Name: "dark", Text: "#E4E4E7", Muted: "#8B8B93", Accent: "#7AA2F7", Border: "#3F3F46", FocusBorder: "#7AA2F7",
	SelectedBG: "#2A2F45", Send: "#7DCFFF", Recv: "#9ECE6A", Error: "#F7768E", ToolError: "#FF9E64",
	Warn: "#E0AF68", OK: "#9ECE6A", Match: "#FFD75F",
	BadgeRO: "#9ECE6A", BadgeDestr: "#F7768E", BadgeIdem: "#7DCFFF", BadgeOpen: "#BB9AF7",
}

// Light is for light terminal backgrounds.
var Light = Palette{
	Name: "light", Text: "#1F2328", Muted: "#6E7781", Accent: "#0550AE", Border: "#D0D7DE", FocusBorder: "#0550AE",
	SelectedBG: "#DDF4FF", Send: "#0969DA", Recv: "#1A7F37", Error: "#CF222E", ToolError: "#BC4C00",
	Warn: "#9A6700", OK: "#1A7F37", Match: "#8250DF",
	BadgeRO: "#1A7F37", BadgeDestr: "#CF222E", BadgeIdem: "#0969DA", BadgeOpen: "#8250DF",
}

// HighContrast uses only the brightest ANSI-like colours on black.
var HighContrast = Palette{
	Name: "high-contrast", Text: "#FFFFFF", Muted: "#D0D0D0", Accent: "#FFFF00", Border: "#FFFFFF", FocusBorder: "#FFFF00",
	SelectedBG: "#0000AF", Send: "#00FFFF", Recv: "#00FF00", Error: "#FF0000", ToolError: "#FF8700",
	Warn: "#FFFF00", OK: "#00FF00", Match: "#FF00FF",
	BadgeRO: "#00FF00", BadgeDestr: "#FF0000", BadgeIdem: "#00FFFF", BadgeOpen: "#FF00FF",
}

// ByName finds a palette by its --theme name ("auto" and "" return false).
func ByName(name string) (Palette, bool) {
	switch strings.ToLower(name) {
	case "dark":
		return Dark, true
	case "light":
		return Light, true
	case "high-contrast", "highcontrast", "hc":
		return HighContrast, true
	}
	return Palette{}, false
}
