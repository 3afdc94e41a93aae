package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/workbench"
)

// BenchmarkWatchEditToToolList: from writing the tool file to the screen's tool list
// holding the edit (restart, handshake, tools/list, the list rebuilt), with a 50 ms
// debounce, through the screen's own message loop. Compare with
// BenchmarkWatchServerStart in the same run: the same server's own start to its
// first tool list. The budget is that start plus 50 ms.
func BenchmarkWatchEditToToolList(b *testing.B) {
	dir := b.TempDir()
	tools := filepath.Join(dir, "tools.json")
	os.WriteFile(tools, []byte(devToolsFile("v0", schemaV1)), 0o644)
	opts := Options{Name: "dev", Theme: "dark", Servers: []workbench.Spec{{Name: "dev",
		Target: client.Target{Argv: []string{testutil.Mcpscope(b), "host", "--tools", tools}},
		Watch:  []string{tools}, WatchDebounce: 50 * time.Millisecond}}}
	h := newHarnessWith(b, opts, 120, 40)
	h.until("the tools", func(m *model) bool { return greetDesc(m) == "v0" && m.srv.state == stateReady })
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		desc := fmt.Sprintf("v%d", i+1)
		os.WriteFile(tools, []byte(devToolsFile(desc, schemaV1)), 0o644)
		h.until(desc, func(m *model) bool { return greetDesc(m) == desc && m.srv.state == stateReady })
	}
}

// BenchmarkWatchServerStart: the same server started, connected, and its tools
// listed.
func BenchmarkWatchServerStart(b *testing.B) {
	dir := b.TempDir()
	tools := filepath.Join(dir, "tools.json")
	os.WriteFile(tools, []byte(devToolsFile("v0", schemaV1)), 0o644)
	argv := []string{testutil.Mcpscope(b), "host", "--tools", tools}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := client.Connect(ctx, client.Target{Argv: argv}, client.Options{Tap: nil})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Tools(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
}
