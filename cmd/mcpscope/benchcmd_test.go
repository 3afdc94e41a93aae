package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// benchJSON is what a script reads of bench --format json.
type benchJSON struct {
	Server, Transport, Tool, Mode string
	Concurrency, Sessions         int
	Calls, OK, Failed             int
	Throughput                    float64
	LatencyMs                     struct{ Min, Mean, P50, P90, P95, P99, P999, Max float64 }
	FirstByte                     *struct{ Calls int }
	Late                          *struct{ Calls int }
	Errors                        []struct {
		Kind    string
		Count   int
		Example string
	}
	Process *struct {
		Pids         int
		RSSPeakBytes int64
	}
	Histogram []struct {
		LoMs, HiMs float64
		Count      int
	}
	Thresholds []struct {
		Check, Measured string
		Failed          bool
	}
	Passed bool
	Ended  string
}

func readBench(t *testing.T, r result) benchJSON {
	t.Helper()
	var j benchJSON
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil {
		t.Fatalf("bench --format json: %v\nstdout:\n%s\nstderr:\n%s", err, r.stdout, r.stderr)
	}
	return j
}

// checkBench: exactly n calls, all ok, percentiles in order, and a histogram that
// holds every call.
func checkBench(t *testing.T, j benchJSON, n int) {
	t.Helper()
	if j.Calls != n || j.OK != n || j.Failed != 0 || len(j.Errors) != 0 {
		t.Errorf("%d calls, %d ok, %d failed (%v); want %d ok", j.Calls, j.OK, j.Failed, j.Errors, n)
	}
	l := j.LatencyMs
	if !(l.Min > 0 && l.Min <= l.P50 && l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.Max) || j.Throughput <= 0 {
		t.Errorf("latency %+v, throughput %v", l, j.Throughput)
	}
	sum := 0
	for _, b := range j.Histogram {
		sum += b.Count
	}
	if sum != n {
		t.Errorf("the histogram holds %d calls, want %d", sum, n)
	}
}

// bench against the bundled host over stdio: the count asked for, four in flight on
// one process (and over two processes), the server's process tree measured; the text
// report draws the histogram.
func TestBenchStdio(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	j := readBench(t, mcpscope(t, nil, "bench", "echo", "text=hi", "-n", "150", "-c", "4", "--warmup", "20", "--format", "json", "--", bin, "host"))
	checkBench(t, j, 150)
	if j.Transport != "stdio" || j.Concurrency != 4 || j.Sessions != 1 || j.Mode != "closed" || j.Process == nil || j.Process.Pids != 1 || j.Process.RSSPeakBytes < 1<<20 {
		t.Errorf("report: %+v process %+v", j, j.Process)
	}
	j = readBench(t, mcpscope(t, nil, "bench", "echo", "text=hi", "-n", "100", "-c", "4", "--processes", "2", "--format", "json", "--", bin, "host"))
	checkBench(t, j, 100)
	if j.Sessions != 2 || j.Process == nil || j.Process.Pids != 2 {
		t.Errorf("--processes 2: %d sessions, process %+v", j.Sessions, j.Process)
	}
	expect(t, mcpscope(t, nil, "bench", "echo", "text=hi", "-n", "40", "--", bin, "host"), 0,
		[]string{"bench echo on ", "calls       40 in ", "40 ok, 0 failed", "latency     p50 ", "p99 ", "latency (log scale; ◂ p99)", "│", "◂", "calls/s over the run"}, nil)
}

// Over HTTP: -c N is N clients, each its own session; the count is exact.
func TestBenchHTTP(t *testing.T) {
	t.Parallel()
	url := hostHTTP(t)
	j := readBench(t, mcpscope(t, nil, "bench", "echo", "text=hi", "-n", "120", "-c", "3", "--format", "json", url))
	checkBench(t, j, 120)
	if j.Transport != "http" || j.Sessions != 3 || j.Process != nil {
		t.Errorf("HTTP: transport %s, %d sessions, process %+v", j.Transport, j.Sessions, j.Process)
	}
}

// The other era, and another server: the bundled host held to 2025-11-25 (sessions
// with Mcp-Session-Id), and the reference server-everything over Streamable HTTP,
// whose echo is read-only and whose gzip-file-as-resource is not.
func TestBenchHTTPLegacyEraAndServerEverything(t *testing.T) {
	t.Parallel()
	j := readBench(t, mcpscope(t, nil, "bench", "echo", "text=hi", "-n", "60", "-c", "2", "--protocol", "2025-11-25", "--format", "json", hostHTTP(t)))
	checkBench(t, j, 60)
	ev := "http://" + testutil.EverythingHTTP(t, "streamableHttp").Addr + "/mcp"
	j = readBench(t, mcpscope(t, nil, "bench", "echo", "message=hi", "-n", "60", "-c", "3", "--format", "json", ev))
	checkBench(t, j, 60)
	if j.Sessions != 3 {
		t.Errorf("server-everything: %d sessions, want 3", j.Sessions)
	}
	expect(t, mcpscope(t, nil, "bench", "gzip-file-as-resource", "-n", "3", ev), 2, nil, []string{`tool "gzip-file-as-resource"`, "is not marked read-only"})
}

// A tool without readOnlyHint: true is refused, naming the tool and the server,
// before a single call: the recording holds the tool list and no tools/call. With
// --allow-write it runs.
func TestBenchRefusesAToolThatIsNotReadOnly(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	rec := filepath.Join(t.TempDir(), "refused.jsonl")
	expect(t, mcpscope(t, nil, "bench", "random_id", "-n", "5", "--record", rec, "--", bin, "host"), 2, nil,
		[]string{`tool "random_id" of server `, "is not marked read-only (readOnlyHint: true)", "would call it 5 times", "--allow-write"})
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"tools/list"`) || strings.Contains(string(b), `"tools/call"`) {
		t.Errorf("the recording should hold tools/list and no tools/call:\n%s", b)
	}
	j := readBench(t, mcpscope(t, nil, "bench", "random_id", "-n", "5", "--allow-write", "--format", "json", "--", bin, "host"))
	checkBench(t, j, 5)
}

// Errors are counted by kind, and a --fail-on condition that holds exits 6 with the
// condition named; one that does not exits 0.
func TestBenchThresholdsAndErrors(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	r := mcpscope(t, nil, "bench", "fail", "-n", "30", "-c", "2", "--fail-on", "errors>0,p99>1h", "--format", "json", "--", bin, "host")
	if r.code != 6 || !strings.Contains(r.stderr, "a --fail-on condition held: errors>0 (measured 30)") {
		t.Errorf("exit %d, want 6\n%s", r.code, r.stderr)
	}
	j := readBench(t, r)
	if j.Calls != 30 || j.OK != 0 || j.Failed != 30 || len(j.Errors) != 1 || j.Errors[0].Kind != "isError" || j.Errors[0].Count != 30 ||
		!strings.Contains(j.Errors[0].Example, "always fails") || j.Passed {
		t.Errorf("errors: %+v passed %v", j.Errors, j.Passed)
	}
	if len(j.Thresholds) != 2 || !j.Thresholds[0].Failed || j.Thresholds[1].Failed {
		t.Errorf("thresholds: %+v", j.Thresholds)
	}
	expect(t, mcpscope(t, nil, "bench", "echo", "text=hi", "-n", "20", "--fail-on", "p99>1h,errors>0", "--", bin, "host"), 0,
		[]string{"ok    p99>1h  (measured ", "ok    errors>0  (measured 0)"}, nil)
	expect(t, mcpscope(t, nil, "bench", "echo", "text=hi", "-n", "20", "--fail-on", "p99>1h", "--fail-on", "p50>1ns", "--", bin, "host"), 6,
		[]string{"ok    p99>1h", "FAIL  p50>1ns"}, []string{"p50>1ns"})
}

// --rate is an open loop: every scheduled call is sent, whatever the server does
// (20 at 40/s for half a second, though one slot and a 50 ms tool would let a closed
// loop send 10), and the calls that waited for the slot are counted late.
func TestBenchRateIsOpenLoop(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	rec := filepath.Join(t.TempDir(), "rate.jsonl")
	j := readBench(t, mcpscope(t, nil, "bench", "slow", "steps=1", "delayMs=50", "-c", "1", "--rate", "40", "--duration", "500ms",
		"--record", rec, "--format", "json", "--", bin, "host"))
	checkBench(t, j, 20)
	if j.Mode != "open" || j.Late == nil || j.Late.Calls == 0 || j.FirstByte == nil || j.FirstByte.Calls != 20 {
		t.Errorf("mode %s, late %+v, first byte %+v", j.Mode, j.Late, j.FirstByte)
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"method":"tools/call"`); n != 20 {
		t.Errorf("%d tools/call on the wire, want the 20 scheduled", n)
	}
}

// Bad input: one message each, exit 2, nothing started.
func TestBenchUsage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench"}, "bench needs a tool name"},
		{[]string{"bench", "echo", "-n", "5", "--duration", "1s"}, "give -n COUNT or --duration D, not both"},
		{[]string{"bench", "echo", "--fail-on", "p99>fast"}, `--fail-on "p99>fast": p99 takes a duration`},
		{[]string{"bench", "echo", "--fail-on", "latency>1s"}, `no metric "latency"`},
		{[]string{"bench", "echo", "--warmup", "lots"}, `--warmup "lots"`},
		{[]string{"bench", "echo", "-c", "2", "--processes", "3"}, "give -c at least 3"},
		{[]string{"bench", "echo", "--format", "junit"}, "bench prints text or json"},
		{[]string{"bench", "nosuch", "-n", "1"}, `the server has no tool "nosuch"`},
	} {
		expect(t, mcpscope(t, nil, c.args...), 2, nil, []string{c.want})
	}
}

// Ctrl-C during a run: the report of the calls finished so far, said to be
// interrupted, and exit 130 with the server stopped.
func TestBenchInterruptedReportsWhatItHas(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	rec := filepath.Join(t.TempDir(), "int.jsonl")
	cmd := exec.Command(bin, "bench", "slow", "steps=1", "delayMs=20", "-c", "2", "--duration", "1h", "--record", rec, "--format", "json", "--", bin, "host")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	// The answer to a call is on the wire: the run is under way.
	testutil.WaitFile(t, rec, `done: 1 steps of 20ms`)
	cmd.Process.Signal(os.Interrupt)
	testutil.Within(t, "bench to end after SIGINT", func() { <-done })
	if code := cmd.ProcessState.ExitCode(); code != 130 || !strings.Contains(errb.String(), "interrupted") {
		t.Fatalf("exit %d, want 130\n%s", code, errb.String())
	}
	var j struct {
		Interrupted bool
		Calls       int
	}
	if err := json.Unmarshal([]byte(out.String()), &j); err != nil || !j.Interrupted {
		t.Errorf("report %+v (%v):\n%s", j, err, out.String())
	}
}

// A server that dies during the run ends it: the calls after its death are not
// "made" (each failed at once, in microseconds, and those failures were the p50 of a
// report that exited 0). The report says when it ended and why, with its stderr, one
// line each; bench exits 1, as any command whose server failed.
func TestBenchStopsWhenTheServerDies(t *testing.T) {
	t.Parallel()
	r := fake(t, "crash-call", "bench", "echo", "--allow-write", "-n", "50", "--args", `{"message":"x"}`)
	expect(t, r, 1, []string{"calls       3 in ", "2 ok, 1 failed",
		"ended       the server ended during call 3: the server closed the connection (server exited with code 139)\n",
		"\n              stderr: fakemcp: segmentation fault in call 3\n"}, []string{"mcpscope: the server ended during call 3: ", "; the report has the calls made before"})
	if strings.Contains(r.stdout, "↵") {
		t.Errorf("a message's lines joined with ↵:\n%s", r.stdout)
	}
	r = fake(t, "crash-call", "bench", "echo", "--allow-write", "-n", "50", "--args", `{"message":"x"}`, "--format", "json")
	j := readBench(t, r)
	if r.code != 1 || j.Calls != 3 || !strings.Contains(j.Ended, "server exited with code 139") {
		t.Errorf("json: exit %d, calls %d, ended %q\n%s", r.code, j.Calls, j.Ended, r.stdout)
	}
}
