package main_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/surface"
)

// BenchmarkDiff1000: `mcpscope diff a.json b.json` on two saved --inspect files of
// 1,000 tools each (1.4 MB each), 243 of the tools changed (a new required parameter
// on every tenth, a description edit on every seventh): the whole command, as a CI job
// runs it, process start included. The target: under 100 ms.
func BenchmarkDiff1000(b *testing.B) {
	bin := testutil.Mcpscope(b)
	saved := diffFiles1000(b, bin)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := exec.Command(bin, "diff", saved[0], saved[1]).Output()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			b.Fatalf("diff: %v (want exit 1 for a breaking change)\n%.300s", err, out)
		}
	}
}

// BenchmarkDiff1000InProcess is BenchmarkDiff1000 without the process: the calls
// runDiff makes (surface.ParseFile, File.Load of both sides, Compare, Write of the
// text report), with their allocations, which a loaded machine does not blur as it
// does the wall time of a 50 ms command.
func BenchmarkDiff1000InProcess(b *testing.B) {
	saved := diffFiles1000(b, testutil.Mcpscope(b))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var sides [2]*surface.Surface
		for v, path := range saved {
			f, _ := surface.ParseFile(path)
			s, err := f.Load(path)
			if err != nil {
				b.Fatal(err)
			}
			sides[v] = s
		}
		r := surface.Compare(sides[0], sides[1])
		if err := surface.Write(io.Discard, surface.FormatText, r, true); err != nil || !r.Fails("breaking") {
			b.Fatalf("write: %v, breaking %v", err, r.Fails("breaking"))
		}
	}
}

// diffFiles1000 saves the two --inspect files of BenchmarkDiff1000.
func diffFiles1000(b *testing.B, bin string) [2]string {
	dir := b.TempDir()
	var saved [2]string
	for v := range 2 {
		var tools []map[string]any
		for i := range 1000 {
			props := map[string]any{
				"name":  map[string]any{"type": "string", "description": "who to greet"},
				"count": map[string]any{"type": "integer", "minimum": 0},
				"mode":  map[string]any{"type": "string", "enum": []string{"a", "b", "c"}},
			}
			required := []string{"name"}
			desc := fmt.Sprintf("tool number %d", i)
			if v == 1 && i%10 == 0 {
				props["extra"] = map[string]any{"type": "integer"}
				required = append(required, "extra")
			}
			if v == 1 && i%7 == 0 {
				desc += ", edited"
			}
			tools = append(tools, map[string]any{"name": fmt.Sprintf("tool-%04d", i), "description": desc,
				"inputSchema": map[string]any{"type": "object", "properties": props, "required": required},
				"run":         []string{"/bin/echo", "x"}})
		}
		src, _ := json.Marshal(map[string]any{"tools": tools})
		toolFile := filepath.Join(dir, fmt.Sprintf("tools%d.json", v))
		if err := os.WriteFile(toolFile, src, 0o644); err != nil {
			b.Fatal(err)
		}
		out, err := exec.Command(bin, "--inspect", "--format", "json", "--", bin, "host", "--tools", toolFile).Output()
		if err != nil {
			b.Fatal(err)
		}
		saved[v] = filepath.Join(dir, fmt.Sprintf("inspect%d.json", v))
		if err := os.WriteFile(saved[v], out, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return saved
}
