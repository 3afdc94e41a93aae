package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/themes"
)

// A list of a million rows draws only the rows on screen, and every move keeps
// the cursor among them.
func TestListDrawsOnlyVisibleRows(t *testing.T) {
	const n, height = 1_000_000, 20
	var l list
	calls := 0
	draw := func() []string {
		calls = 0
		return l.draw(n, height, func(i int, selected bool) string {
			calls++
			if selected {
				return fmt.Sprintf("> %d", i)
			}
			return fmt.Sprintf("  %d", i)
		})
	}
	check := func(what string, wantCursor int) {
		t.Helper()
		rows := draw()
		if calls != height || len(rows) != height {
			t.Fatalf("%s: drew %d rows (%d lines), want %d", what, calls, len(rows), height)
		}
		if l.cursor != wantCursor {
			t.Fatalf("%s: cursor %d, want %d", what, l.cursor, wantCursor)
		}
		want := fmt.Sprintf("> %d", wantCursor)
		found := false
		for _, r := range rows {
			found = found || r == want
		}
		if !found {
			t.Fatalf("%s: the cursor's row %d is not on screen: %q…%q", what, wantCursor, rows[0], rows[len(rows)-1])
		}
	}
	check("first frame", 0)
	keys := defaultKeys()
	press := func(name string) {
		if !l.keyMove(keyMsg(name), keys, n) {
			t.Fatalf("%s is not a list key", name)
		}
	}
	press("G")
	check("end", n-1)
	if l.offset != n-height {
		t.Errorf("at the end the offset is %d, want %d (a full screen)", l.offset, n-height)
	}
	press("g")
	check("home", 0)
	press("pgdown")
	check("page down", height-1)
	press("pgdown")
	check("second page down", 2*(height-1))
	press("pgup")
	check("page up", height-1)
	press("up")
	check("up", height-2)
	press("down")
	press("down")
	check("down", height)
	if l.keyMove(keyMsg("x"), keys, n) {
		t.Error("x moved the list")
	}
	l.moveBy(1<<30, n)
	check("jump past the end", n-1)
	l.moveBy(-1<<30, n)
	check("jump past the top", 0)
}

// When the rows shrink (a filter, a folded group), the cursor stays on a row and
// the screen stays full.
func TestListKeepsScreenFullWhenRowsShrink(t *testing.T) {
	var l list
	row := func(i int, sel bool) string { return fmt.Sprint(i) }
	l.draw(100, 10, row)
	l.end(100)
	l.draw(100, 10, row)
	got := l.draw(15, 10, row)
	if strings.Join(got, ",") != "5,6,7,8,9,10,11,12,13,14" || l.cursor != 14 {
		t.Errorf("after shrinking to 15 rows: %v, cursor %d", got, l.cursor)
	}
	if got := l.draw(0, 10, row); len(got) != 0 || l.cursor != 0 {
		t.Errorf("an empty list drew %v, cursor %d", got, l.cursor)
	}
}

// BenchmarkListFrame is one frame of a list of 40 rows and of a million (the cursor
// moving each frame): the same cost, since only the visible rows are drawn.
func BenchmarkListFrame(b *testing.B) {
	for _, n := range []int{40, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var l list
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				l.moveBy(997, n)
				l.draw(n, 40, func(i int, sel bool) string { return "" })
			}
		})
	}
}

// BenchmarkToolListFrame draws the tool pane (120×40) with 100 and with 10,000
// tools, paging down each frame.
func BenchmarkToolListFrame(b *testing.B) {
	for _, n := range []int{100, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var l toolList
			tools := make([]client.Tool, n)
			for i := range tools {
				tools[i] = client.Tool{Name: fmt.Sprintf("tool_%05d", i)}
			}
			l.setTools(tools)
			st := newStyles(themes.Dark)
			_ = l.view(st, 42, 36, true)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				l.move(l.page())
				if l.cursor == len(l.rows)-1 {
					l.home()
				}
				_ = l.view(st, 42, 36, true)
			}
		})
	}
}
