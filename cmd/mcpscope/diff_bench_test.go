package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
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

// BenchmarkDiff1000InProcess is BenchmarkDiff1000 without the process: `run`, the
// binary's own entry point, on the same arguments (flag parsing, loading both sides,
// Compare, the text report), with its allocations, which a loaded machine does not
// blur as it does the wall time of a 50 ms command.
func BenchmarkDiff1000InProcess(b *testing.B) {
	saved := diffFiles1000(b, testutil.Mcpscope(b))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if code := run([]string{"diff", saved[0], saved[1]}, io.Discard, io.Discard); code != 1 {
			b.Fatalf("diff exited %d, want 1 for a breaking change", code)
		}
	}
}

// diffFiles1000 saves the two --inspect files of BenchmarkDiff1000: the bundled host
// serving the tool files internal/testservers/toolsgen writes (scripts/bench-diff
// serves the same ones).
func diffFiles1000(b *testing.B, bin string) [2]string {
	dir := b.TempDir()
	gen := filepath.Join(dir, "toolsgen")
	if out, err := exec.Command("go", "build", "-o", gen, filepath.Join(testutil.Root(), "internal", "testservers", "toolsgen")).CombinedOutput(); err != nil {
		b.Fatalf("building toolsgen: %v\n%s", err, out)
	}
	var saved [2]string
	for v := range 2 {
		src, err := exec.Command(gen, "1000", fmt.Sprint(v)).Output()
		if err != nil {
			b.Fatal(err)
		}
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
