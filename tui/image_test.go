package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi/kitty"
)

func TestKittyDetection(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	cases := []struct {
		env  func(string) string
		want bool
	}{
		{env("TERM", "xterm-kitty"), true},
		{env("TERM", "xterm-256color", "TERM_PROGRAM", "ghostty"), true},
		{env("TERM", "xterm-256color", "TERM_PROGRAM", "WezTerm"), true},
		{env("TERM", "xterm-kitty", "TMUX", "/tmp/tmux-0/default,1,0"), false},
		{env("TERM", "screen-256color", "KITTY_WINDOW_ID", "1"), false},
		{env("TERM", "xterm-256color"), false},
	}
	for i, c := range cases {
		if got := kittyGraphics(c.env); got != c.want {
			t.Errorf("case %d: got %v, want %v", i, got, c.want)
		}
	}
}

// On a terminal with Kitty graphics, an image block is sent to the terminal once as a
// virtual placement and drawn as placeholder cells carrying its id.
func TestInlinePicture(t *testing.T) {
	h := ready(t, 120, 40)
	h.m.inline = true
	h.selectTool("image")
	h.press("enter", "enter")
	h.until("the result and its picture", func(m *model) bool {
		return m.current != nil && !m.current.running && len(m.current.pictures) > 0
	})
	var pic *inlineImage
	for _, p := range h.m.current.pictures {
		pic = p
	}
	if pic == nil {
		t.Fatal("no picture prepared for the image block")
	}
	// The host's image is 64x64 pixels: 8 cells wide, 4 rows high.
	if pic.cols != 8 || pic.rows != 4 {
		t.Errorf("picture is %dx%d cells", pic.cols, pic.rows)
	}
	if !strings.HasPrefix(pic.seq, "\x1b_G") || !strings.Contains(pic.seq, "U=1") || !strings.Contains(pic.seq, "i=1") || !strings.Contains(pic.seq, "f=100") {
		t.Errorf("transmit sequence starts %q", pic.seq[:min(len(pic.seq), 80)])
	}
	if n := strings.Count(h.m.render(), string(kitty.Placeholder)); n != pic.cols*pic.rows {
		t.Errorf("%d placeholder cells drawn, want %d", n, pic.cols*pic.rows)
	}
	h.contains("image/png", "64×64")
}
