package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/target"
)

// Keys are matched through bindings (key.Matches), never by their names, so that the
// help shows every key a view handles and a binding changed in one place changes
// everywhere. This keeps new code to it.
func TestNoRawKeyMatching(t *testing.T) {
	raw := regexp.MustCompile(`(^|[^.\w])(k|m|msg|key)\.(String|Keystroke)\(\)`)
	for _, dir := range []string{".", "form"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(b), "\n") {
				if raw.MatchString(line) {
					t.Errorf("%s:%d matches a key by its name: %s", f, i+1, strings.TrimSpace(line))
				}
			}
		}
	}
}

// History is a windowed list: with more calls than fit, end (G) shows the oldest
// call and l (like →) opens its result. Before History shared the list type, the
// cursor could move below the screen, out of sight.
func TestHistoryScrollsToTheOldestCall(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"mcpscope":"recording","version":1,"started":"2026-01-01T00:00:00Z","target":{"transport":"stdio","argv":["x"]}}` + "\n")
	const calls = 60
	for i := range calls {
		fmt.Fprintf(&b, `{"t":%d,"dir":"send","msg":{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"count","arguments":{"n":%d}}}}`+"\n", i+1, i+1, i)
		fmt.Fprintf(&b, `{"t":%d.5,"dir":"recv","msg":{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"answer number %d"}]}}}`+"\n", i+1, i+1, i)
	}
	b.WriteString(`{"t":99,"kind":"end"}` + "\n")
	file := filepath.Join(t.TempDir(), "many.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	rec, err := record.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, Options{
		Target: target.Target{Argv: []string{testutil.Mcpscope(t), "serve", file}},
		Name:   "recording", Theme: "dark", Browse: rec,
	}, 100, 24)
	h.until("the failure", func(m *model) bool { return m.srv.state == stateFailed })
	h.press("6")
	h.contains(`{"n":59}`)
	h.press("G")
	h.contains(`› HH:MM:SS`, `{"n":0}`)
	h.press("l")
	h.contains("answer number 0")
	if h.m.tab != tabResult {
		t.Errorf("l did not open the Result tab")
	}
	h.press("6", "g", "pgdown")
	if c := h.m.hist.cursor; c < 5 || c >= calls-1 {
		t.Errorf("pgdown moved the History cursor to %d", c)
	}
	h.contains(fmt.Sprintf(`{"n":%d}`, calls-1-h.m.hist.cursor))
}
