package tui

import (
	"bytes"
	"fmt"
	"image"
	"os"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi/kitty"
)

// Inline pictures use the Kitty graphics protocol with Unicode placeholders: the image
// is sent once to the terminal as a virtual placement, and the screen holds ordinary
// text cells (a placeholder character, diacritics for row and column, the image id in
// the foreground colour) that the terminal paints the picture over. The cells are text,
// so the cell-based renderer, scrolling and resizing keep working. Terminals without
// the protocol get the description alone.

// kittyGraphics reports whether the terminal speaks the Kitty graphics protocol with
// Unicode placeholders. Inside tmux or screen the escapes would not reach it.
func kittyGraphics(getenv func(string) string) bool {
	if getenv("TMUX") != "" || strings.HasPrefix(getenv("TERM"), "screen") {
		return false
	}
	switch {
	case getenv("KITTY_WINDOW_ID") != "", strings.Contains(getenv("TERM"), "kitty"):
		return true
	case getenv("TERM_PROGRAM") == "ghostty", getenv("TERM_PROGRAM") == "WezTerm":
		return true
	}
	return false
}

var inlineSupported = kittyGraphics(os.Getenv)

// inlineImage is one picture sent to the terminal.
type inlineImage struct {
	id         int
	cols, rows int
	seq        string // the escape sequence that transmits and places it
}

// maxInlineRows bounds a picture's height on screen.
const maxInlineRows = 16

// newInlineImage prepares a picture of at most maxCols cells wide. Cells are taken to
// be twice as high as wide, the usual terminal font shape.
func newInlineImage(data []byte, id, maxCols int) (*inlineImage, error) {
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	b := img.Bounds()
	if b.Dx() == 0 || b.Dy() == 0 {
		return nil, fmt.Errorf("empty image")
	}
	cols := min(max((b.Dx()+7)/8, 1), maxCols)
	rows := max((b.Dy()*cols+b.Dx()-1)/b.Dx()/2, 1)
	if rows > maxInlineRows {
		rows = maxInlineRows
		cols = max(rows*2*b.Dx()/b.Dy(), 1)
	}
	var seq bytes.Buffer
	err = kitty.EncodeGraphics(&seq, img, &kitty.Options{
		Action: kitty.TransmitAndPut, Format: kitty.PNG, Transmission: kitty.Direct,
		ID: id, Quiet: 2, Chunk: true, VirtualPlacement: true, Columns: cols, Rows: rows,
	})
	if err != nil {
		return nil, err
	}
	return &inlineImage{id: id, cols: cols, rows: rows, seq: seq.String()}, nil
}

// lines are the placeholder cells the terminal paints the picture over.
func (im *inlineImage) lines() []string {
	colour := lipgloss.NewStyle().Foreground(lipgloss.Color(fmt.Sprintf("#%06x", im.id&0xFFFFFF)))
	out := make([]string, im.rows)
	for r := 0; r < im.rows; r++ {
		var b strings.Builder
		for c := 0; c < im.cols; c++ {
			b.WriteRune(kitty.Placeholder)
			b.WriteRune(kitty.Diacritic(r))
			b.WriteRune(kitty.Diacritic(c))
		}
		out[r] = colour.Render(b.String())
	}
	return out
}
